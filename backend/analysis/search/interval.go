package search

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Interval is the bucket size of a date histogram: N units of ms, s, m, h,
// d, w or M (month), as the views API's timeunit intervals write it
// ("1h", "30m"). A week or month of N=1 is a calendar week (from Monday)
// or month, every other interval a fixed length counted from the epoch,
// as in Elasticsearch; Graylog turns "2w" into "14d" and "3M" into "90d",
// and so does ParseTimeUnit.
type Interval struct {
	N    int
	Unit string
}

// unitLength is the fixed length of each unit; w and M only when N > 1
// has been turned into days, so they are never looked up for N > 1.
var unitLength = map[string]time.Duration{
	"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
	"d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// maxIntervalQuantity bounds N so that N units never overflow a duration.
const maxIntervalQuantity = 100000

// ParseTimeUnit parses a timeunit interval, "<quantity><unit>" with unit
// one of ms, s, m, h, d, w, M (Graylog's TimeUnitInterval).
func ParseTimeUnit(s string) (Interval, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	unit := s[i:]
	n, err := strconv.Atoi(s[:i])
	if i == 0 || err != nil || (unit != "M" && unitLength[unit] == 0) {
		return Interval{}, fmt.Errorf("time unit %q must be {quantity}{unit}, where quantity is a positive number and unit [ms, s, m, h, d, w, M]", s)
	}
	if n <= 0 || n > maxIntervalQuantity {
		return Interval{}, fmt.Errorf("time unit %q: quantity must be between 1 and %d", s, maxIntervalQuantity)
	}
	switch {
	case unit == "w" && n > 1:
		return Interval{N: 7 * n, Unit: "d"}, nil
	case unit == "M" && n > 1:
		return Interval{N: 30 * n, Unit: "d"}, nil
	}
	return Interval{N: n, Unit: unit}, nil
}

func (i Interval) String() string { return strconv.Itoa(i.N) + i.Unit }

// calendar reports whether buckets follow the calendar rather than a fixed
// length.
func (i Interval) calendar() bool { return i.N == 1 && (i.Unit == "w" || i.Unit == "M") }

// fixed returns the bucket length in milliseconds of a non-calendar
// interval.
func (i Interval) fixed() int64 { return int64(i.N) * unitLength[i.Unit].Milliseconds() }

// start returns the start of the bucket holding the instant ms (Unix
// milliseconds, UTC).
func (i Interval) start(ms int64) int64 {
	if i.calendar() {
		t := time.UnixMilli(ms).UTC()
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		if i.Unit == "M" {
			return day.AddDate(0, 0, 1-t.Day()).UnixMilli()
		}
		return day.AddDate(0, 0, -int((t.Weekday()+6)%7)).UnixMilli()
	}
	d := i.fixed()
	q := ms / d
	if ms%d < 0 {
		q--
	}
	return q * d
}

// next returns the start of the bucket after the one starting at ms.
func (i Interval) next(ms int64) int64 {
	if !i.calendar() {
		return ms + i.fixed()
	}
	t := time.UnixMilli(ms).UTC()
	if i.Unit == "M" {
		return t.AddDate(0, 1, 0).UnixMilli()
	}
	return t.AddDate(0, 0, 7).UnixMilli()
}

// autoIntervals is Graylog's AutoInterval table: the longest range (upper
// bound, inclusive) each interval is chosen for; longer ranges get a month.
var autoIntervals = []struct {
	upTo     time.Duration
	interval Interval
}{
	{20 * time.Millisecond, Interval{1, "ms"}},
	{200 * time.Millisecond, Interval{5, "ms"}},
	{500 * time.Millisecond, Interval{10, "ms"}},
	{time.Second, Interval{20, "ms"}},
	{2 * time.Second, Interval{40, "ms"}},
	{10 * time.Second, Interval{200, "ms"}},
	{30 * time.Second, Interval{500, "ms"}},
	{time.Minute, Interval{1, "s"}},
	{2 * time.Minute, Interval{2, "s"}},
	{4 * time.Minute, Interval{5, "s"}},
	{7 * time.Minute, Interval{10, "s"}},
	{10 * time.Minute, Interval{20, "s"}},
	{30 * time.Minute, Interval{30, "s"}},
	{time.Hour, Interval{1, "m"}},
	{2 * time.Hour, Interval{2, "m"}},
	{4 * time.Hour, Interval{5, "m"}},
	{12 * time.Hour, Interval{10, "m"}},
	{16 * time.Hour, Interval{15, "m"}},
	{24 * time.Hour, Interval{30, "m"}},
	{2 * 24 * time.Hour, Interval{1, "h"}},
	{4 * 24 * time.Hour, Interval{2, "h"}},
	{10 * 24 * time.Hour, Interval{4, "h"}},
	{12 * 24 * time.Hour, Interval{6, "h"}},
	{28 * 24 * time.Hour, Interval{12, "h"}},
	{60 * 24 * time.Hour, Interval{1, "d"}},
	{120 * 24 * time.Hour, Interval{2, "d"}},
	{180 * 24 * time.Hour, Interval{3, "d"}},
	{365 * 24 * time.Hour, Interval{1, "w"}},
	// Graylog's range here is open at both ends: exactly two years gets a
	// month.
	{730*24*time.Hour - time.Millisecond, Interval{14, "d"}},
}

// AutoInterval chooses the interval Graylog's auto interval does for a
// range: by its length times scaling (1 by default; smaller gives finer
// buckets). An all-time range counts from the epoch.
func AutoInterval(r TimeRange, scaling float64) Interval {
	from := r.From
	if from.IsZero() {
		from = time.Unix(0, 0)
	}
	ms := math.Round(float64(r.To.Sub(from).Milliseconds()) * scaling)
	for _, b := range autoIntervals {
		if ms <= float64(b.upTo.Milliseconds()) {
			return b.interval
		}
	}
	return Interval{1, "M"}
}
