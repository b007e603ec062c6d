// Package joda translates Joda-Time date patterns, which Graylog's date
// converter and pipeline date functions take, into Go time layouts. Go's
// layouts cannot say everything Joda's can: a letter without a Go form
// (week years, era, day of week numbers, zone ids) is an error, which the
// callers turn into Graylog's answer for a bad pattern.
package joda

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Layout is a translated pattern.
type Layout struct {
	// Go is the layout for time.Parse and Time.Format.
	Go string
	// HasYear and HasZone say whether the pattern names a year and a
	// zone, so that a parser can supply the current year or the
	// configured zone when it does not.
	HasYear, HasZone bool
}

// Options tune the translation.
type Options struct {
	// ZuluOffsets makes Z read "Z" as well as "+0100" (Go's Z0700), as a
	// parser of many senders' dates wants; without it Z is "+0100" only,
	// as Joda prints it.
	ZuluOffsets bool
	// AnyFraction makes S read a fraction of any length, as Joda's
	// parser reads up to nine digits whatever the number of S letters
	// ("ss.SSS" reads "05.5" and "05.123456"); without it S is exactly
	// as many digits, as Joda prints it.
	AnyFraction bool
	// Lenient reads numbers of one or two digits where the pattern has
	// two letters (MM, dd, hh, mm, ss), as Joda's parser does: "yyyy-MM-dd"
	// reads "2020-1-5". Without it they are exactly two digits, as Joda
	// prints them.
	Lenient bool
}

// Translate translates a Joda-Time DateTimeFormat pattern. Quoted text is
// literal (” is a quote); other non-letters are kept, except digits,
// which Go would read as layout elements.
func Translate(p string, o Options) (Layout, error) {
	var (
		b   strings.Builder
		out Layout
	)
	for i := 0; i < len(p); {
		c := p[i]
		if c == '\'' {
			j, lit, err := quoted(p, i)
			if err != nil {
				return Layout{}, err
			}
			b.WriteString(lit)
			i = j
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			if c >= '0' && c <= '9' {
				return Layout{}, fmt.Errorf("digits in date pattern %q cannot be expressed", p)
			}
			b.WriteByte(c)
			i++
			continue
		}
		n := 1
		for i+n < len(p) && p[i+n] == c {
			n++
		}
		i += n
		s, err := element(p, c, n, b.String(), o)
		if err != nil {
			return Layout{}, err
		}
		switch c {
		case 'y', 'Y', 'x':
			out.HasYear = true
		case 'Z', 'z':
			out.HasZone = true
		}
		b.WriteString(s)
	}
	out.Go = b.String()
	return out, nil
}

// quoted reads the quoted literal at p[i] and returns the index after it.
func quoted(p string, i int) (int, string, error) {
	if i+1 < len(p) && p[i+1] == '\'' {
		return i + 2, "'", nil
	}
	var lit strings.Builder
	for j := i + 1; j < len(p); j++ {
		if p[j] != '\'' {
			lit.WriteByte(p[j])
			continue
		}
		if j+1 < len(p) && p[j+1] == '\'' {
			lit.WriteByte('\'')
			j++
			continue
		}
		return j + 1, lit.String(), nil
	}
	return 0, "", errors.New("unterminated quote in date pattern " + strconv.Quote(p))
}

// element is the Go form of n repeats of the pattern letter c of p; before
// is the layout so far.
func element(p string, c byte, n int, before string, o Options) (string, error) {
	pick := func(one, more string) string {
		if n >= 2 && !o.Lenient {
			return more
		}
		return one
	}
	switch c {
	case 'y', 'Y', 'x':
		if n == 2 {
			return "06", nil
		}
		return "2006", nil
	case 'M':
		if n == 2 && o.Lenient {
			return "1", nil
		}
		return [...]string{"1", "01", "Jan", "January"}[min(n, 4)-1], nil
	case 'd':
		return pick("2", "02"), nil
	case 'D':
		return "002", nil
	case 'H':
		return "15", nil
	case 'h':
		return pick("3", "03"), nil
	case 'm':
		return pick("4", "04"), nil
	case 's':
		return pick("5", "05"), nil
	case 'S':
		// Go reads a fraction only after a '.' or ','.
		if before == "" || (before[len(before)-1] != '.' && before[len(before)-1] != ',') {
			return "", fmt.Errorf("fraction of second in date pattern %q must follow '.' or ','", p)
		}
		if o.AnyFraction {
			return strings.Repeat("9", n), nil
		}
		return strings.Repeat("0", n), nil
	case 'a':
		return "PM", nil
	case 'E':
		if n >= 4 {
			return "Monday", nil
		}
		return "Mon", nil
	case 'Z':
		if n >= 3 {
			return "", fmt.Errorf("zone ids (ZZZ) in date pattern %q are not supported", p)
		}
		if o.ZuluOffsets {
			return pick("Z0700", "Z07:00"), nil
		}
		return pick("-0700", "-07:00"), nil
	case 'z':
		return "MST", nil
	}
	return "", fmt.Errorf("illegal pattern component: %s", strings.Repeat(string(c), n))
}
