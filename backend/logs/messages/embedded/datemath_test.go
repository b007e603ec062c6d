package embedded

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	// A Thursday.
	now := time.Date(2026, 11, 26, 13, 45, 30, 123e6, time.UTC)
	at := func(s string) int64 {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UnixMilli()
	}
	tests := []struct {
		in       string
		from, to string // the span the date names, both ends included
	}{
		{"2024-01-02", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59.999Z"},
		{"2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.999Z"},
		{"2024-01-02T03:04:05.250Z", "2024-01-02T03:04:05.25Z", "2024-01-02T03:04:05.25Z"},
		{"1704164645250", "2024-01-02T03:04:05.25Z", "2024-01-02T03:04:05.25Z"},
		{"now", "2026-11-26T13:45:30.123Z", "2026-11-26T13:45:30.123Z"},
		{"now-1h", "2026-11-26T12:45:30.123Z", "2026-11-26T12:45:30.123Z"},
		{"now-1H", "2026-11-26T12:45:30.123Z", "2026-11-26T12:45:30.123Z"},
		{"now+2m-30s", "2026-11-26T13:47:00.123Z", "2026-11-26T13:47:00.123Z"},
		{"now-d", "2026-11-25T13:45:30.123Z", "2026-11-25T13:45:30.123Z"},
		{"now/d", "2026-11-26T00:00:00Z", "2026-11-26T23:59:59.999Z"},
		{"now-1d/d", "2026-11-25T00:00:00Z", "2026-11-25T23:59:59.999Z"},
		{"now/w", "2026-11-23T00:00:00Z", "2026-11-29T23:59:59.999Z"},
		{"now/M", "2026-11-01T00:00:00Z", "2026-11-30T23:59:59.999Z"},
		{"now/y", "2026-01-01T00:00:00Z", "2026-12-31T23:59:59.999Z"},
		{"now/h", "2026-11-26T13:00:00Z", "2026-11-26T13:59:59.999Z"},
		{"now/m", "2026-11-26T13:45:00Z", "2026-11-26T13:45:59.999Z"},
		{"now/s", "2026-11-26T13:45:30Z", "2026-11-26T13:45:30.999Z"},
		{"now-2w", "2026-11-12T13:45:30.123Z", "2026-11-12T13:45:30.123Z"},
		// an anchor keeps its own span through arithmetic
		{"2024-01-02||+1d", "2024-01-03T00:00:00Z", "2024-01-03T23:59:59.999Z"},
		{"2024-01-02T03:04:05.250Z||/h", "2024-01-02T03:00:00Z", "2024-01-02T03:59:59.999Z"},
		{"2024-01-02||", "2024-01-02T00:00:00Z", "2024-01-02T23:59:59.999Z"},
		// months and years end on the last day of a shorter month, as
		// java.time's plusMonths
		{"2024-01-31T10:00:00.000Z||+1M", "2024-02-29T10:00:00Z", "2024-02-29T10:00:00Z"},
		{"2024-03-31T10:00:00.000Z||-13M", "2023-02-28T10:00:00Z", "2023-02-28T10:00:00Z"},
		{"2024-02-29T10:00:00.000Z||+1y", "2025-02-28T10:00:00Z", "2025-02-28T10:00:00Z"},
		{"2024-12-15T10:00:00.000Z||+1M", "2025-01-15T10:00:00Z", "2025-01-15T10:00:00Z"},
	}
	for _, tt := range tests {
		ms, span, ok := parseTime(tt.in, now)
		if !ok {
			t.Errorf("parseTime(%q): not a date", tt.in)
			continue
		}
		if from, to := at(tt.from), at(tt.to); ms != from || ms+span != to {
			t.Errorf("parseTime(%q) = %s .. %s, want %s .. %s", tt.in,
				time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), time.UnixMilli(ms+span).UTC().Format(time.RFC3339Nano), tt.from, tt.to)
		}
	}
	for _, bad := range []string{
		"", "nowhere", "now-", "now-1", "now/2d", "now-1x", "now*1d", "now-99999999999d",
		"now+2147483647y", "2024-13-01||+1d", "yesterday", "2024-01-02|+1d",
	} {
		if ms, span, ok := parseTime(bad, now); ok {
			t.Errorf("parseTime(%q) = %d+%d, want no date", bad, ms, span)
		}
	}
}

// FuzzDateMath checks that any date math gives a span that does not run
// backwards, and no panic.
func FuzzDateMath(f *testing.F) {
	for _, s := range []string{"now-1d/d", "2024-01-31||+1M/d", "now+2147483647h", "now-1y/w", "1704164645250||-3s"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 26, 13, 45, 30, 123e6, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if _, span, ok := parseTime(s, now); ok && span < 0 {
			t.Fatalf("parseTime(%q): span %d", s, span)
		}
	})
}
