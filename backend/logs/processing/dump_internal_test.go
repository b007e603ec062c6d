package processing

import "testing"

func TestDump(t *testing.T) {
	tests := []struct {
		name       string
		current    *batchAt
		failing    string
		processing bool
		want       string
	}{
		{"idle", nil, "", true, "idle"},
		{"paused", nil, "", false, "idle (processing paused)"},
		{"batch", &batchAt{from: 10, n: 5}, "", true, "processing journal offsets 10 to 14 (5 records)"},
		{"batch while the store fails", &batchAt{from: 0, n: 1}, "disk full", true, "processing journal offsets 0 to 0 (1 records), retrying: the message store is failing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Processor{opts: Options{Processing: func() bool { return tc.processing }}, progress: make(chan struct{})}
			p.current.Store(tc.current)
			p.state.Failing = tc.failing
			got := p.Dump()
			if len(got) != 1 || got[DumpKey] != tc.want {
				t.Errorf("Dump() = %v, want %q", got, tc.want)
			}
		})
	}
}
