package functions

import (
	"testing"
	"time"
)

// FuzzFlexParseDate reads arbitrary text (flex_parse_date's value comes
// from messages): it must not panic, and what it finds depends on nothing
// but the text and now.
func FuzzFlexParseDate(f *testing.F) {
	for _, s := range []string{"yesterday", "next tuesday 3pm", "3 days ago", "2020-01-02 10:00", "Jan 5 2020", "tomorrow at noon",
		"1/02/1980", "in 99999999999 years", "999999 days from now", "12/31/9999 23:59:59", "the 31st of April", "  ", "\x00 noon \xff",
		"last month", "a week hence", "Fri, 21 Nov 1997", "at 25:61", "0600h"} {
		f.Add(s)
	}
	now := time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, loc := range []*time.Location{time.UTC, berlin} {
			t1, ok1 := flexParseDate(s, now.In(loc))
			t2, ok2 := flexParseDate(s, now.In(loc))
			if ok1 != ok2 || !t1.Equal(t2) {
				t.Fatalf("%q: %v %v, then %v %v", s, t1, ok1, t2, ok2)
			}
		}
	})
}

// BenchmarkFlexParseDate is the cost of a formal date, a relative one and
// text without a date.
func BenchmarkFlexParseDate(b *testing.B) {
	now := time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{"2020-01-02 10:00", "Fri, 21 Nov 1997", "next tuesday 3pm", "3 days ago", "no date in here"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				flexParseDate(s, now)
			}
		})
	}
}
