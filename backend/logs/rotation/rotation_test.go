package rotation_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/rotation"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

// t0 is when the test's indices are created.
var t0 = time.Date(2021, 1, 31, 10, 0, 0, 0, time.UTC)

var errDisk = errors.New("disk on fire")

// env is the index set service on a bolt store and an embedded message
// store whose clock and disk the test controls.
type env struct {
	t    *testing.T
	db   store.Store
	sets *indexsets.Service
	ms   *embedded.Store
	now  time.Time
	// failAt fails the nth disk write of the store from now on (counting
	// from 1), 0 never.
	failAt, writes atomic.Int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, now: t0}
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "db"), indexsets.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	t.Cleanup(func() { db.Close() })
	if e.sets, err = indexsets.NewService(context.Background(), db, nil, nil, func() time.Time { return t0 }); err != nil {
		t.Fatal(err)
	}
	e.ms, err = embedded.Open(filepath.Join(dir, "messages"), embedded.Options{
		Now: func() time.Time { return e.now },
		Fault: func() error {
			if at := e.failAt.Load(); at > 0 && e.writes.Add(1) == at {
				return errDisk
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.ms.Close() })
	return e
}

// failNth makes the nth disk write of the store from now on fail.
func (e *env) failNth(n int64) {
	e.writes.Store(0)
	e.failAt.Store(n)
}

// rot is a rotation strategy with its configuration.
type rot struct {
	class string
	cfg   indexsets.RotationConfig
}

func countRotation(max int) rot {
	return rot{indexsets.MessageCountRotation, indexsets.RotationConfig{Type: indexsets.MessageCountRotation + "Config", MaxDocsPerIndex: max}}
}

func sizeRotation(max int64) rot {
	return rot{indexsets.SizeBasedRotation, indexsets.RotationConfig{Type: indexsets.SizeBasedRotation + "Config", MaxSize: max}}
}

func timeRotation(period string) rot {
	p, err := indexsets.ParsePeriod(period)
	if err != nil {
		panic(err)
	}
	return rot{indexsets.TimeBasedRotation, indexsets.RotationConfig{Type: indexsets.TimeBasedRotation + "Config", RotationPeriod: &p}}
}

// set creates an index set with the given rotation and retention.
func (e *env) set(title, prefix string, writable bool, r rot, retClass string, keep int) string {
	e.t.Helper()
	is, err := e.sets.Create(context.Background(), indexsets.IndexSet{
		Title: title, IndexPrefix: prefix, Writable: writable, Shards: 1,
		RotationStrategyClass: r.class, RotationStrategy: r.cfg,
		RetentionStrategyClass: retClass,
		RetentionStrategy:      indexsets.RetentionConfig{Type: retClass + "Config", MaxNumberOfIndices: keep},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return is.ID
}

// fill builds the series of prefix: one index per count, each holding
// that many messages, the last being the write index.
func (e *env) fill(prefix string, counts ...int) {
	e.t.Helper()
	ctx := context.Background()
	n := 0
	for i, c := range counts {
		if i > 0 || c == 0 {
			if _, err := e.ms.Rotate(ctx, prefix); err != nil {
				e.t.Fatal(err)
			}
		}
		msgs := make([]messages.Message, c)
		for j := range msgs {
			msgs[j] = messages.Message{ID: fmt.Sprintf("%s-%d", prefix, n), Timestamp: t0,
				Fields: []messages.Field{{Key: "message", Value: strings.Repeat("log line ", 8)}, {Key: "n", Value: int64(n)}}}
			n++
		}
		if c > 0 {
			if err := e.ms.Write(ctx, prefix, msgs); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

func (e *env) indices(prefix string) []messages.Index {
	e.t.Helper()
	list, err := e.ms.Indices(context.Background(), prefix)
	if err != nil {
		e.t.Fatal(err)
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

func (e *env) run(at time.Time) ([]rotation.Action, error) {
	return rotation.Run(context.Background(), e.sets, e.ms, at, nil)
}

// wantActions compares actions by index set, index and kind, and checks
// that each gives a reason.
func wantActions(t *testing.T, got, want []rotation.Action) {
	t.Helper()
	strip := make([]rotation.Action, len(got))
	for i, a := range got {
		if a.Reason == "" {
			t.Errorf("action %+v gives no reason", a)
		}
		a.Reason = ""
		strip[i] = a
	}
	if !slices.Equal(strip, want) {
		t.Errorf("actions %+v, want %+v", strip, want)
	}
}

// TestRotate checks when each rotation strategy rotates the write index.
func TestRotate(t *testing.T) {
	// The rotation of a case, given the size of the flushed write index.
	type rotationFn func(flushedSize int64) rot
	count := func(max int) rotationFn {
		return func(int64) rot { return countRotation(max) }
	}
	period := func(p string) rotationFn {
		return func(int64) rot { return timeRotation(p) }
	}
	cases := []struct {
		name     string
		rotation rotationFn
		writable bool
		counts   []int
		flush    bool
		after    time.Duration // the run's time, after t0
		want     string        // the new write index, "" for none
	}{
		{name: "count below max_docs_per_index", rotation: count(5), writable: true, counts: []int{4}},
		// As Graylog: more than the limit, not the limit itself.
		{name: "count at max_docs_per_index", rotation: count(5), writable: true, counts: []int{5}},
		{name: "count just above max_docs_per_index", rotation: count(5), writable: true, counts: []int{6}, want: "p_1"},
		{name: "count above max_docs_per_index", rotation: count(5), writable: true, counts: []int{3, 9}, want: "p_2"},
		{name: "count counts the write index only", rotation: count(5), writable: true, counts: []int{9, 4}},
		{name: "empty write index", rotation: count(1), writable: true, counts: []int{0}},
		{name: "empty write index after a rotation", rotation: count(1), writable: true, counts: []int{5, 0}},
		{name: "no index yet", rotation: count(1), writable: true},
		{name: "not writable", rotation: count(5), counts: []int{50}},
		{name: "size below max_size", writable: true, counts: []int{40}, flush: true,
			rotation: func(size int64) rot { return sizeRotation(size + 1) }},
		{name: "size at max_size", writable: true, counts: []int{40}, flush: true,
			rotation: func(size int64) rot { return sizeRotation(size) }},
		{name: "size above max_size", writable: true, counts: []int{40}, flush: true, want: "p_1",
			rotation: func(size int64) rot { return sizeRotation(size - 1) }},
		{name: "size counts flushed bytes only", writable: true, counts: []int{40},
			rotation: func(int64) rot { return sizeRotation(1) }},
		{name: "time before the period", rotation: period("PT1H"), writable: true, counts: []int{1}, after: time.Hour - time.Millisecond},
		{name: "time at the period", rotation: period("PT1H"), writable: true, counts: []int{1}, after: time.Hour, want: "p_1"},
		{name: "time after the period", rotation: period("P1D"), writable: true, counts: []int{1}, after: 30 * time.Hour, want: "p_1"},
		// As Graylog, periods start on their unit's boundaries in UTC,
		// whenever the index was created (t0 is Sunday 31 January 2021,
		// 10:00): a day at midnight, a week on Monday, a month on the
		// 1st, six hours at 00, 06, 12 and 18 h.
		{name: "time before midnight", rotation: period("P1D"), writable: true, counts: []int{1}, after: 14*time.Hour - time.Millisecond},
		{name: "time at midnight", rotation: period("P1D"), writable: true, counts: []int{1}, after: 14 * time.Hour, want: "p_1"},
		{name: "time before the month's end", rotation: period("P1M"), writable: true, counts: []int{1}, after: 14*time.Hour - time.Millisecond},
		{name: "time at the month's end", rotation: period("P1M"), writable: true, counts: []int{1}, after: 14 * time.Hour, want: "p_1"},
		{name: "time before Monday", rotation: period("P1W"), writable: true, counts: []int{1}, after: 14*time.Hour - time.Millisecond},
		{name: "time on Monday", rotation: period("P1W"), writable: true, counts: []int{1}, after: 14 * time.Hour, want: "p_1"},
		{name: "time before 12h", rotation: period("PT6H"), writable: true, counts: []int{1}, after: 2*time.Hour - time.Millisecond},
		{name: "time at 12h", rotation: period("PT6H"), writable: true, counts: []int{1}, after: 2 * time.Hour, want: "p_1"},
		{name: "time of 36 hours from midnight", rotation: period("PT36H"), writable: true, counts: []int{1}, after: 26 * time.Hour, want: "p_1"},
		{name: "time of 36 hours before its end", rotation: period("PT36H"), writable: true, counts: []int{1}, after: 26*time.Hour - time.Millisecond},
		// 3,000,000 hours (342 years) is more than a time.Duration holds.
		{name: "time with a period longer than a Duration", rotation: period("PT3000000H"), writable: true, counts: []int{1}, after: 24 * time.Hour},
		{name: "time with minutes longer than a Duration", rotation: period("PT200000000M"), writable: true, counts: []int{1}, after: 24 * time.Hour},
		{name: "time with an empty write index", rotation: period("PT1H"), writable: true, counts: []int{0}, after: 2 * time.Hour},
		{name: "time not writable", rotation: period("PT1H"), counts: []int{1}, after: 2 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.fill("p", tc.counts...)
			if tc.flush {
				if err := e.ms.Flush(context.Background(), 1); err != nil {
					t.Fatal(err)
				}
			}
			var size int64
			if list := e.indices("p"); len(list) > 0 {
				size = list[len(list)-1].Size
			}
			if tc.flush && size == 0 {
				t.Fatal("the flushed write index has no size")
			}
			id := e.set("rotating", "p", tc.writable, tc.rotation(size), indexsets.DeletionRetention, 100)
			before := names(e.indices("p"))
			actions, err := e.run(t0.Add(tc.after))
			if err != nil {
				t.Fatal(err)
			}
			after := e.indices("p")
			if tc.want == "" {
				wantActions(t, actions, nil)
				if !slices.Equal(names(after), before) {
					t.Errorf("indices %v, want them unchanged: %v", names(after), before)
				}
				return
			}
			wantActions(t, actions, []rotation.Action{{IndexSet: id, Index: tc.want, Kind: "rotated"}})
			if w := after[len(after)-1]; w.Name != tc.want || !w.Write || w.Count != 0 {
				t.Errorf("write index %+v, want the empty %s", w, tc.want)
			}
			if len(after) != len(before)+1 {
				t.Errorf("indices %v after rotating %v", names(after), before)
			}
		})
	}
}

// TestRetention checks which indices each retention strategy deletes.
func TestRetention(t *testing.T) {
	never := countRotation(1000)
	cases := []struct {
		name      string
		rotation  rot
		retention string
		keep      int
		counts    []int
		// closed and reopened are closed, or closed and reopened,
		// before the run.
		closed, reopened []string
		want             []rotation.Action // IndexSet is filled in
		left             []string
		leftClosed       []string
	}{
		{name: "deletion keeps max_number_of_indices", rotation: never, retention: indexsets.DeletionRetention, keep: 3,
			counts: []int{1, 1, 1, 1, 1},
			want:   []rotation.Action{{Index: "p_0", Kind: "deleted"}, {Index: "p_1", Kind: "deleted"}},
			left:   []string{"p_2", "p_3", "p_4"}},
		{name: "deletion keeps the write index", rotation: never, retention: indexsets.DeletionRetention, keep: 1,
			counts: []int{1, 1, 0},
			want:   []rotation.Action{{Index: "p_0", Kind: "deleted"}, {Index: "p_1", Kind: "deleted"}},
			left:   []string{"p_2"}},
		{name: "deletion at the limit", rotation: never, retention: indexsets.DeletionRetention, keep: 3,
			counts: []int{1, 1, 1}, left: []string{"p_0", "p_1", "p_2"}},
		{name: "deletion below the limit", rotation: never, retention: indexsets.DeletionRetention, keep: 5,
			counts: []int{1, 1, 1}, left: []string{"p_0", "p_1", "p_2"}},
		{name: "rotation first, then deletion", rotation: countRotation(1),
			retention: indexsets.DeletionRetention, keep: 3, counts: []int{1, 1, 2},
			want: []rotation.Action{{Index: "p_3", Kind: "rotated"}, {Index: "p_0", Kind: "deleted"}},
			left: []string{"p_1", "p_2", "p_3"}},
		{name: "closing closes the oldest beyond the limit", rotation: never, retention: indexsets.ClosingRetention, keep: 2,
			counts: []int{1, 1, 1, 1},
			want:   []rotation.Action{{Index: "p_0", Kind: "closed"}, {Index: "p_1", Kind: "closed"}},
			left:   []string{"p_0", "p_1", "p_2", "p_3"}, leftClosed: []string{"p_0", "p_1"}},
		{name: "closed indices are not counted", rotation: never, retention: indexsets.ClosingRetention, keep: 2,
			counts: []int{1, 1, 1, 1}, closed: []string{"p_0", "p_1"},
			left: []string{"p_0", "p_1", "p_2", "p_3"}, leftClosed: []string{"p_0", "p_1"}},
		{name: "deletion leaves reopened indices alone", rotation: never, retention: indexsets.DeletionRetention, keep: 2,
			counts: []int{1, 1, 1, 1, 1}, reopened: []string{"p_0"}, closed: []string{"p_3"},
			want: []rotation.Action{{Index: "p_1", Kind: "deleted"}},
			left: []string{"p_0", "p_2", "p_3", "p_4"}, leftClosed: []string{"p_3"}},
		{name: "noop deletes nothing", rotation: never, retention: indexsets.NoopRetention, keep: 1,
			counts: []int{1, 1, 1, 1}, left: []string{"p_0", "p_1", "p_2", "p_3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.fill("p", tc.counts...)
			id := e.set("retiring", "p", true, tc.rotation, tc.retention, tc.keep)
			for _, ix := range append(slices.Clone(tc.reopened), tc.closed...) {
				if err := e.ms.CloseIndex(context.Background(), ix); err != nil {
					t.Fatal(err)
				}
			}
			for _, ix := range tc.reopened {
				if err := e.ms.ReopenIndex(context.Background(), ix); err != nil {
					t.Fatal(err)
				}
			}
			actions, err := e.run(t0)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tc.want)
			for i := range want {
				want[i].IndexSet = id
			}
			wantActions(t, actions, want)
			left := e.indices("p")
			if got := names(left); !slices.Equal(got, tc.left) {
				t.Errorf("indices %v, want %v", got, tc.left)
			}
			var closed []string
			for _, ix := range left {
				if ix.Closed {
					closed = append(closed, ix.Name)
				}
			}
			if !slices.Equal(closed, tc.leftClosed) {
				t.Errorf("closed indices %v, want %v", closed, tc.leftClosed)
			}
		})
	}
}

// TestRunErrors checks that a failing index set does not stop the others
// and that the errors are joined, naming their index sets.
func TestRunErrors(t *testing.T) {
	t.Run("rotation fails for one index set", func(t *testing.T) {
		e := newEnv(t)
		a := e.set("a", "a", true, countRotation(1), indexsets.DeletionRetention, 10)
		b := e.set("b", "b", true, countRotation(1), indexsets.DeletionRetention, 10)
		e.fill("a", 2)
		e.fill("b", 2)
		// The seeded index sets have no index: a's rotation is the first
		// disk write of the run.
		e.failNth(1)
		actions, err := e.run(t0)
		wantActions(t, actions, []rotation.Action{{IndexSet: b, Index: "b_1", Kind: "rotated"}})
		if !errors.Is(err, errDisk) || !errors.Is(err, messages.ErrUnavailable) || !strings.Contains(err.Error(), "index set a (a)") {
			t.Errorf("error %v, want a's failure, naming it", err)
		}
		e.failNth(0)
		actions, err = e.run(t0)
		if err != nil {
			t.Fatal(err)
		}
		wantActions(t, actions, []rotation.Action{{IndexSet: a, Index: "a_1", Kind: "rotated"}})
	})
	t.Run("deletion fails for one index set", func(t *testing.T) {
		e := newEnv(t)
		never := countRotation(1000)
		e.set("a", "a", true, never, indexsets.DeletionRetention, 1)
		b := e.set("b", "b", true, never, indexsets.DeletionRetention, 1)
		e.fill("a", 1, 1, 1)
		e.fill("b", 1, 1)
		e.failNth(1)
		actions, err := e.run(t0)
		wantActions(t, actions, []rotation.Action{{IndexSet: b, Index: "b_0", Kind: "deleted"}})
		if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "deleting a_0") {
			t.Errorf("error %v, want a's failure to delete a_0", err)
		}
		// a stopped at its first failure; the next run finishes.
		if got := names(e.indices("a")); !slices.Equal(got, []string{"a_0", "a_1", "a_2"}) {
			t.Errorf("a's indices %v after the failed run", got)
		}
		if _, err := e.run(t0); err != nil {
			t.Fatal(err)
		}
		if got := names(e.indices("a")); !slices.Equal(got, []string{"a_2"}) {
			t.Errorf("a's indices %v after the second run", got)
		}
	})
	t.Run("every index set fails", func(t *testing.T) {
		e := newEnv(t)
		e.set("a", "a", true, countRotation(1), indexsets.DeletionRetention, 1)
		all, err := e.sets.All(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		e.ms.Close()
		actions, err := e.run(t0)
		wantActions(t, actions, nil)
		if !errors.Is(err, messages.ErrUnavailable) {
			t.Errorf("error %v, want ErrUnavailable", err)
		}
		for _, is := range all {
			if !strings.Contains(fmt.Sprint(err), fmt.Sprintf("index set %s (%s)", is.Title, is.IndexPrefix)) {
				t.Errorf("error %v does not name index set %s", err, is.Title)
			}
		}
	})
	t.Run("listing the index sets fails", func(t *testing.T) {
		e := newEnv(t)
		e.db.Close()
		actions, err := e.run(t0)
		if err == nil || actions != nil {
			t.Errorf("Run = %v, %v; want no actions and an error", actions, err)
		}
	})
}

// TestRetentionSkipsReadOnlyIndexSets checks that, as Graylog 4.0's
// IndexRetentionThread does, retention leaves the indices of an index set
// that is not writable alone: nothing is written to it, and its indices are
// kept however many there are.
func TestRetentionSkipsReadOnlyIndexSets(t *testing.T) {
	for _, class := range []string{indexsets.DeletionRetention, indexsets.ClosingRetention} {
		t.Run(class, func(t *testing.T) {
			e := newEnv(t)
			e.fill("p", 1, 1, 1, 1)
			e.set("read-only", "p", false, countRotation(1000), class, 1)
			actions, err := e.run(t0)
			if err != nil {
				t.Fatal(err)
			}
			wantActions(t, actions, nil)
			left := e.indices("p")
			if got := names(left); !slices.Equal(got, []string{"p_0", "p_1", "p_2", "p_3"}) {
				t.Errorf("indices %v, want all four kept", got)
			}
			for _, ix := range left {
				if ix.Closed {
					t.Errorf("%s was closed", ix.Name)
				}
			}
		})
	}
}
