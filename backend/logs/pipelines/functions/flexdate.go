package functions

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/AlekSi/pointer"
	"github.com/olebedev/when"
	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/en"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// flexParseDate is flex_parse_date: Graylog parses with Natty, which finds
// the first date in English text, absolute ("2020-01-02 10:00",
// "Jan 5 2020", "1/2/2020") or relative to now ("yesterday", "next tuesday
// 3pm", "3 days ago", "tomorrow at noon"); a date without a time takes the
// time of now, as in Natty. Here formal dates are read with a table of
// layouts, the rest with olebedev/when's English rules and a few of Natty's
// forms it lacks. now is the time of processing in the function's zone.
func flexParseDate(s string, now time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range formalCandidates(s) {
		t, err := time.ParseInLocation(l.layout, s, now.Location())
		if err != nil {
			continue
		}
		if !l.timed {
			t = time.Date(t.Year(), t.Month(), t.Day(), now.Hour(), now.Minute(), now.Second(), now.Nanosecond(), now.Location())
		}
		return t, true
	}
	r, err := naturalDates.Parse(s, now)
	if err != nil || r == nil {
		return time.Time{}, false
	}
	return r.Time, true
}

// formalLayouts are Natty's formal dates, month before day as in Natty
// (en_US), alone or with a time, and the common machine formats; a layout
// with a zone keeps it. They are grouped by how they start, so that text
// is tried only with the layouts it can match: a few hundred failed
// attempts would cost far more than the rules.
var formalLayouts = func() (byStart [2][]formalLayout) {
	numeric := []string{"2006-01-02", "2006/01/02", "2006.01.02", "1/2/2006", "1/2/06", "1-2-2006", "2 Jan 2006", "2 January 2006"}
	named := []string{"Jan 2 2006", "Jan 2, 2006", "January 2 2006", "January 2, 2006", "Mon, 2 Jan 2006", "Mon Jan 2 2006", "Monday, January 2, 2006"}
	times := []string{" 15:04", " 15:04:05", " 15:04:05.999999999", " 3pm", " 3:04pm", " 3:04 pm", " 3 pm", "T15:04", "T15:04:05",
		"T15:04:05Z07:00", "T15:04:05.999999999Z07:00", " 15:04:05 -0700", " 15:04:05 MST", " 15:04:05 Z07:00", "T15:04:05.999999999"}
	for i, dates := range [][]string{numeric, named} {
		for _, d := range dates {
			byStart[i] = append(byStart[i], formalLayout{d, false})
			for _, t := range times {
				byStart[i] = append(byStart[i], formalLayout{d + t, true})
			}
		}
	}
	byStart[0] = append(byStart[0], formalLayout{"02/Jan/2006:15:04:05 -0700", true})
	for _, l := range []string{time.RFC1123, time.RFC1123Z, time.RFC822, time.RFC822Z, time.RFC850, time.ANSIC, time.UnixDate, time.RubyDate} {
		byStart[1] = append(byStart[1], formalLayout{l, true})
	}
	return byStart
}()

// formalCandidates returns the layouts s may be in: none without a digit
// (every formal date has a year), the numeric ones for text that starts
// with a digit, the named ones for text that starts with a month or a
// day of the week.
func formalCandidates(s string) []formalLayout {
	if !strings.ContainsAny(s, "0123456789") {
		return nil
	}
	word, rest, _ := strings.Cut(s, " ")
	if s[0] >= '0' && s[0] <= '9' {
		// 2020-01-02…, 1/2/2020…, 2 Jan 2020…, not "3 days ago".
		next, _, _ := strings.Cut(rest, " ")
		if strings.ContainsAny(word, "-/.") || isName(en.MONTH_OFFSET, next) {
			return formalLayouts[0]
		}
		return nil
	}
	if isName(en.MONTH_OFFSET, word) || isName(en.WEEKDAY_OFFSET, word) {
		return formalLayouts[1]
	}
	return nil
}

// isName reports whether word, without a trailing comma or dot, is one of
// names.
func isName(names map[string]int, word string) bool {
	_, ok := names[strings.ToLower(strings.TrimRight(word, ",."))]
	return ok
}

type formalLayout struct {
	layout string
	timed  bool // the layout has a time of day
}

// naturalDates are when's English rules with Natty's forms when lacks.
// The parser is safe for concurrent use: its options are set here, and
// its rules only read.
var naturalDates = func() *when.Parser {
	p := when.New(&rules.Options{Distance: 5, MatchByOrder: true, Morning: 8, Noon: 12, Afternoon: 15, Evening: 18})
	p.Add(en.All...)
	p.Add(relativePeriod(), fromNow(), midnight())
	return p
}()

// relativePeriod is "next month", "last year", "this week": Natty moves
// by the calendar unit and keeps the rest of now.
func relativePeriod() rules.Rule {
	return &rules.F{
		RegExp: regexp.MustCompile(`(?i)(?:\W|^)((next|last|previous|this)\s+(week|month|year))\b`),
		Applier: func(m *rules.Match, c *rules.Context, _ *rules.Options, ref time.Time) (bool, error) {
			n := 0
			switch strings.ToLower(m.Captures[1]) {
			case "next":
				n = 1
			case "last", "previous":
				n = -1
			}
			switch strings.ToLower(m.Captures[2]) {
			case "week":
				c.Duration += time.Duration(n) * 7 * 24 * time.Hour
			case "month":
				t := ref.AddDate(0, n, 0)
				c.Year, c.Month, c.Day = pointer.ToInt(t.Year()), pointer.ToInt(int(t.Month())), pointer.ToInt(t.Day())
			case "year":
				t := ref.AddDate(n, 0, 0)
				c.Year, c.Month, c.Day = pointer.ToInt(t.Year()), pointer.ToInt(int(t.Month())), pointer.ToInt(t.Day())
			}
			return true, nil
		},
	}
}

// fromNow is "3 days from now", "2 hours later", "a week hence".
func fromNow() rules.Rule {
	return &rules.F{
		RegExp: regexp.MustCompile(`(?i)(?:\W|^)((\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(second|minute|hour|day|week|month|year)s?\s+(?:from\s+now|later|hence))\b`),
		Applier: func(m *rules.Match, c *rules.Context, _ *rules.Options, ref time.Time) (bool, error) {
			n, ok := countWord(m.Captures[1])
			if !ok {
				return false, nil
			}
			switch unit := strings.ToLower(m.Captures[2]); unit {
			case "month", "year":
				months := n
				if unit == "year" {
					months = 12 * n
				}
				t := ref.AddDate(0, months, 0)
				c.Year, c.Month, c.Day = pointer.ToInt(t.Year()), pointer.ToInt(int(t.Month())), pointer.ToInt(t.Day())
			default:
				c.Duration += time.Duration(n) * map[string]time.Duration{"second": time.Second, "minute": time.Minute,
					"hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour}[unit]
			}
			return true, nil
		},
	}
}

// midnight is 00:00 of the day.
func midnight() rules.Rule {
	return &rules.F{
		RegExp: regexp.MustCompile(`(?i)(?:\W|^)(midnight)\b`),
		Applier: func(_ *rules.Match, c *rules.Context, _ *rules.Options, _ time.Time) (bool, error) {
			c.Hour, c.Minute, c.Second = pointer.ToInt(0), pointer.ToInt(0), pointer.ToInt(0)
			return true, nil
		},
	}
}

// countWord reads a count written as digits or as an English word.
func countWord(s string) (int, bool) {
	s = strings.ToLower(s)
	for i, w := range []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"} {
		if s == w {
			return i, true
		}
	}
	if s == "a" || s == "an" {
		return 1, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n < 1e6
}

func flexDateFunction(d Deps, tz lang.Param) *lang.Function {
	return fn("flex_parse_date", lang.TDateTime, "Parses a date string using natural language (see http://natty.joestelmach.com/)", func(_ *lang.Context, a lang.Args) (any, error) {
		loc := zone(a.String(2, "UTC"))
		if t, ok := flexParseDate(a.String(0, ""), d.Now().In(loc)); ok {
			return t.In(loc), nil
		}
		if t, ok := a.Get(1).(time.Time); ok && a.Has(1) {
			return t, nil
		}
		return nil, nil
	}, req("value", lang.TString, "Date string to parse"),
		opt("default", lang.TDateTime, "Used when 'value' could not be parsed, 'null' otherwise"), tz)
}
