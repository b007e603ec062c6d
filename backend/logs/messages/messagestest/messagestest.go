// Package messagestest is the contract suite of messages.Store: every
// implementation (the embedded store, Elasticsearch) runs Run from its own
// tests, so that search, paging, rotation and durability behave the same
// whichever store a node uses. It also holds Generate, the realistic log
// generator the benchmarks and the node's load tests share.
package messagestest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
)

// Factory opens stores of the implementation under test. Run calls it
// from parallel subtests and closes every store it gets.
type Factory struct {
	// Open returns an empty store.
	Open func(t *testing.T) messages.Store
	// Reopen closes s and opens its data again, as a restarted node
	// would. If nil, the durability tests are skipped.
	Reopen func(t *testing.T, s messages.Store) messages.Store
	// Crash drops s as a crash would (nothing written since the last
	// Flush survives) and opens its data again. If nil, the crash test is
	// skipped: a store that makes every write durable cannot lose it.
	Crash func(t *testing.T, s messages.Store) messages.Store
}

// Run runs the contract suite against the stores f opens.
func Run(t *testing.T, f Factory) {
	tests := []struct {
		name string
		run  func(*testing.T, Factory)
	}{
		{"RoundTrip", testRoundTrip},
		{"WriteCreatesIndex", testWriteCreatesIndex},
		{"PrefixIsolation", testPrefixIsolation},
		{"Replay", testReplay},
		{"Query", testQuery},
		{"BigIntegers", testBigIntegers},
		{"Analysis", testAnalysis},
		{"TimeRange", testTimeRange},
		{"Streams", testStreams},
		{"Sort", testSort},
		{"Paging", testPaging},
		{"Window", testWindow},
		{"Scan", testScan},
		{"Get", testGet},
		{"Rotate", testRotate},
		{"Delete", testDelete},
		{"CloseIndex", testCloseIndex},
		{"Concurrent", testConcurrent},
		{"Canceled", testCanceled},
		{"Durable", testDurable},
		{"Crash", testCrash},
		{"Health", testHealth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, f)
		})
	}
}

// harness is one open store and the test using it.
type harness struct {
	t *testing.T
	s messages.Store
}

func open(t *testing.T, f Factory) *harness {
	t.Helper()
	h := &harness{t: t, s: f.Open(t)}
	t.Cleanup(func() {
		if err := h.s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

// t0 is the base time of the suite's messages.
var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// msg builds a message at t0+sec seconds.
func msg(id string, sec float64, streams []string, kv ...any) messages.Message {
	m := messages.Message{ID: id, Timestamp: t0.Add(time.Duration(sec * float64(time.Second))), Streams: streams}
	for i := 0; i < len(kv); i += 2 {
		m.Fields = append(m.Fields, messages.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return m
}

func (h *harness) write(prefix string, msgs ...messages.Message) {
	h.t.Helper()
	if err := h.s.Write(h.t.Context(), prefix, msgs); err != nil {
		h.t.Fatalf("Write(%s): %v", prefix, err)
	}
}

func (h *harness) flush(cp uint64) {
	h.t.Helper()
	if err := h.s.Flush(h.t.Context(), cp); err != nil {
		h.t.Fatalf("Flush(%d): %v", cp, err)
	}
}

func (h *harness) search(q messages.Query) messages.Result {
	h.t.Helper()
	r, err := h.s.Search(h.t.Context(), q)
	if err != nil {
		h.t.Fatalf("Search(%+v): %v", q, err)
	}
	return r
}

// parse parses a Lucene query, failing the test on a syntax error.
func parse(t testing.TB, q string) query.Node {
	t.Helper()
	n, err := query.Parse(q, query.Options{})
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return n
}

// parseLeading parses a query as a server allowing leading wildcards
// does.
func parseLeading(t testing.TB, q string) query.Node {
	t.Helper()
	n, err := query.Parse(q, query.Options{AllowLeadingWildcard: true})
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return n
}

// ids returns the _ids of the hits in order.
func ids(r messages.Result) []string {
	out := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		out[i] = h.Message.ID
	}
	return out
}

// wantIDs checks the set of ids q finds (order ignored) and the total.
func (h *harness) wantIDs(what string, q messages.Query, want ...string) {
	h.t.Helper()
	if q.Limit == 0 {
		q.Limit = 100
	}
	r := h.search(q)
	got := ids(r)
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		h.t.Errorf("%s: got %q, want %q", what, got, want)
	}
	if r.Total != int64(len(want)) {
		h.t.Errorf("%s: Total = %d, want %d", what, r.Total, len(want))
	}
}

func (h *harness) indices(prefix string) []messages.Index {
	h.t.Helper()
	list, err := h.s.Indices(h.t.Context(), prefix)
	if err != nil {
		h.t.Fatalf("Indices(%s): %v", prefix, err)
	}
	return list
}

func names(list []messages.Index) []string {
	out := make([]string, len(list))
	for i, ix := range list {
		out[i] = ix.Name
	}
	return out
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}
