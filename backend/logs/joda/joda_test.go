package joda

import (
	"strings"
	"testing"
	"time"
)

func TestTranslate(t *testing.T) {
	for _, c := range []struct {
		pattern string
		zulu    bool
		// fraction asks for AnyFraction, lenient for Lenient.
		fraction, lenient bool
		want              string
		year              bool
		zone              bool
		err               string
	}{
		{pattern: "yyyy-MM-dd HH:mm:ss.SSS", want: "2006-01-02 15:04:05.000", year: true},
		{pattern: "yyyy-MM-dd HH:mm:ss,SSS", fraction: true, want: "2006-01-02 15:04:05,999", year: true},
		{pattern: "dd/MMM/yyyy:HH:mm:ss Z", want: "02/Jan/2006:15:04:05 -0700", year: true, zone: true},
		{pattern: "dd/MMM/yyyy:HH:mm:ss Z", zulu: true, want: "02/Jan/2006:15:04:05 Z0700", year: true, zone: true},
		{pattern: "yyyy-MM-dd'T'HH:mm:ssZZ", want: "2006-01-02T15:04:05-07:00", year: true, zone: true},
		{pattern: "EEE MMM d h:mm a", want: "Mon Jan 2 3:04 PM"},
		{pattern: "EEEE, MMMM dd yy", want: "Monday, January 02 06", year: true},
		{pattern: "'o''clock' HH", want: "o'clock 15"},
		{pattern: "''HH", want: "'15"},
		{pattern: "yyyy.DDD", want: "2006.002", year: true},
		{pattern: "HH:mm z", want: "15:04 MST", zone: true},
		{pattern: "yyyy-MM-dd hh:mm:ss", lenient: true, want: "2006-1-2 3:4:5", year: true},
		{pattern: "yyyyMMddHHmmss", lenient: true, want: "2006121545", year: true},
		{pattern: "dd.MMM.yy", lenient: true, want: "2.Jan.06", year: true},
		{pattern: "HHmmssSSS", err: "must follow"},
		{pattern: "ZZZ", err: "zone ids"},
		{pattern: "G yyyy", err: "illegal pattern component: G"},
		{pattern: "'open", err: "unterminated quote"},
		{pattern: "yyyy 01", err: "digits"},
	} {
		got, err := Translate(c.pattern, Options{ZuluOffsets: c.zulu, AnyFraction: c.fraction, Lenient: c.lenient})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one saying %q", c.pattern, err, c.err)
			}
			continue
		}
		if err != nil || got.Go != c.want || got.HasYear != c.year || got.HasZone != c.zone {
			t.Errorf("%q: %+v, %v; want %q year=%v zone=%v", c.pattern, got, err, c.want, c.year, c.zone)
		}
	}
}

// Whatever the pattern, a translation is an error or a layout Go can
// format with and read back.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{"yyyy-MM-dd HH:mm:ss.SSS", "dd/MMM/yyyy:HH:mm:ss Z", "'x''y'", "EEEE", "S", "'"} {
		f.Add(s)
	}
	at := time.Date(2021, 3, 4, 5, 6, 7, 890_000_000, time.UTC)
	f.Fuzz(func(t *testing.T, pattern string) {
		for _, zulu := range []bool{false, true} {
			l, err := Translate(pattern, Options{ZuluOffsets: zulu})
			if err != nil {
				continue
			}
			_ = at.Format(l.Go)
		}
	})
}
