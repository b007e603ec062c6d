package journal

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	j := open(t, dir, Options{Now: clk.Now, SegmentSize: 1 << 10, MaxSize: 1 << 20})
	created := clk.Now()
	appendN(t, j, 0, 30)
	if err := j.Commit(9); err != nil {
		t.Fatal(err)
	}
	es := readAll(t, j, 10)
	clk.Advance(5 * time.Second)

	st := j.Stats()
	abs, _ := filepath.Abs(dir)
	var size int64
	for _, p := range segmentFiles(t, dir) {
		size += fileSize(t, p)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"enabled", st.Enabled, true},
		{"uncommitted", st.UncommittedJournalEntries, int64(20)},
		{"size", st.JournalSize, size},
		{"limit", st.JournalSizeLimit, int64(1 << 20)},
		{"segments", st.NumberOfSegments, len(segmentFiles(t, dir))},
		{"oldest", st.OldestSegment.Time, created},
		{"append rate", st.AppendEventsPerSecond, int64(30 / 5)},
		{"read rate", st.ReadEventsPerSecond, int64(len(es) / 5)},
		{"directory", st.JournalConfig.Directory, "file://" + abs + "/"},
		{"segment age ms", st.JournalConfig.SegmentAge, int64(3600000)},
		{"max age ms", st.JournalConfig.MaxAge, int64(12 * 3600000)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"enabled", "append_events_per_second", "read_events_per_second",
		"uncommitted_journal_entries", "journal_size", "journal_size_limit", "number_of_segments",
		"oldest_segment", "journal_config"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if got := m["oldest_segment"]; got != "2021-01-02T03:04:05.000Z" {
		t.Errorf("oldest_segment = %v", got)
	}
	cfg, _ := m["journal_config"].(map[string]any)
	for _, k := range []string{"directory", "segment_size", "segment_age", "max_size", "max_age", "flush_interval", "flush_age"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("journal_config lacks %q: %s", k, b)
		}
	}
}

func TestDisabledStats(t *testing.T) {
	b, err := json.Marshal(DisabledStats())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"enabled":false,"append_events_per_second":0,"read_events_per_second":0,"uncommitted_journal_entries":0,` +
		`"journal_size":0,"journal_size_limit":0,"number_of_segments":0,"oldest_segment":"1970-01-01T00:00:00.000Z","journal_config":null}`
	if string(b) != want {
		t.Fatalf("disabled stats = %s\nwant %s", b, want)
	}
}

func TestMeter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	decay := func(r float64, ticks int) float64 { return r * math.Pow(1-meterAlpha, float64(ticks)) }
	tests := []struct {
		name  string
		marks []int64 // one mark per tick interval
		after time.Duration
		want  float64
	}{
		{"no ticks yet", []int64{50}, 4 * time.Second, 0},
		{"first tick is the instant rate", []int64{50}, 5 * time.Second, 10},
		{"second tick moves by alpha", []int64{50, 100}, 10 * time.Second, 10 + meterAlpha*(20-10)},
		{"idle ticks decay", []int64{50}, 20 * time.Second, decay(10, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m meter
			m.start(t0)
			for i, n := range tt.marks {
				m.mark(t0.Add(time.Duration(i)*meterTick), n)
			}
			if got := m.perSecond(t0.Add(tt.after)); math.Abs(got-tt.want) > 1e-9 {
				t.Fatalf("rate = %v, want %v", got, tt.want)
			}
		})
	}
}
