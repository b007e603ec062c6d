package views_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
)

func TestPersistence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice := user(t, "alice", "dashboards:create", "default-view:set")
	w := e.Do(alice, "POST", "/views", viewBody(t, views.Dashboard, "Kept", nil))
	wantStatus(t, w, 200, "")
	created := w.Body.Bytes()
	id := decodeJSON[views.View](t, w).ID
	e.add("bob", views.Search, "Other", "")
	wantStatus(t, e.Do(alice, "PUT", "/views/"+id+"/default", ""), 204, "")

	e.reopen()

	g := e.Do(alice, "GET", "/views/"+id, "")
	wantStatus(t, g, 200, "")
	if !sameJSON(t, g.Body.Bytes(), created) {
		t.Fatalf("after reopening %s\nbefore %s", g.Body, created)
	}
	d := e.Do(alice, "GET", "/views/default", "")
	wantStatus(t, d, 200, "")
	if got := decodeJSON[views.View](t, d).ID; got != id {
		t.Fatalf("default %s after reopening, want %s", got, id)
	}
	l := decodeJSON[listing](t, e.Do(alice, "GET", "/views", ""))
	if l.Total != 1 || l.GrandTotal != 2 {
		t.Fatalf("listing after reopening: total %d, grand_total %d", l.Total, l.GrandTotal)
	}
	// Ownership survives too: alice may still edit and delete.
	wantStatus(t, e.Do(alice, "PUT", "/views/"+id, viewBody(t, views.Dashboard, "Edited", nil)), 200, "")
	wantStatus(t, e.Do(alice, "DELETE", "/views/"+id, ""), 200, "")
}

func TestCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	check := func(wantD, wantS int) {
		t.Helper()
		d, s, err := e.svc.Counts(ctx)
		if err != nil || d != wantD || s != wantS {
			t.Fatalf("Counts = %d, %d, %v; want %d, %d", d, s, err, wantD, wantS)
		}
	}
	check(0, 0)
	d1 := e.add("alice", views.Dashboard, "d1", "")
	e.add("alice", views.Dashboard, "d2", "")
	s1 := e.add("bob", views.Search, "s1", "")
	check(2, 1)
	if _, err := e.svc.Update(ctx, s1.ID, views.View{Type: views.Dashboard, Title: "now a dashboard", SearchID: "x"}); err != nil {
		t.Fatal(err)
	}
	check(3, 0)
	if _, err := e.svc.Delete(ctx, d1.ID); err != nil {
		t.Fatal(err)
	}
	check(2, 0)
}

func TestServiceNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for name, err := range map[string]error{
		"Get":     second(e.svc.Get(ctx, missingID)),
		"Update":  second(e.svc.Update(ctx, missingID, views.View{Type: views.Search, Title: "t", SearchID: "s"})),
		"Delete":  second(e.svc.Delete(ctx, missingID)),
		"Default": second(e.svc.Default(ctx)),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: %v, want store.ErrNotFound", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// failing is a store whose reads and writes fail with err.
type failing struct {
	store.Store
	err error
}

func (f failing) Get(context.Context, string, string) ([]byte, error) { return nil, f.err }
func (f failing) Insert(context.Context, string, string, []byte) error {
	return f.err
}
func (f failing) Put(context.Context, string, string, []byte) error { return f.err }
func (f failing) Update(context.Context, string, string, func([]byte) ([]byte, error)) error {
	return f.err
}
func (f failing) Delete(context.Context, string, string) error { return f.err }
func (f failing) List(context.Context, string, func(string, []byte) error) error {
	return f.err
}

func TestStoreFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		status int
		msg    string
	}{
		{fmt.Errorf("dial: %w", store.ErrUnavailable), 503, "The document store is unavailable; try again shortly. Details are in the server log."},
		{errors.New("disk on fire"), 500, "Internal error, see the server log"},
	}
	requests := []struct{ method, path, body string }{
		{"GET", "/views", ""},
		{"GET", "/dashboards", ""},
		{"GET", "/search/saved", ""},
		{"GET", "/views/" + missingID, ""},
		{"GET", "/views/default", ""},
		{"POST", "/views", "search"},
		{"PUT", "/views/" + missingID, "search"},
		{"PUT", "/views/" + missingID + "/default", ""},
		{"DELETE", "/views/" + missingID, ""},
	}
	for _, tt := range tests {
		for _, rq := range requests {
			t.Run(fmt.Sprintf("%d %s %s", tt.status, rq.method, rq.path), func(t *testing.T) {
				t.Parallel()
				e := newWrappedEnv(t, func(st store.Store) store.Store { return failing{Store: st, err: tt.err} })
				body := ""
				if rq.body != "" {
					body = viewBody(t, views.Search, "T", nil)
				}
				w := e.Do(user(t, "admin", "*"), rq.method, rq.path, body)
				wantStatus(t, w, tt.status, "")
				if got := errorText(t, w, ""); got != tt.msg {
					t.Fatalf("message %q, want %q", got, tt.msg)
				}
			})
		}
	}
	t.Run("Counts", func(t *testing.T) {
		t.Parallel()
		e := newWrappedEnv(t, func(st store.Store) store.Store { return failing{Store: st, err: store.ErrUnavailable} })
		if _, _, err := e.svc.Counts(context.Background()); !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("Counts: %v, want store.ErrUnavailable", err)
		}
	})
}

// TestDisownUser: a deleted user's views lose their owner; views of other
// users, a name differing in case among them, keep theirs.
func TestDisownUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gone := e.add("bob", views.Search, "Bob's", "")
	kept := e.add("Bob", views.Dashboard, "Another Bob's", "")
	other := e.add("alice", views.Search, "Alice's", "")
	if err := e.svc.DisownUser(context.Background(), "bob"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, want string
	}{{gone.ID, ""}, {kept.ID, "Bob"}, {other.ID, "alice"}} {
		v, err := e.svc.Get(context.Background(), c.id)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if v.Owner != nil {
			got = *v.Owner
		}
		if got != c.want {
			t.Errorf("view %s: owner %q, want %q", v.Title, got, c.want)
		}
	}
}

// TestDisownMissing: at start, views of owners that no longer exist lose
// their owner; the others keep theirs.
func TestDisownMissing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gone := e.add("zed", views.Search, "Zed's", "")
	kept := e.add("alice", views.Dashboard, "Alice's", "")
	exists := func(_ context.Context, name string) (bool, error) { return name == "alice", nil }
	if err := e.svc.DisownMissing(context.Background(), exists); err != nil {
		t.Fatal(err)
	}
	if v, _ := e.svc.Get(context.Background(), gone.ID); v.Owner != nil {
		t.Errorf("view of a missing owner still owned by %q", *v.Owner)
	}
	if v, _ := e.svc.Get(context.Background(), kept.ID); v.Owner == nil || *v.Owner != "alice" {
		t.Errorf("alice's view lost its owner: %v", v.Owner)
	}
	failing := func(context.Context, string) (bool, error) { return false, errors.New("store down") }
	if err := e.svc.DisownMissing(context.Background(), failing); err == nil {
		t.Error("DisownMissing with a failing lookup: no error")
	}
	if v, _ := e.svc.Get(context.Background(), kept.ID); v.Owner == nil {
		t.Error("a failing lookup disowned a view")
	}
}
