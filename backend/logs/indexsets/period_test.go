package indexsets_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
)

func TestParsePeriod(t *testing.T) {
	tests := []struct {
		in, canonical string
		want          indexsets.Period
		positive      bool
	}{
		{"P1D", "P1D", indexsets.Period{Days: 1}, true},
		{"PT1H", "PT1H", indexsets.Period{Hours: 1}, true},
		{"P1M", "P1M", indexsets.Period{Months: 1}, true},
		{"PT1M", "PT1M", indexsets.Period{Minutes: 1}, true},
		{"P1Y2M3W4DT5H6M7S", "P1Y2M3W4DT5H6M7S", indexsets.Period{Years: 1, Months: 2, Weeks: 3, Days: 4, Hours: 5, Minutes: 6, Seconds: 7}, true},
		{"p1dt12h", "P1DT12H", indexsets.Period{Days: 1, Hours: 12}, true},
		{"PT90M", "PT90M", indexsets.Period{Minutes: 90}, true},
		{"P7D", "P7D", indexsets.Period{Days: 7}, true},
		{"PT1.5S", "PT1.500S", indexsets.Period{Seconds: 1, Millis: 500}, true},
		{"PT0,25S", "PT0.250S", indexsets.Period{Millis: 250}, true},
		{"PT1.000S", "PT1S", indexsets.Period{Seconds: 1}, true},
		{"PT0.0001S", "PT0S", indexsets.Period{}, false},
		{"P1DT0H", "P1D", indexsets.Period{Days: 1}, true},
		{"P0D", "PT0S", indexsets.Period{}, false},
		{"P+2D", "P2D", indexsets.Period{Days: 2}, true},
		{"P-1D", "P-1D", indexsets.Period{Days: -1}, false},
		{"P1DT-1H", "P1DT-1H", indexsets.Period{Days: 1, Hours: -1}, false},
		{"PT-0.5S", "PT-0.500S", indexsets.Period{Millis: -500}, false},
		{"PT-1.5S", "PT-1.500S", indexsets.Period{Seconds: -1, Millis: -500}, false},
		{"P2147483647Y", "P2147483647Y", indexsets.Period{Years: 2147483647}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := indexsets.ParsePeriod(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("ParsePeriod = %+v, %v; want %+v", got, err, tt.want)
			}
			if got.String() != tt.canonical || got.Positive() != tt.positive {
				t.Errorf("String = %q, Positive = %v; want %q, %v", got.String(), got.Positive(), tt.canonical, tt.positive)
			}
		})
	}
}

func TestParsePeriodInvalid(t *testing.T) {
	for _, in := range []string{
		"", "P", "PT", "P1DT", "1D", "D", "P1", "PD", "P1X", "P1D1Y", "P1M1M", "PT1D", "P1H", "P1S",
		"P1.5D", "PT1.5M", "PT.5S", "PT1.S", "PT1.1234567890S", "P 1D", "P1D ", "P--1D", "P2147483648Y",
		"PT1HT1M", "P1DTT1H", "P1Dx", "P١D",
	} {
		t.Run(in, func(t *testing.T) {
			p, err := indexsets.ParsePeriod(in)
			if err == nil {
				t.Fatalf("ParsePeriod(%q) = %+v, want an error", in, p)
			}
			if !strings.Contains(err.Error(), "not an ISO-8601 period") {
				t.Errorf("error %q does not say what is expected", err)
			}
		})
	}
}

func TestPeriodText(t *testing.T) {
	var p indexsets.Period
	if err := p.UnmarshalText([]byte("P1W")); err != nil || p != (indexsets.Period{Weeks: 1}) {
		t.Errorf("UnmarshalText = %+v, %v", p, err)
	}
	if b, _ := p.MarshalText(); string(b) != "P1W" {
		t.Errorf("MarshalText = %s", b)
	}
	if err := p.UnmarshalText([]byte("week")); err == nil || p != (indexsets.Period{Weeks: 1}) {
		t.Errorf("UnmarshalText of garbage = %v and changed p to %+v", err, p)
	}
	if err := p.UnmarshalText([]byte("week")); errors.Unwrap(err) == nil {
		t.Errorf("error %v wraps nothing", err)
	}
}

func TestPeriodAddTo(t *testing.T) {
	day := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	tests := []struct {
		p        string
		from, to time.Time
	}{
		{"P1D", day(2021, 3, 1, 10), day(2021, 3, 2, 10)},
		{"P1M", day(2021, 1, 31, 10), day(2021, 2, 28, 10)},
		{"P1M", day(2024, 1, 31, 10), day(2024, 2, 29, 10)},
		{"P1Y", day(2024, 2, 29, 0), day(2025, 2, 28, 0)},
		{"P13M", day(2020, 12, 15, 0), day(2022, 1, 15, 0)},
		{"P1W2D", day(2021, 3, 1, 0), day(2021, 3, 10, 0)},
		{"PT36H", day(2021, 3, 1, 0), day(2021, 3, 2, 12)},
		{"PT1.500S", day(2021, 3, 1, 0), day(2021, 3, 1, 0).Add(1500 * time.Millisecond)},
	}
	for _, tt := range tests {
		p, err := indexsets.ParsePeriod(tt.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.AddTo(tt.from); !got.Equal(tt.to) {
			t.Errorf("%s after %v = %v, want %v", tt.p, tt.from, got, tt.to)
		}
	}
}
