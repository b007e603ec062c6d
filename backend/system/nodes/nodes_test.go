package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/nodes"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func openStore(t testing.TB) store.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// cluster returns n registries on one store and one clock, with opts if
// given.
func cluster(t testing.TB, st store.Store, c *clock, n int, opts ...nodes.Options) []*nodes.Registry {
	t.Helper()
	regs := make([]*nodes.Registry, n)
	for i := range regs {
		id := fmt.Sprintf("node-%d", i+1)
		regs[i] = nodes.New(st, c.Now, func() nodes.Info {
			return nodes.Info{NodeID: id, TransportAddress: "http://" + id + ":9000/", Lifecycle: "running", LBStatus: "alive"}
		}, append(opts, nodes.Options{})[0])
	}
	return regs
}

func beat(t testing.TB, regs ...*nodes.Registry) {
	t.Helper()
	for _, r := range regs {
		if err := r.Beat(context.Background()); err != nil {
			t.Fatalf("beat: %v", err)
		}
	}
}

func liveIDs(t *testing.T, r *nodes.Registry) string {
	t.Helper()
	ids, err := r.LiveIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(ids)
}

func TestLivenessAndLease(t *testing.T) {
	ctx := context.Background()
	st, c := openStore(t), &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	regs := cluster(t, st, c, 3)
	beat(t, regs...)

	steps := []struct {
		name     string
		advance  time.Duration
		beating  []*nodes.Registry
		live     string
		leader   string
		isLeader []bool
	}{
		{"all beat", 0, regs, "[node-1 node-2 node-3]", "node-1", []bool{true, false, false}},
		{"leader silent, within timeout", 4 * time.Second, regs[1:], "[node-1 node-2 node-3]", "node-1", []bool{true, false, false}},
		{"leader silent past timeout and TTL", 2 * time.Second, regs[1:], "[node-2 node-3]", "node-2", []bool{false, true, false}},
		{"back: a follower now", time.Second, regs, "[node-1 node-2 node-3]", "node-2", []bool{false, true, false}},
	}
	for _, s := range steps {
		c.Advance(s.advance)
		beat(t, s.beating...)
		if got := liveIDs(t, regs[2]); got != s.live {
			t.Errorf("%s: live %s, want %s", s.name, got, s.live)
		}
		leader, err := regs[2].Leader(ctx)
		if err != nil || leader != s.leader {
			t.Errorf("%s: leader %q (%v), want %q", s.name, leader, err, s.leader)
		}
		for i, r := range regs {
			if r.IsLeader() != s.isLeader[i] {
				t.Errorf("%s: node-%d IsLeader %v", s.name, i+1, r.IsLeader())
			}
		}
	}
	if _, err := regs[0].Get(ctx, "node-9"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown node: %v", err)
	}
	if addr, err := regs[0].Address(ctx, "node-3"); err != nil || addr != "http://node-3:9000/" {
		t.Errorf("address %q, %v", addr, err)
	}
}

func TestDeregisterReleasesLease(t *testing.T) {
	ctx := context.Background()
	st, c := openStore(t), &clock{now: time.Unix(1e9, 0)}
	regs := cluster(t, st, c, 2)
	beat(t, regs...)
	if err := regs[0].Deregister(ctx); err != nil {
		t.Fatal(err)
	}
	if got := liveIDs(t, regs[1]); got != "[node-2]" {
		t.Errorf("live %s after deregistering", got)
	}
	if l, _ := regs[1].Leader(ctx); l != "" {
		t.Errorf("leader %q after release", l)
	}
	beat(t, regs[1])
	if !regs[1].IsLeader() {
		t.Error("node-2 did not take the released lease")
	}
}

func TestAbandonedNodeIsSweptAfterGrace(t *testing.T) {
	ctx := context.Background()
	st, c := openStore(t), &clock{now: time.Unix(1e9, 0)}
	regs := cluster(t, st, c, 2)
	beat(t, regs...)
	regs[0].Abandon()
	if err := regs[0].Deregister(ctx); err != nil {
		t.Fatal(err)
	}
	opts := regs[1].Options()
	c.Advance(opts.NodeTimeout + opts.Grace)
	beat(t, regs...)
	if n, _ := st.Count(ctx, nodes.Collection); n != 2 {
		t.Errorf("%d documents before the grace ended, want 2", n)
	}
	c.Advance(time.Second)
	beat(t, regs...)
	if n, _ := st.Count(ctx, nodes.Collection); n != 1 {
		t.Errorf("%d documents after the grace, want 1", n)
	}
}

func TestJobsRunOnLeaderOnly(t *testing.T) {
	st, c := openStore(t), &clock{now: time.Unix(1e9, 0)}
	regs := cluster(t, st, c, 2)
	runs := map[int]int{}
	for i, r := range regs {
		r.Every("rotation", 10*time.Second, func(context.Context) error { runs[i]++; return nil })
	}
	beat(t, regs...) // node-1 leads and runs it
	c.Advance(5 * time.Second)
	beat(t, regs...) // not due
	c.Advance(5 * time.Second)
	beat(t, regs...) // due
	if runs[0] != 2 || runs[1] != 0 {
		t.Fatalf("runs %v, want node-1 twice", runs)
	}
	regs[0].Abandon()
	c.Advance(6 * time.Second)
	beat(t, regs[1]) // takes over and runs at once
	if runs[1] != 1 {
		t.Errorf("new leader ran %d times, want 1", runs[1])
	}
	boom := errors.New("boom")
	ran, err := regs[1].RunIfLeader(context.Background(), "x", func(context.Context) error { return boom })
	if !ran || !errors.Is(err, boom) {
		t.Errorf("RunIfLeader: %v %v", ran, err)
	}
	if ran, _ := regs[0].RunIfLeader(context.Background(), "x", nil); ran {
		t.Error("a follower ran a job")
	}
}

// Run beats on its ticker and deregisters when its context ends.
func TestRunDeregisters(t *testing.T) {
	st, c := openStore(t), &clock{now: time.Unix(1e9, 0)}
	reg := cluster(t, st, c, 1)[0]
	beat(t, reg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { reg.Run(ctx, func(err error) { t.Error(err) }); close(done) }()
	cancel()
	<-done
	if n, _ := st.Count(context.Background(), nodes.Collection); n != 0 {
		t.Errorf("%d node documents after Run ended", n)
	}
}

func BenchmarkBeat(b *testing.B) {
	st, c := openStore(b), &clock{now: time.Unix(1e9, 0)}
	regs := cluster(b, st, c, 10)
	beat(b, regs...)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := regs[i%10].Beat(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLive(b *testing.B) {
	st, c := openStore(b), &clock{now: time.Unix(1e9, 0)}
	regs := cluster(b, st, c, 10)
	beat(b, regs...)
	b.ReportAllocs()
	for b.Loop() {
		live, err := regs[0].Live(context.Background())
		if err != nil || len(live) != 10 {
			b.Fatal(len(live), err)
		}
	}
}

// TestLiveSeesChangedDocuments: Live keeps decoded documents between calls
// and must still return what a node wrote last, and forget removed nodes.
func TestLiveSeesChangedDocuments(t *testing.T) {
	ctx := context.Background()
	st, c := openStore(t), &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	lifecycle := "starting"
	r := nodes.New(st, c.Now, func() nodes.Info {
		mu.Lock()
		defer mu.Unlock()
		return nodes.Info{NodeID: "node-1", Lifecycle: lifecycle}
	}, nodes.Options{})
	other := cluster(t, st, c, 2)[1]
	beat(t, r, other)
	for _, want := range []string{"starting", "running", "running", "paused"} {
		mu.Lock()
		lifecycle = want
		mu.Unlock()
		beat(t, r)
		live, err := r.Live(ctx)
		if err != nil || len(live) != 2 || live[0].Lifecycle != want {
			t.Fatalf("Live = %+v, %v; want node-1 %s", live, err, want)
		}
	}
	if err := other.Deregister(ctx); err != nil {
		t.Fatal(err)
	}
	if got := liveIDs(t, r); got != "[node-1]" {
		t.Fatalf("live %s after node-2 left", got)
	}
}

// TestLiveSetIsSharedUntilChange: LiveSet hands out the same *LiveSet while
// nothing changed (GET /cluster keeps its encoded answer by it) and a new
// one as soon as a document or a node's liveness changed, with what is
// current; on an exclusive store, which it reads only after a write, too.
func TestLiveSetIsSharedUntilChange(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) { testLiveSetShared(t, exclusive) })
	}
}

func testLiveSetShared(t *testing.T, exclusive bool) {
	ctx := context.Background()
	st, c := openStore(t), &clock{now: time.Unix(1e9, 0)}
	regs := cluster(t, st, c, 3, nodes.Options{Exclusive: exclusive})
	beat(t, regs...)
	set := func() *nodes.LiveSet {
		t.Helper()
		s, err := regs[0].LiveSet(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ids := func(s *nodes.LiveSet) string {
		var out []string
		for _, in := range s.Nodes {
			out = append(out, in.NodeID)
		}
		return fmt.Sprint(out)
	}
	steps := []struct {
		name    string
		do      func()
		changed bool
		live    string
	}{
		{"nothing", func() {}, false, "[node-1 node-2 node-3]"},
		{"a beat at the same time writes the same document", func() { beat(t, regs[1]) }, false, "[node-1 node-2 node-3]"},
		{"time passes within the timeout", func() { c.Advance(4 * time.Second) }, false, "[node-1 node-2 node-3]"},
		{"one node beats", func() { beat(t, regs[1]) }, true, "[node-1 node-2 node-3]"},
		{"the silent ones time out", func() { c.Advance(2 * time.Second) }, true, "[node-2]"},
		{"still dead", func() { c.Advance(time.Millisecond) }, false, "[node-2]"},
		{"the first comes back", func() { beat(t, regs[0]) }, true, "[node-1 node-2]"},
		{"the last deregisters", func() {
			if err := regs[1].Deregister(ctx); err != nil {
				t.Fatal(err)
			}
		}, true, "[node-1]"},
	}
	prev := set()
	for _, s := range steps {
		s.do()
		got := set()
		if (got != prev) != s.changed || ids(got) != s.live {
			t.Errorf("%s: changed %v, live %s; want changed %v, live %s", s.name, got != prev, ids(got), s.changed, s.live)
		}
		prev = got
	}
	// Live's slice is the caller's: changing it changes no one else's.
	live, err := regs[0].Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live[0].NodeID = "changed"
	if ids(set()) != "[node-1]" {
		t.Errorf("a caller's change of Live's slice reached the registry: %s", ids(set()))
	}
}

// listCounter counts the reads of the nodes collection.
type listCounter struct {
	store.Store
	lists int
}

func (l *listCounter) List(ctx context.Context, coll string, fn func(id string, doc []byte) error) error {
	if coll == nodes.Collection {
		l.lists++
	}
	return l.Store.List(ctx, coll, fn)
}

// On an exclusive store LiveSet reads the collection only after a write of
// a registry sharing the store.
func TestExclusiveLiveSetReadsAfterWrites(t *testing.T) {
	ctx := context.Background()
	st, c := &listCounter{Store: openStore(t)}, &clock{now: time.Unix(1e9, 0)}
	regs := cluster(t, st, c, 2, nodes.Options{Exclusive: true})
	beat(t, regs...)
	for _, s := range []struct {
		name  string
		do    func()
		lists int
	}{
		{"first call", func() {}, 1},
		{"no write", func() { c.Advance(time.Second) }, 0},
		{"another registry beats", func() { beat(t, regs[1]) }, 1},
		{"a failed write may have written", func() {
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			_ = regs[1].Deregister(cancelled)
		}, 1},
	} {
		s.do()
		before := st.lists
		if _, err := regs[0].LiveSet(ctx); err != nil {
			t.Fatal(err)
		}
		if got := st.lists - before; got != s.lists {
			t.Errorf("%s: %d reads, want %d", s.name, got, s.lists)
		}
	}
}
