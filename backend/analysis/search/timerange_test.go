package search

import (
	"testing"
	"time"
)

var now = time.Date(2026, 11, 22, 15, 30, 0, 0, time.UTC) // a Sunday

func TestKeyword(t *testing.T) {
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in       string
		from, to time.Time
	}{
		{"last 30 minutes", now.Add(-30 * time.Minute), now},
		{"Last  5 Hours", now.Add(-5 * time.Hour), now},
		{"last hour", now.Add(-time.Hour), now},
		{"past 2 days", now.AddDate(0, 0, -2), now},
		{"last week", now.AddDate(0, 0, -7), now},
		{"last 1 month", now.AddDate(0, -1, 0), now},
		{"last year", now.AddDate(-1, 0, 0), now},
		{"10 seconds ago", now.Add(-10 * time.Second), now},
		{"today", day, now},
		{"yesterday", day.AddDate(0, 0, -1), day.Add(-time.Millisecond)},
		{"this week", day.AddDate(0, 0, -6), now},
		{"this month", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), now},
		{"from 2026-11-01 to 2026-11-02 12:00:00", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)},
		{"2026-11-01T10:00:00.000Z to 2026-11-01T11:00:00.000Z", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 11, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := keyword(now, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !got.From.Equal(tt.from) || !got.To.Equal(tt.to) {
				t.Fatalf("keyword(%q) = %v..%v, want %v..%v", tt.in, got.From, got.To, tt.from, tt.to)
			}
		})
	}
	for _, bad := range []string{"", "whenever", "last 5 fortnights", "from x to y", "last 99999999999 years", "2026-11-02 to 2026-11-01"} {
		if _, err := keyword(now, bad); err == nil {
			t.Errorf("keyword(%q) accepted", bad)
		}
	}
}

func TestRelativeAndAbsolute(t *testing.T) {
	r, err := relative(now, "300")
	if err != nil || !r.From.Equal(now.Add(-5*time.Minute)) || !r.To.Equal(now) {
		t.Fatalf("relative 300 = %v, %v", r, err)
	}
	if r, err := relative(now, "0"); err != nil || !r.From.IsZero() {
		t.Fatalf("relative 0 = %v, %v; want all time", r, err)
	}
	for _, bad := range []string{"", "-1", "5m", "1e3"} {
		if _, err := relative(now, bad); err == nil {
			t.Errorf("relative(%q) accepted", bad)
		}
	}
	a, err := absolute("2020-12-01T10:00:00.000Z", "2020-12-01 11:00:00.000")
	if err != nil || a.To.Sub(a.From) != time.Hour {
		t.Fatalf("absolute = %v, %v", a, err)
	}
	if a, err := absolute("2020-12-01T10:00:00+01:00", "2020-12-01T10:00:00Z"); err != nil || a.From.Hour() != 9 {
		t.Fatalf("zone not honoured: %v, %v", a, err)
	}
	for _, bad := range [][2]string{{"", "2020-12-01"}, {"yesterday", "2020-12-01"}, {"2020-12-02", "2020-12-01"}} {
		if _, err := absolute(bad[0], bad[1]); err == nil {
			t.Errorf("absolute(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestParseSort(t *testing.T) {
	tests := map[string]struct {
		field string
		asc   bool
	}{
		"":                {"", false},
		"timestamp:asc":   {"", true},
		"timestamp:desc":  {"", false},
		"source:ASC":      {"source", true},
		"took:desc":       {"took", false},
		"source":          {"", false},
		"source:sideways": {"", false},
	}
	for in, want := range tests {
		got := parseSort(in)
		if got.Field != want.field || got.Asc != want.asc {
			t.Errorf("parseSort(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// FuzzKeyword: natural-language ranges are outside input; none panics,
// and an accepted range never ends before it starts.
func FuzzKeyword(f *testing.F) {
	for _, s := range []string{"last 30 minutes", "yesterday", "from 2020-01-01 to 2020-01-02", "5 days ago", "this week"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := keyword(now, s)
		if err == nil && !r.From.IsZero() && r.To.Before(r.From) {
			t.Fatalf("keyword(%q) = %v..%v", s, r.From, r.To)
		}
	})
}
