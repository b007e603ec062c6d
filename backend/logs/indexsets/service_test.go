package indexsets_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/routertest"
)

func TestSeed(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	events, system, err := e.svc.Builtin(ctx)
	if err != nil || events == "" || system == "" || events == system {
		t.Fatalf("Builtin = %q, %q, %v", events, system, err)
	}
	for _, tt := range []struct {
		id, title, prefix string
	}{
		{e.ids["default"], "Default index set", "graylog"},
		{events, "Graylog Events", "gl-events"},
		{system, "Graylog System Events", "gl-system-events"},
	} {
		is, err := e.svc.Get(ctx, tt.id)
		if err != nil || is.Title != tt.title || is.IndexPrefix != tt.prefix || !is.Writable {
			t.Errorf("Get(%s) = %+v, %v", tt.id, is, err)
		}
	}
	ev, _ := e.svc.Get(ctx, events)
	if ev.IndexTemplateName != "gl-events-template" || *ev.IndexTemplateType != indexsets.TemplateEvents ||
		ev.RotationStrategy.RotationPeriod.String() != "P1M" || ev.RetentionStrategy.MaxNumberOfIndices != 12 {
		t.Errorf("events index set %+v", ev)
	}
	def, _ := e.svc.Get(ctx, e.ids["default"])
	if def.IndexTemplateName != "graylog-internal" || def.Shards != 4 {
		t.Errorf("default index set %+v", def)
	}
}

// reopen closes the env's store and starts a new service on the same file,
// as a restart does.
func reopen(t *testing.T, e *env) *indexsets.Service {
	t.Helper()
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	e.st = openStore(t, e.path)
	svc, err := indexsets.NewService(t.Context(), e.st, e.streams, e.stats, clock)
	if err != nil {
		t.Fatalf("NewService after restart: %v", err)
	}
	return svc
}

func TestRestart(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if rec := e.do("PUT", "/system/indices/index_sets/{custom}/default", "", all); rec.Code != http.StatusOK {
		t.Fatalf("PUT default: %d %s", rec.Code, rec.Body)
	}
	// The seeded default may go once it is no longer the default: a
	// restart must not bring it back.
	if err := e.svc.Delete(ctx, e.ids["default"], true); err != nil {
		t.Fatal(err)
	}
	before, err := e.svc.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	events, system, _ := e.svc.Builtin(ctx)

	svc := reopen(t, e)
	after, err := svc.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(before, after, func(a, b indexsets.IndexSet) bool { return a.ID == b.ID && a.Title == b.Title }) {
		t.Errorf("after a restart %d index sets, before %d", len(after), len(before))
	}
	if def, err := svc.DefaultID(ctx); err != nil || def != e.ids["custom"] {
		t.Errorf("default after restart = %s, %v; want %s", def, err, e.ids["custom"])
	}
	e.h = routertest.Handler(indexsets.NewHandler(svc).Routes())
	if got := routertest.Decode[indexsets.Summary](t, e.do("GET", "/system/indices/index_sets/{custom}", "", all)); !got.Default {
		t.Errorf("after a restart the moved default is not marked default: %+v", got)
	}
	if ev, sys, err := svc.Builtin(ctx); err != nil || ev != events || sys != system {
		t.Errorf("Builtin after restart = %s, %s, %v", ev, sys, err)
	}
	if n, err := svc.Count(ctx); err != nil || n != 4 {
		t.Errorf("Count = %d, %v; want 4", n, err)
	}
}

func TestRestartRecreatesDeletedEventsIndexSet(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.svc.SetStreams(nil)
	if err := e.svc.Delete(ctx, e.ids["system"], true); err != nil {
		t.Fatal(err)
	}
	svc := reopen(t, e)
	_, system, err := svc.Builtin(ctx)
	if err != nil || system == e.ids["system"] {
		t.Fatalf("Builtin = %s, %v; want a new system events index set", system, err)
	}
	if is, err := svc.Get(ctx, system); err != nil || is.IndexPrefix != "gl-system-events" {
		t.Errorf("Get = %+v, %v", is, err)
	}
	if n, _ := svc.Count(ctx); n != 5 {
		t.Errorf("Count = %d, want 5", n)
	}
}

// TestSeedAdoptsExisting: a first start that stored the index sets but
// crashed before the marker is finished by the next, not repeated.
func TestSeedAdoptsExisting(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	for _, key := range []string{"seed", "default"} {
		if err := e.st.Delete(ctx, indexsets.ConfigCollection, key); err != nil {
			t.Fatal(err)
		}
	}
	svc := reopen(t, e)
	if n, _ := svc.Count(ctx); n != 5 {
		t.Errorf("Count = %d, want the 5 there were", n)
	}
	if def, err := svc.DefaultID(ctx); err != nil || def != e.ids["default"] {
		t.Errorf("DefaultID = %s, %v; want the adopted %s", def, err, e.ids["default"])
	}
	if ev, sys, _ := svc.Builtin(ctx); ev != e.ids["events"] || sys != e.ids["system"] {
		t.Errorf("Builtin = %s, %s", ev, sys)
	}
}

func TestSeedRefusesForeignEventsPrefix(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.svc.SetStreams(nil)
	if err := e.svc.Delete(ctx, e.ids["events"], true); err != nil {
		t.Fatal(err)
	}
	// A messages index set takes the events prefix meanwhile.
	e.create("Impostor", "gl-events", true)
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	e.st = openStore(t, e.path)
	_, err := indexsets.NewService(ctx, e.st, nil, nil, clock)
	if err == nil || !strings.Contains(err.Error(), `a non-events index set with prefix "gl-events" already exists`) {
		t.Errorf("NewService = %v", err)
	}
}

func TestConsumerAPI(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	for _, tt := range []struct {
		id       string
		writable bool
		err      error
	}{
		{e.ids["custom"], true, nil},
		{e.ids["archive"], false, nil},
		{strings.ToUpper(e.ids["archive"]), false, nil},
		{"5f0000000000000000000000", false, store.ErrNotFound},
		{"not-an-id", false, store.ErrNotFound},
		{"", false, store.ErrNotFound},
	} {
		w, err := e.svc.Writable(ctx, tt.id)
		if w != tt.writable || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("Writable(%q) = %v, %v; want %v, %v", tt.id, w, err, tt.writable, tt.err)
		}
	}
	all, err := e.svc.All(ctx)
	if err != nil || len(all) != 5 || all[0].Title != "Archive" {
		t.Errorf("All = %d sets, %v", len(all), err)
	}
	if n, err := e.svc.Count(ctx); err != nil || n != 5 {
		t.Errorf("Count = %d, %v", n, err)
	}
}

func TestBrokenDefault(t *testing.T) {
	e := newEnv(t)
	if err := e.st.Put(t.Context(), indexsets.ConfigCollection, "default", []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.DefaultID(t.Context()); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("DefaultID = %v; want an error that is not a 404", err)
	}
	routertest.WantError(t, e.do("GET", "/system/indices/index_sets", "", all), http.StatusInternalServerError, "Internal error")
}

// TestConcurrentCreate: of two index sets whose prefixes conflict, created
// at once, exactly one is stored.
func TestConcurrentCreate(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	errs := make(chan error, 2)
	for _, p := range []string{"web", "webserver"} {
		go func() {
			is := mustIndexSet(t, p)
			_, err := e.svc.Create(ctx, is)
			errs <- err
		}()
	}
	var failed int
	for range 2 {
		if err := <-errs; err != nil {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d of 2 creations failed, want 1", failed)
	}
}

func mustIndexSet(t testing.TB, prefix string) indexsets.IndexSet {
	t.Helper()
	var req indexsets.CreateRequest
	if err := decodeInto(body(map[string]any{"index_prefix": prefix}), &req); err != nil {
		t.Error(err)
	}
	is, err := req.IndexSet(clock())
	if err != nil {
		t.Error(err)
	}
	return is
}
