package corpus

import (
	"encoding/json"
	"testing"
)

// The corpus is what issue 18 describes: the same for every caller, about
// 324 bytes of GELF a message, valid JSON with the fields named.
func TestCorpus(t *testing.T) {
	a, b := First(2000), First(2000)
	total := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("message %d differs between two calls", i)
		}
		g := a[i].GELF()
		total += len(g)
		var m map[string]any
		if err := json.Unmarshal([]byte(g), &m); err != nil {
			t.Fatalf("message %d is not JSON: %v\n%s", i, err, g)
		}
		for _, k := range []string{"host", "short_message", "timestamp", "level", "_service", "_user_id", "_request_id", "_duration_ms", "_path"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("message %d lacks %s: %s", i, k, g)
			}
		}
	}
	if avg := total / len(a); avg < 300 || avg > 350 {
		t.Errorf("average GELF size %d bytes, want about 324", avg)
	}
}
