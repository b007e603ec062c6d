package sidecars_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/internal/testclock"
)

// listHook runs after a listing of the Sidecars, as another node's write
// landing between the leader's reading and its writing.
type listHook struct {
	store.Store
	after func()
}

func (l *listHook) List(ctx context.Context, coll string, fn func(id string, doc []byte) error) error {
	err := l.Store.List(ctx, coll, fn)
	if coll == sidecars.SidecarsCollection && l.after != nil {
		after := l.after
		l.after = nil
		after()
	}
	return err
}

// A Sidecar whose heartbeat reaches another node while the leader purges
// is not marked inactive over it: the leader decides on the stored
// Sidecar, not on what it listed before.
func TestPurgeKeepsConcurrentHeartbeat(t *testing.T) {
	ctx := context.Background()
	clock := testclock.New(time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC))
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	other, err := sidecars.NewService(ctx, st, nil, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	hooked := &listHook{Store: st}
	leader, err := sidecars.NewService(ctx, hooked, nil, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	reg := func() {
		t.Helper()
		_, err := other.Register(ctx, "s1", sidecars.Registration{NodeName: "s1", Version: "1.0.2", NodeDetails: sidecars.NodeDetails{
			OperatingSystem: "linux",
			Status: &sidecars.StatusList{Status: sidecars.StatusRunning, Message: "m",
				Collectors: []sidecars.CollectorStatus{{CollectorID: "c1", Status: sidecars.StatusRunning}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	reg()
	clock.Advance(2 * time.Minute)
	hooked.after = reg
	marked, deleted, err := leader.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := leader.Sidecar(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if marked != 0 || deleted != 0 || sc.NodeDetails.Status.Status != sidecars.StatusRunning || !sc.LastSeen.Equal(clock.Now()) {
		t.Errorf("Purge: marked %d, deleted %d; Sidecar %+v seen %v, want running, seen now", marked, deleted, sc.NodeDetails.Status, sc.LastSeen)
	}
}
