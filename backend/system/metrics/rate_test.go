package metrics

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"
)

func TestRateGauge(t *testing.T) {
	clock := testclock.New(time.Unix(1_700_000_000, 0))
	reg := New(clock.Now)
	var n atomic.Int64
	reg.RateGauge("org.graylog2.throughput.input.1-sec-rate", n.Load)
	read := func() int64 {
		t.Helper()
		b, ok := reg.MarshalMetric("org.graylog2.throughput.input.1-sec-rate")
		if !ok {
			t.Fatal("gauge not registered")
		}
		var v struct{ Value int64 }
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v.Value
	}
	steps := []struct {
		name    string
		add     int64
		advance time.Duration
		want    int64
	}{
		{"first reading starts the measurement", 0, 0, 0},
		{"under a second keeps the last rate", 50, 500 * time.Millisecond, 0},
		{"a second later: 100 per second", 50, 500 * time.Millisecond, 100},
		{"two seconds of 300: 150 per second", 300, 2 * time.Second, 150},
		{"nothing new: 0", 0, time.Second, 0},
	}
	for _, s := range steps {
		n.Add(s.add)
		clock.Advance(s.advance)
		if got := read(); got != s.want {
			t.Errorf("%s: got %d, want %d", s.name, got, s.want)
		}
	}
}
