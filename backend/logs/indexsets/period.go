package indexsets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period is an ISO-8601 period as Joda-Time's standard period type holds it:
// years, months, weeks, days, hours, minutes, seconds and milliseconds, each
// kept as written ("PT90M" stays ninety minutes, it is not normalized), which
// is how Graylog stores a time-based rotation_period.
type Period struct {
	Years, Months, Weeks, Days      int
	Hours, Minutes, Seconds, Millis int
}

// errPeriodSyntax is wrapped by every syntax error of ParsePeriod.
var errPeriodSyntax = errors.New("not an ISO-8601 period such as P1D, PT6H or P1M")

// ParsePeriod reads an ISO-8601 period in Joda-Time's standard format,
// PnYnMnWnDTnHnMn.nS: designators in that order, each at most once, a "T"
// before the time part, a fraction only on seconds (its first three digits
// are the milliseconds). Like Joda it ignores letter case and takes a sign on
// each number; whether a negative or zero period is acceptable is for the
// caller to decide (Positive).
func ParsePeriod(s string) (Period, error) {
	var p Period
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'p') {
		return Period{}, fmt.Errorf("%q: %w", s, errPeriodSyntax)
	}
	date := []struct {
		designator byte
		field      *int
	}{{'Y', &p.Years}, {'M', &p.Months}, {'W', &p.Weeks}, {'D', &p.Days}}
	clock := []struct {
		designator byte
		field      *int
	}{{'H', &p.Hours}, {'M', &p.Minutes}, {'S', &p.Seconds}}

	rest := s[1:]
	inTime := false
	next := 0 // index of the next designator allowed in the current part
	for rest != "" {
		if c := upper(rest[0]); c == 'T' {
			if inTime || len(rest) == 1 {
				return Period{}, fmt.Errorf("%q: %w", s, errPeriodSyntax)
			}
			inTime, next, rest = true, 0, rest[1:]
			continue
		}
		n, frac, designator, tail, err := component(rest)
		if err != nil {
			return Period{}, fmt.Errorf("%q: %w", s, err)
		}
		part := date
		if inTime {
			part = clock
		}
		i := next
		for i < len(part) && part[i].designator != designator {
			i++
		}
		if i == len(part) || (frac >= 0 && designator != 'S') {
			return Period{}, fmt.Errorf("%q: %w", s, errPeriodSyntax)
		}
		*part[i].field = n
		if frac >= 0 {
			p.Millis = frac
			if n < 0 || strings.HasPrefix(rest, "-") {
				p.Millis = -frac
			}
		}
		next, rest = i+1, tail
	}
	return p, nil
}

// component reads one signed number, an optional fraction (seconds only) and
// its designator from the start of s. frac is -1 when there is no fraction,
// else the milliseconds it stands for.
func component(s string) (n, frac int, designator byte, rest string, err error) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start {
		return 0, 0, 0, "", errPeriodSyntax
	}
	v, perr := strconv.ParseInt(s[:i], 10, 32)
	if perr != nil {
		return 0, 0, 0, "", fmt.Errorf("%s is out of range: %w", s[:i], errPeriodSyntax)
	}
	frac = -1
	if i < len(s) && (s[i] == '.' || s[i] == ',') {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		digits := s[fs:i]
		if digits == "" || len(digits) > 9 {
			return 0, 0, 0, "", errPeriodSyntax
		}
		digits = (digits + "00")[:3]
		frac, _ = strconv.Atoi(digits) // three ASCII digits always parse
	}
	if i == len(s) {
		return 0, 0, 0, "", errPeriodSyntax
	}
	return int(v), frac, upper(s[i]), s[i+1:], nil
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// Positive reports whether p is longer than nothing: no field is negative
// and at least one is above zero. Time-based rotation needs such a period.
func (p Period) Positive() bool {
	some := false
	for _, v := range [...]int{p.Years, p.Months, p.Weeks, p.Days, p.Hours, p.Minutes, p.Seconds, p.Millis} {
		if v < 0 {
			return false
		}
		some = some || v > 0
	}
	return some
}

// String writes p as Joda-Time prints a period: the non-zero fields with
// their designators, milliseconds as a three-digit fraction of the seconds,
// and PT0S for the empty period.
func (p Period) String() string {
	var b strings.Builder
	b.WriteByte('P')
	for _, f := range []struct {
		v int
		d byte
	}{{p.Years, 'Y'}, {p.Months, 'M'}, {p.Weeks, 'W'}, {p.Days, 'D'}} {
		if f.v != 0 {
			b.WriteString(strconv.Itoa(f.v))
			b.WriteByte(f.d)
		}
	}
	if p.Hours != 0 || p.Minutes != 0 || p.Seconds != 0 || p.Millis != 0 {
		b.WriteByte('T')
		if p.Hours != 0 {
			b.WriteString(strconv.Itoa(p.Hours) + "H")
		}
		if p.Minutes != 0 {
			b.WriteString(strconv.Itoa(p.Minutes) + "M")
		}
		if p.Seconds != 0 || p.Millis != 0 {
			b.WriteString(seconds(p.Seconds, p.Millis))
			b.WriteByte('S')
		}
	}
	if b.Len() == 1 {
		return "PT0S"
	}
	return b.String()
}

// seconds writes seconds and milliseconds as one decimal, "-0.500" included.
func seconds(s, ms int) string {
	if ms == 0 {
		return strconv.Itoa(s)
	}
	total := int64(s)*1000 + int64(ms)
	sign, mag := "", uint64(total)
	if total < 0 {
		// -(total+1)+1 negates math.MinInt64 too.
		sign, mag = "-", uint64(-(total+1))+1
	}
	return fmt.Sprintf("%s%d.%03d", sign, mag/1000, mag%1000)
}

// MarshalText writes p as String does, so that p is a JSON string.
func (p Period) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads p with ParsePeriod.
func (p *Period) UnmarshalText(b []byte) error {
	v, err := ParsePeriod(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// AddTo returns t plus p as Joda-Time adds a period to a date-time: years
// and months first, keeping the day of the month where the target month has
// it and else taking its last day (January 31st plus P1M is February 28th or
// 29th, where time.AddDate would roll over into March), then weeks and days
// on the calendar, then the time fields as elapsed time. Time-based rotation
// uses it to find when the current index is due.
func (p Period) AddTo(t time.Time) time.Time {
	if months := p.Years*12 + p.Months; months != 0 {
		y, m, d := t.Date()
		first := time.Date(y, m+time.Month(months), 1, 0, 0, 0, 0, t.Location())
		last := first.AddDate(0, 1, -1).Day()
		hh, mm, ss := t.Clock()
		t = time.Date(first.Year(), first.Month(), min(d, last), hh, mm, ss, t.Nanosecond(), t.Location())
	}
	t = t.AddDate(0, 0, p.Weeks*7+p.Days)
	// In seconds, not as a time.Duration: PT3000000H is more than a
	// Duration's 292 years, and its overflow would make the sum earlier
	// than t. Each field is an int32, so the seconds fit an int64.
	secs := int64(p.Hours)*3600 + int64(p.Minutes)*60 + int64(p.Seconds)
	nanos := int64(t.Nanosecond()) + int64(p.Millis)*int64(time.Millisecond)
	return time.Unix(t.Unix()+secs, nanos).In(t.Location())
}
