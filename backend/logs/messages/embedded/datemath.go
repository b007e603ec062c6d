package embedded

import (
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// timeLayouts are the date formats read, with the milliseconds a date of
// each spans past its start (-1: by the fraction it has).
var timeLayouts = []struct {
	layout string
	span   int64
}{
	{messages.TimeLayout, 0}, {time.RFC3339Nano, -1}, {"2006-01-02 15:04:05.000", 0}, {"2006-01-02 15:04:05", 999},
	{"2006-01-02T15:04:05", 999}, {"2006-01-02", 24*60*60*1000 - 1},
}

// maxYear keeps date math inside the milliseconds an int64 holds
// (±292 million years), so that no bound wraps around.
const maxYear = 200_000_000

// parseTime reads a date as Elasticsearch reads one in a query on a date
// field: ISO 8601 (UTC unless a zone is given), epoch milliseconds, or date
// math: an anchor, "now" or a date followed by "||", then any number of
// +N<unit>, -N<unit> (N defaults to 1) and /<unit> (rounding), with the
// units y M w d h H m s. Users write now-1h, now/d or
// 2024-01-31||+1M/d.
//
// ms is the date read rounded down, span how many milliseconds past ms the
// date reaches rounded up, as Elasticsearch's range and term queries round
// their bounds: 999 for a date without milliseconds, a day less one for a
// day, and for now/d the rest of today.
func parseTime(s string, now time.Time) (ms, span int64, ok bool) {
	var down, up time.Time
	expr := ""
	switch {
	case strings.HasPrefix(s, "now"):
		down, up, expr = now.UTC(), now.UTC(), s[len("now"):]
	default:
		anchor := s
		if i := strings.Index(s, "||"); i >= 0 {
			anchor, expr = s[:i], s[i+2:]
		}
		ms, span, ok := parseDate(anchor)
		if !ok || expr == "" {
			return ms, span, ok
		}
		down, up = time.UnixMilli(ms).UTC(), time.UnixMilli(ms).UTC().Add(time.Duration(span)*time.Millisecond)
		if !inYears(down) || !inYears(up) {
			return 0, 0, false
		}
	}
	if down, up, ok = dateMath(expr, down, up); !ok {
		return 0, 0, false
	}
	return down.UnixMilli(), up.UnixMilli() - down.UnixMilli(), true
}

// parseDate reads a date without math.
func parseDate(s string) (ms, span int64, ok bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			span = l.span
			if span < 0 {
				span = 0
				if !strings.Contains(s, ".") {
					span = 999
				}
			}
			return t.UnixMilli(), span, true
		}
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, 0, true
	}
	return 0, 0, false
}

// dateMath applies Elasticsearch's date math (JavaDateMathParser) to the
// date rounded down and to the date rounded up; ok is false for bad math.
func dateMath(expr string, down, up time.Time) (_, _ time.Time, ok bool) {
	for i := 0; i < len(expr); {
		op := expr[i]
		if op != '+' && op != '-' && op != '/' {
			return down, up, false
		}
		i++
		num := 1
		if j := i; i < len(expr) && isDigit(expr[i]) {
			for i < len(expr) && isDigit(expr[i]) {
				i++
			}
			n, err := strconv.ParseInt(expr[j:i], 10, 32) // Java's Integer.parseInt
			if err != nil || (op == '/' && n != 1) {
				return down, up, false
			}
			num = int(n)
		}
		if i >= len(expr) {
			return down, up, false // a number without its unit
		}
		unit := expr[i]
		i++
		if !strings.ContainsRune("yMwdhHms", rune(unit)) {
			return down, up, false
		}
		if op == '/' {
			down = truncate(down, unit)
			// The end of the unit up's date falls in: its start, one unit
			// on, a millisecond back.
			up = add(truncate(up, unit), unit, 1).Add(-time.Millisecond)
		} else {
			if op == '-' {
				num = -num
			}
			down, up = add(down, unit, num), add(up, unit, num)
		}
		if !inYears(down) || !inYears(up) {
			return down, up, false
		}
	}
	return down, up, true
}

func inYears(t time.Time) bool { return -maxYear <= t.Year() && t.Year() <= maxYear }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// add adds n units to t as java.time does: a month or a year on from the
// 31st (or from 29 February) is the last day of the month it reaches, not
// a day of the month after.
func add(t time.Time, unit byte, n int) time.Time {
	switch unit {
	case 'y':
		return addMonths(t, 12*n)
	case 'M':
		return addMonths(t, n)
	case 'w':
		return t.AddDate(0, 0, 7*n)
	case 'd':
		return t.AddDate(0, 0, n)
	case 'h', 'H':
		return addSeconds(t, n, 3600)
	case 'm':
		return addSeconds(t, n, 60)
	}
	return addSeconds(t, n, 1)
}

// addSeconds adds n times unit seconds in seconds, where a time.Duration
// of 2³¹ hours would overflow.
func addSeconds(t time.Time, n int, unit int64) time.Time {
	return time.Unix(t.Unix()+int64(n)*unit, int64(t.Nanosecond())).UTC()
}

func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	months := int(m) - 1 + n
	y += months / 12
	if months %= 12; months < 0 {
		months += 12
		y--
	}
	// Day 0 of the next month is the last day of this one.
	last := time.Date(y, time.Month(months+2), 0, 0, 0, 0, 0, time.UTC).Day()
	return time.Date(y, time.Month(months+1), min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// truncate rounds t down to its unit; weeks start on Monday.
func truncate(t time.Time, unit byte) time.Time {
	y, m, d := t.Date()
	switch unit {
	case 'y':
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case 'M':
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case 'w':
		back := (int(t.Weekday()) + 6) % 7 // days since Monday
		return time.Date(y, m, d-back, 0, 0, 0, 0, time.UTC)
	case 'd':
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case 'h', 'H':
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, time.UTC)
	case 'm':
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	}
	return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}
