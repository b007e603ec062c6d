package streams_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

func TestRestartKeepsEverything(t *testing.T) {
	e := newEnv(t)
	e.outs.add(outputA, "A")
	id := e.createStream(map[string]any{"title": "Kept", "matching_type": "OR", "rules": []map[string]any{{"type": 1, "field": "a", "value": "b"}}})
	rid := e.createRule(id, map[string]any{"type": 2, "field": "message", "value": "x+"})
	e.do(admin, "POST", "/streams/"+id+"/outputs", map[string]any{"outputs": []string{outputA}}).want(t, http.StatusAccepted)
	e.do(admin, "POST", "/streams/"+id+"/resume", nil).want(t, http.StatusNoContent)
	before := e.do(admin, "GET", "/streams", nil).want(t, http.StatusOK).Body.String()
	calls := e.ix.calls

	e.restart()
	after := e.do(admin, "GET", "/streams", nil).want(t, http.StatusOK).Body.String()
	if before != after {
		t.Errorf("after restart\n%s\nbefore\n%s", after, before)
	}
	if n := e.count(); n != 4 {
		t.Errorf("%d streams stored after restart, want 4: the built-in ones are not duplicated", n)
	}
	if e.ix.calls != calls {
		t.Errorf("restart asked the index sets again for the built-in streams' index sets")
	}
	if got := e.do(admin, "GET", "/streams/"+id+"/rules/"+rid, nil).want(t, http.StatusOK).get("value").String(); got != "x+" {
		t.Errorf("rule value after restart %q", got)
	}
	// The compiled rules came back too.
	st, err := e.svc.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Matches(map[string]any{"message": "xx"}) || st.Matches(map[string]any{"message": "y"}) {
		t.Error("the restarted stream does not match as before")
	}
}

func TestSeedKeepsChangedBuiltins(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.AddOutput(context.Background(), streams.DefaultStreamID, outputA); err != nil {
		t.Fatal(err)
	}
	e.restart()
	st, err := e.svc.Get(streams.DefaultStreamID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Outputs, []string{outputA}) {
		t.Errorf("the default stream's outputs after restart: %v", st.Outputs)
	}
}

func TestNewServiceErrors(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := newIndexSets()
	ix.err = errors.New("index sets down")
	outs := &fakeOutputs{}
	if _, err := streams.NewService(context.Background(), st, ix, outs, time.Now); err == nil || !errors.Is(err, ix.err) {
		t.Errorf("NewService with failing index sets: %v", err)
	}
	if n, _ := st.Count(context.Background(), streams.Collection); n != 0 {
		t.Errorf("%d streams stored by a failed start", n)
	}
	ix.err = nil
	if _, err := streams.NewService(context.Background(), st, ix, outs, time.Now); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(context.Background(), streams.Collection, "5f0000000000000000000001", []byte(`{"title":[]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := streams.NewService(context.Background(), st, ix, outs, time.Now); err == nil {
		t.Error("NewService loaded a corrupt stream")
	}
}

func TestReloadSeesOtherNodes(t *testing.T) {
	e := newEnv(t)
	// A second service on the same store plays another node.
	other, err := streams.NewService(context.Background(), e.st, e.ix, e.outs, func() time.Time { return epoch })
	if err != nil {
		t.Fatal(err)
	}
	st := &streams.Stream{Title: "From elsewhere", IndexSetID: defaultSet, MatchingType: streams.MatchAnd}
	if err := other.Create(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Get(st.ID); err == nil {
		t.Fatal("the snapshot changed without a reload")
	}
	if err := e.svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.Get(st.ID); err != nil || got.Title != "From elsewhere" {
		t.Fatalf("after reload: %v, %v", got, err)
	}
	// A stream deleted by the other node is a 404 here, and leaves the
	// snapshot on the first write attempt.
	if err := other.Delete(context.Background(), st.ID); err != nil {
		t.Fatal(err)
	}
	e.do(admin, "POST", "/streams/"+st.ID+"/pause", nil).wantError(t, http.StatusNotFound, "Stream <"+st.ID+"> not found!")
	e.do(admin, "GET", "/streams/"+st.ID, nil).want(t, http.StatusNotFound)
}

func TestOutputLinks(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.createStream(map[string]any{"title": "A"})
	b := e.createStream(map[string]any{"title": "B"})
	for _, id := range []string{a, b, streams.DefaultStreamID} {
		if err := e.svc.AddOutput(ctx, id, outputA); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.svc.AddOutput(ctx, a, outputB); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.AddOutput(ctx, unknownID, outputA); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AddOutput to an unknown stream: %v, want store.ErrNotFound", err)
	}
	if err := e.svc.AddOutput(ctx, "junk", outputA); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AddOutput to a malformed id: %v, want store.ErrNotFound", err)
	}
	if err := e.svc.RemoveOutput(ctx, outputA); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][]string{a: {outputB}, b: {}, streams.DefaultStreamID: {}} {
		st, _ := e.svc.Get(id)
		if !slices.Equal(st.Outputs, want) {
			t.Errorf("stream %s outputs %v, want %v", id, st.Outputs, want)
		}
	}
	// And in the store, not just in the snapshot.
	e.restart()
	if st, _ := e.svc.Get(a); !slices.Equal(st.Outputs, []string{outputB}) {
		t.Errorf("stored outputs %v", st.Outputs)
	}
}

func TestUsingIndexSetAndStats(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.createStream(map[string]any{"title": "A", "index_set_id": otherSet, "rules": []map[string]any{{"type": 7}, {"type": 5, "field": "x"}}})
	b := e.createStream(map[string]any{"title": "B", "index_set_id": otherSet})
	e.createRule(b, map[string]any{"type": 7})
	ids, err := e.svc.UsingIndexSet(ctx, otherSet)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	want := []string{a, b}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("UsingIndexSet(other) = %v, want %v", ids, want)
	}
	if ids, _ := e.svc.UsingIndexSet(ctx, defaultSet); !slices.Equal(ids, []string{streams.DefaultStreamID}) {
		t.Errorf("UsingIndexSet(default) = %v", ids)
	}
	if ids, _ := e.svc.UsingIndexSet(ctx, "nothing"); len(ids) != 0 {
		t.Errorf("UsingIndexSet(nothing) = %v", ids)
	}
	n, rules, byStream, err := e.svc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 || rules != 3 || byStream[a] != 2 || byStream[b] != 1 || len(byStream) != 5 {
		t.Errorf("Stats = %d streams, %d rules, %v", n, rules, byStream)
	}
	if all := e.svc.All(); len(all) != 5 || all[0].Title != "A" {
		t.Errorf("All: %d streams, first %q", len(all), all[0].Title)
	}
}

// TestConcurrentWrites runs writers and readers at once; -race checks the
// snapshot handling, and every write must be in the final snapshot.
func TestConcurrentWrites(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const writers, each = 4, 5
	var wg sync.WaitGroup
	ids := make(chan string, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				st := &streams.Stream{Title: fmt.Sprintf("w%d-%d", w, i), IndexSetID: defaultSet}
				if err := e.svc.Create(ctx, st); err != nil {
					t.Error(err)
					return
				}
				if _, err := e.svc.AddRule(ctx, st.ID, streams.Rule{Type: streams.RuleAlways}); err != nil {
					t.Error(err)
				}
				ids <- st.ID
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 50 {
			for _, st := range e.svc.All() {
				st.Matches(map[string]any{"a": "b"})
			}
			if r := e.do(admin, "GET", "/streams/paginated?per_page=3", nil); r.Code != http.StatusOK {
				t.Errorf("paginated: %d %s", r.Code, r.Body)
			}
		}
	}()
	wg.Wait()
	close(ids)
	for id := range ids {
		st, err := e.svc.Get(id)
		if err != nil || len(st.Rules) != 1 || !st.Matches(nil) {
			t.Errorf("stream %s: %v, %v", id, st, err)
		}
	}
	if n := len(e.svc.All()); n != 3+writers*each {
		t.Errorf("%d streams in the snapshot, want %d", n, 3+writers*each)
	}
}

func TestCreateValidates(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cases := []*streams.Stream{
		{IndexSetID: defaultSet},
		{Title: "T", IndexSetID: defaultSet, MatchingType: "XOR"},
		{Title: "T", IndexSetID: defaultSet, Rules: []streams.Rule{{Type: 0}}},
		{Title: "T", IndexSetID: "gone"},
	}
	for _, st := range cases {
		if err := e.svc.Create(ctx, st); err == nil {
			t.Errorf("Create(%+v) succeeded", st)
		}
	}
	if _, err := e.svc.AddRule(ctx, streams.DefaultStreamID, streams.Rule{Type: 99}); err == nil {
		t.Error("AddRule of type 99 succeeded")
	}
	if n := e.count(); n != 3 {
		t.Errorf("%d streams stored", n)
	}
}
