package search

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/router/api"
)

// TimeRange is a resolved search range; a zero From means "all time".
type TimeRange struct {
	From, To time.Time
}

// relative resolves range=<seconds> as Graylog's RelativeRange does: 0 is
// all time. Graylog's range is a Java int, and so is the limit here: it
// keeps now minus the range within the years a time can print.
func relative(now time.Time, seconds string) (TimeRange, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(seconds), 10, 64)
	if err != nil || n < 0 || n > api.MaxInt32 {
		return TimeRange{}, fmt.Errorf("invalid relative range %q: range must be a whole number of seconds from 0 to %d", seconds, api.MaxInt32)
	}
	if n == 0 {
		return TimeRange{To: now}, nil
	}
	return TimeRange{From: now.Add(-time.Duration(n) * time.Second), To: now}, nil
}

// timeLayouts are the forms Graylog's absolute search accepts for from and
// to: ISO 8601 as the web interface sends it, and Elasticsearch's
// "yyyy-MM-dd HH:mm:ss.SSS" as older clients do.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.000Z07:00",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05.000",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05.000",
	"2006-01-02 15:04:05",
	"2006-01-02",
}

// ParseTime parses an absolute instant; times without a zone are UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid date %q: use ISO 8601, e.g. 2020-12-01T10:00:00.000Z", s)
}

func absolute(from, to string) (TimeRange, error) {
	if from == "" || to == "" {
		return TimeRange{}, fmt.Errorf("both from and to are required")
	}
	f, err := ParseTime(from)
	if err != nil {
		return TimeRange{}, err
	}
	t, err := ParseTime(to)
	if err != nil {
		return TimeRange{}, err
	}
	if t.Before(f) {
		return TimeRange{}, fmt.Errorf("from %s is after to %s", from, to)
	}
	return TimeRange{From: f, To: t}, nil
}

// numberWords are the counts Natty reads spelled out: Graylog's web
// interface offers "Last five minutes" as its keyword.
var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
	"fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// countPattern is a count in digits or words ("5", "five", "twenty-five").
const countPattern = `(\d+|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)`

var (
	lastN   = regexp.MustCompile(`^(?:last|past)\s+` + countPattern + `?\s*(second|minute|hour|day|week|month|year)s?$`)
	nAgo    = regexp.MustCompile(`^` + countPattern + `\s*(second|minute|hour|day|week|month|year)s?\s+ago$`)
	between = regexp.MustCompile(`(?i)^(?:from\s+)?(.+?)\s+(?:to|until)\s+(.+)$`)
)

// keyword resolves the natural-language ranges of /search/universal/keyword
// that Graylog users write (Graylog parses them with Natty): "last 30
// minutes", "last day", "2 hours ago" (until now), "today", "yesterday",
// "this week", and "from <date> to <date>" with absolute dates.
func keyword(now time.Time, kw string) (TimeRange, error) {
	spaced := strings.Join(strings.Fields(kw), " ")
	s := strings.ToLower(spaced)
	now = now.UTC()
	day := now.Truncate(24 * time.Hour)
	switch s {
	case "":
		return TimeRange{}, fmt.Errorf("keyword is required")
	case "today":
		return TimeRange{From: day, To: now}, nil
	case "yesterday":
		return TimeRange{From: day.AddDate(0, 0, -1), To: day.Add(-time.Millisecond)}, nil
	case "this week":
		return TimeRange{From: day.AddDate(0, 0, -int((day.Weekday()+6)%7)), To: now}, nil
	case "this month":
		return TimeRange{From: time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), To: now}, nil
	case "this year":
		return TimeRange{From: time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC), To: now}, nil
	}
	if m := lastN.FindStringSubmatch(s); m != nil {
		n := 1
		if m[1] != "" {
			n = count(m[1])
		}
		from, err := back(now, n, m[2])
		return TimeRange{From: from, To: now}, err
	}
	if m := nAgo.FindStringSubmatch(s); m != nil {
		from, err := back(now, count(m[1]), m[2])
		return TimeRange{From: from, To: now}, err
	}
	// Dates keep their case: ParseTime wants the T and the Z.
	if m := between.FindStringSubmatch(spaced); m != nil {
		return absolute(m[1], m[2])
	}
	return TimeRange{}, fmt.Errorf("could not understand the keyword %q; try e.g. \"last 30 minutes\", \"yesterday\" or \"from 2020-12-01 to 2020-12-02\"", kw)
}

// count reads a keyword's count, in digits or words; one too large for an
// int is math.MaxInt, which back refuses.
func count(digits string) int {
	if n, ok := numberWords[digits]; ok {
		return n
	}
	if tens, units, ok := strings.Cut(strings.ReplaceAll(digits, "-", " "), " "); ok {
		return numberWords[tens] + numberWords[strings.TrimSpace(units)]
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// back returns now minus n units, refusing counts that overflow a time.
func back(now time.Time, n int, unit string) (time.Time, error) {
	if n > 1_000_000 {
		return time.Time{}, fmt.Errorf("range of %d %ss is too long", n, unit)
	}
	switch unit {
	case "second":
		return now.Add(-time.Duration(n) * time.Second), nil
	case "minute":
		return now.Add(-time.Duration(n) * time.Minute), nil
	case "hour":
		return now.Add(-time.Duration(n) * time.Hour), nil
	case "day":
		return now.AddDate(0, 0, -n), nil
	case "week":
		return now.AddDate(0, 0, -7*n), nil
	case "month":
		return now.AddDate(0, -n, 0), nil
	}
	return now.AddDate(-n, 0, 0), nil
}
