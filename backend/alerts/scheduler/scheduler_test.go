package scheduler

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/internal/testclock"
	"github.com/loggate/loggate/router/api"
)

// windowJob records each window it ran, keyed by its start, as an
// idempotent job does: a re-run of a window overwrites, never adds.
type windowJob struct {
	mu    sync.Mutex
	runs  map[int64]int // window start (ms) → runs that were recorded
	every time.Duration
	block func(from int64) // called before the window's work; may block
}

func (j *windowJob) Execute(ctx context.Context, _ JobDefinition, tr Trigger) (Outcome, error) {
	var d struct{ From int64 }
	_ = json.Unmarshal(tr.Data, &d)
	if j.block != nil {
		j.block(d.From)
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	j.mu.Lock()
	j.runs[d.From]++
	j.mu.Unlock()
	next := d.From + j.every.Milliseconds()
	data, _ := json.Marshal(map[string]int64{"from": next})
	return Outcome{Next: time.UnixMilli(next + j.every.Milliseconds()), Data: data}, nil
}

func openStore(t *testing.T) store.Store {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newID() string { return primitive.NewObjectID().Hex() }

// Two schedulers on one store, both believing they lead (the moment of a
// lease handover): every window is recorded exactly once.
func TestTwoLeadersFireOnce(t *testing.T) {
	st := openStore(t)
	clock := testclock.New(time.UnixMilli(1_600_000_000_000))
	job := &windowJob{runs: map[int64]int{}, every: 5 * time.Second}
	var ss [2]*Scheduler
	for i := range ss {
		ss[i] = New(st, clock.Now, []string{"a", "b"}[i], func() bool { return true }, newID, Options{})
		ss[i].Register("window-v1", job)
	}
	ctx := t.Context()
	def, err := ss[0].PutJob(ctx, JobDefinition{Title: "w", Config: json.RawMessage(`{"type":"window-v1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	start := clock.Now().UnixMilli()
	data, _ := json.Marshal(map[string]int64{"from": start})
	if _, err := ss[0].AddTrigger(ctx, Trigger{JobDefinitionID: def.ID, Schedule: Schedule{Type: "interval", Interval: 5000},
		NextTime: apiTime(start + 5000), Data: data}); err != nil {
		t.Fatal(err)
	}
	const windows = 20
	for range windows {
		clock.Advance(5 * time.Second)
		var wg sync.WaitGroup
		for _, s := range ss {
			wg.Go(func() {
				if _, err := s.RunDue(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	for i := range windows {
		if n := job.runs[start+int64(i)*5000]; n != 1 {
			t.Errorf("window %d recorded %d times", i, n)
		}
	}
	if len(job.runs) != windows {
		t.Errorf("%d windows recorded, want %d", len(job.runs), windows)
	}
}

// A leader killed while it runs a firing leaves the trigger locked; the
// next leader runs that firing again once the lock expired, and the windows
// after it, so that none is missed; the dead leader's late outcome is not
// recorded.
func TestLeaderKilledMidJob(t *testing.T) {
	st := openStore(t)
	clock := testclock.New(time.UnixMilli(1_600_000_000_000))
	job := &windowJob{runs: map[int64]int{}, every: 5 * time.Second}
	var aLeads atomic.Bool
	aLeads.Store(true)
	entered, release := make(chan struct{}), make(chan struct{})
	killedJob := &windowJob{runs: job.runs, every: job.every, block: func(int64) {
		close(entered)
		<-release
	}}
	// a's job blocks in its second window; b's records into the same map.
	aCalls := 0
	a := New(st, clock.Now, "a", aLeads.Load, newID, Options{})
	a.Register("window-v1", jobFunc(func(ctx context.Context, d JobDefinition, tr Trigger) (Outcome, error) {
		aCalls++
		if aCalls == 2 {
			return killedJob.Execute(ctx, d, tr)
		}
		job.mu.Lock()
		defer job.mu.Unlock()
		return (&windowJob{runs: job.runs, every: job.every}).Execute(ctx, d, tr)
	}))
	b := New(st, clock.Now, "b", func() bool { return !aLeads.Load() }, newID, Options{})
	b.Register("window-v1", job)

	ctx := t.Context()
	def, _ := a.PutJob(ctx, JobDefinition{Title: "w", Config: json.RawMessage(`{"type":"window-v1"}`)})
	start := clock.Now().UnixMilli()
	data, _ := json.Marshal(map[string]int64{"from": start})
	if _, err := a.AddTrigger(ctx, Trigger{JobDefinitionID: def.ID, Schedule: Schedule{Type: "interval", Interval: 5000},
		NextTime: apiTime(start + 5000), Data: data}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Second)
	if n, err := a.RunDue(ctx); err != nil || n != 1 {
		t.Fatalf("first window: %d, %v", n, err)
	}
	clock.Advance(5 * time.Second)
	aCtx, kill := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = a.RunDue(aCtx)
	}()
	<-entered
	// a dies: its lease goes to b, which must not run the locked firing
	// before the lock expires.
	aLeads.Store(false)
	kill()
	if n, _ := b.RunDue(ctx); n != 0 {
		t.Fatalf("b ran %d firings under a's lock", n)
	}
	clock.Advance(DefaultLockTTL)
	n, err := b.RunDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	// The windows due by now: the second one and every 5 s since.
	want := 2 + int(DefaultLockTTL/(5*time.Second))
	if n != want-1 {
		t.Errorf("b recorded %d firings, want %d", n, want-1)
	}
	for i := range want {
		if c := job.runs[start+int64(i)*5000]; c != 1 {
			t.Errorf("window %d recorded %d times", i, c)
		}
	}
	if len(job.runs) != want {
		t.Errorf("%d windows recorded, want %d", len(job.runs), want)
	}
}

type jobFunc func(ctx context.Context, d JobDefinition, tr Trigger) (Outcome, error)

func (f jobFunc) Execute(ctx context.Context, d JobDefinition, tr Trigger) (Outcome, error) {
	return f(ctx, d, tr)
}

// A failing firing is retried after RetryDelay; a permanent failure puts
// the trigger in the error status.
func TestRetryAndError(t *testing.T) {
	st := openStore(t)
	clock := testclock.New(time.UnixMilli(1_600_000_000_000))
	s := New(st, clock.Now, "a", func() bool { return true }, newID, Options{})
	fail := &Permanent{Err: context.DeadlineExceeded}
	var calls int
	s.Register("flaky-v1", jobFunc(func(context.Context, JobDefinition, Trigger) (Outcome, error) {
		calls++
		if calls == 1 {
			return Outcome{}, context.Canceled
		}
		return Outcome{}, fail
	}))
	ctx := t.Context()
	def, _ := s.PutJob(ctx, JobDefinition{Title: "f", Config: json.RawMessage(`{"type":"flaky-v1"}`)})
	tr, err := s.AddTrigger(ctx, Trigger{JobDefinitionID: def.ID, Schedule: Schedule{Type: "once"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunDue(ctx); err == nil {
		t.Fatal("a failed firing is no error")
	}
	got, _ := s.TriggersOf(ctx, def.ID)
	if got[0].Status != StatusRunnable || !got[0].NextTime.Equal(tr.NextTime.Add(RetryDelay)) {
		t.Fatalf("after a failure: %+v", got[0])
	}
	clock.Advance(RetryDelay)
	_, _ = s.RunDue(ctx)
	got, _ = s.TriggersOf(ctx, def.ID)
	if got[0].Status != StatusError || calls != 2 {
		t.Fatalf("after a permanent failure: %s, %d calls", got[0].Status, calls)
	}
}

func apiTime(ms int64) api.Time { return api.Time{Time: time.UnixMilli(ms).UTC()} }
