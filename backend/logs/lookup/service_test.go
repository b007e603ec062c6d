package lookup_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/internal/testclock"
	"github.com/loggate/loggate/router/api"
)

func component(title, name, config string) lookup.Component {
	return lookup.Component{Title: title, Name: name, Config: json.RawMessage(config)}
}

// fixture is a CSV-backed table "hosts" with a guava cache.
type fixture struct {
	svc            *lookup.Service
	adapter, cache lookup.Component
	table          lookup.Table
	csv            string
}

func newFixture(t testing.TB, st store.Store, clock *testclock.Clock) fixture {
	t.Helper()
	ctx := t.Context()
	f := fixture{svc: newService(t, st, clock), csv: filepath.Join(t.TempDir(), "hosts.csv")}
	writeFile(t, f.csv, "ip,host\n10.0.0.1,web-one\n10.0.0.2,web-two\n", epoch)
	var err error
	if f.adapter, err = f.svc.CreateComponent(ctx, lookup.Adapters, component("Hosts", "hosts-csv",
		`{"type":"csvfile","path":"`+f.csv+`","key_column":"ip","value_column":"host"}`)); err != nil {
		t.Fatal(err)
	}
	if f.cache, err = f.svc.CreateComponent(ctx, lookup.Caches, component("Cache", "hosts-cache", `{"type":"guava_cache"}`)); err != nil {
		t.Fatal(err)
	}
	if f.table, err = f.svc.CreateTable(ctx, lookup.Table{Title: "Hosts", Name: "hosts", CacheID: f.cache.ID, DataAdapterID: f.adapter.ID,
		DefaultSingleValue: "unknown", DefaultSingleValueType: "STRING"}); err != nil {
		t.Fatal(err)
	}
	return f
}

func wantAPIError(t *testing.T, err error, code api.Code, msg string) {
	t.Helper()
	if err == nil || api.ErrorCode(err) != code || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %v (code %v), want code %v with %q", err, api.ErrorCode(err), code, msg)
	}
}

// TestServiceContract runs the service on every document store: create,
// find by id and by name, look up with defaults, the refusals of 4.0
// (names taken, components in use, a body naming another entity), and a
// second node seeing the changes within a second.
func TestServiceContract(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			st := open(t)
			clock := testclock.New(epoch)
			f := newFixture(t, st, clock)
			svc := f.svc

			// Defaults filled in, as Graylog's config classes fill them.
			var cfg map[string]any
			_ = json.Unmarshal(f.adapter.Config, &cfg)
			if cfg["separator"] != "," || cfg["quotechar"] != `"` || cfg["check_interval"] != 60.0 || cfg["case_insensitive_lookup"] != false {
				t.Errorf("adapter config %s", f.adapter.Config)
			}
			if f.table.DefaultMultiValueType != "NULL" {
				t.Errorf("table %+v", f.table)
			}
			for _, idOrName := range []string{f.table.ID, "hosts"} {
				if got, err := svc.Table(ctx, idOrName); err != nil || got != f.table {
					t.Errorf("Table(%s) = %+v, %v", idOrName, got, err)
				}
			}
			if _, err := svc.Component(ctx, lookup.Caches, "hosts-csv"); api.ErrorCode(err) != api.NotFound {
				t.Errorf("a cache named as the adapter: %v", err)
			}

			r, err := svc.Lookup(ctx, "hosts", "10.0.0.1")
			want := lookup.Result{Single: "web-one", Multi: map[string]any{"value": "web-one"}, TTL: 1<<63 - 1}
			if err != nil || !reflect.DeepEqual(r, want) {
				t.Errorf("hit: %+v, %v", r, err)
			}
			r, _ = svc.Lookup(ctx, "hosts", "10.9.9.9")
			if r.Single != "unknown" || r.Multi["value"] != "unknown" || r.HasError {
				t.Errorf("miss with defaults: %+v", r)
			}
			if _, err := svc.Lookup(ctx, "nope", "k"); err == nil {
				t.Error("a table that does not exist answers")
			}

			_, err = svc.CreateComponent(ctx, lookup.Adapters, component("Again", "hosts-csv", `{"type":"mongodb"}`))
			wantAPIError(t, err, api.Invalid, "<hosts-csv> is already in use")
			_, err = svc.CreateComponent(ctx, lookup.Adapters, component("Geo", "geo", `{"type":"maxmind_geoip","path":"/x"}`))
			wantAPIError(t, err, api.Invalid, "Data adapter type <maxmind_geoip> is not available")
			_, err = svc.CreateComponent(ctx, lookup.Caches, component("C", "c", `{"type":"guava_cache","expire_after_write":5,"expire_after_write_unit":"FORTNIGHTS"}`))
			wantAPIError(t, err, api.Invalid, "expire_after_write_unit")
			_, err = svc.CreateTable(ctx, lookup.Table{Title: "T", Name: "t", CacheID: f.cache.ID, DataAdapterID: f.adapter.ID,
				DefaultSingleValue: "x", DefaultSingleValueType: "NUMBER"})
			wantAPIError(t, err, api.Invalid, "default_single_value")
			_, err = svc.CreateTable(ctx, lookup.Table{Title: "T", Name: "t", CacheID: "000000000000000000000000", DataAdapterID: f.adapter.ID})
			wantAPIError(t, err, api.Invalid, "cache_id")

			upd := f.table
			upd.Title = "Renamed"
			_, err = svc.UpdateTable(ctx, "other", upd)
			wantAPIError(t, err, api.Invalid, "URL parameter <other> does not match parameter in request body")
			if got, err := svc.UpdateTable(ctx, "hosts", upd); err != nil || got.Title != "Renamed" {
				t.Errorf("update: %+v, %v", got, err)
			}

			// A second node on the same store sees the change once its
			// refresh interval passed.
			other := newService(t, st, clock)
			other.Tables()
			newer := f.adapter
			newer.Title = "Hosts file"
			if _, err := svc.UpdateComponent(ctx, lookup.Adapters, f.adapter.ID, newer); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second)
			if err := other.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if got := other.Adapters(); len(got) != 1 || got[0].Title != "Hosts file" {
				t.Errorf("the other node sees %+v", got)
			}

			noop := func(string) error { return nil }
			_, err = svc.DeleteComponent(ctx, lookup.Adapters, "hosts-csv", noop)
			wantAPIError(t, err, api.Invalid, "The adapter is still in use, cannot delete.")
			_, err = svc.DeleteComponent(ctx, lookup.Caches, f.cache.ID, noop)
			wantAPIError(t, err, api.Invalid, "The cache is still in use, cannot delete.")
			if gone, err := svc.DeleteTable(ctx, "hosts", noop); err != nil || gone.ID != f.table.ID {
				t.Fatalf("delete table: %+v, %v", gone, err)
			}
			if _, err := svc.DeleteComponent(ctx, lookup.Adapters, "hosts-csv", noop); err != nil {
				t.Error(err)
			}
			if _, err := svc.DeleteComponent(ctx, lookup.Caches, "hosts-cache", noop); err != nil {
				t.Error(err)
			}
			_, err = svc.DeleteTable(ctx, "hosts", noop)
			wantAPIError(t, err, api.NotFound, "HTTP 404 Not Found")
			if len(svc.Tables())+len(svc.Adapters())+len(svc.Caches()) != 0 {
				t.Error("something is left")
			}
		})
	}
}

// TestWritableTable: the lookup_* write functions' service calls on the
// document-store adapter, seen by another node on the same store.
func TestWritableTable(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			st := open(t)
			clock := testclock.New(epoch)
			svc := newService(t, st, clock)
			kv, err := svc.CreateComponent(ctx, lookup.Adapters, component("KV", "kv", `{"type":"mongodb"}`))
			if err != nil {
				t.Fatal(err)
			}
			c, err := svc.CreateComponent(ctx, lookup.Caches, component("Cache", "c", `{"type":"guava_cache","max_size":10}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateTable(ctx, lookup.Table{Title: "Seen", Name: "seen", CacheID: c.ID, DataAdapterID: kv.ID}); err != nil {
				t.Fatal(err)
			}
			if v, err := svc.SetValue(ctx, "seen", "k", int64(42)); err != nil || v != "42" {
				t.Fatalf("set: %v, %v", v, err)
			}
			if r, _ := svc.Lookup(ctx, "seen", "k"); r.Single != "42" {
				t.Errorf("after set: %+v", r)
			}
			steps := []struct {
				do   func() ([]string, error)
				want []string
			}{
				{func() ([]string, error) { return svc.SetStringList(ctx, "seen", "l", []string{"a", "b"}) }, []string{"a", "b"}},
				{func() ([]string, error) { return svc.AddStringList(ctx, "seen", "l", []string{"b", "c"}, false) }, []string{"a", "b", "c"}},
				{func() ([]string, error) { return svc.AddStringList(ctx, "seen", "l", []string{"a"}, true) }, []string{"a", "b", "c", "a"}},
				{func() ([]string, error) { return svc.RemoveStringList(ctx, "seen", "l", []string{"a"}) }, []string{"b", "c"}},
				{func() ([]string, error) { return svc.AddStringList(ctx, "seen", "new", []string{"x"}, false) }, []string{"x"}},
			}
			for i, s := range steps {
				got, err := s.do()
				if err != nil || !reflect.DeepEqual(got, s.want) {
					t.Errorf("step %d: %v, %v; want %v", i, got, err, s.want)
				}
			}
			// The cache in front was purged by each write.
			if r, _ := svc.Lookup(ctx, "seen", "l"); !reflect.DeepEqual(r.StringList, []string{"b", "c"}) || r.Single != "b,c" {
				t.Errorf("list: %+v", r)
			}
			other := newService(t, st, clock)
			if r, _ := other.Lookup(ctx, "seen", "new"); !reflect.DeepEqual(r.StringList, []string{"x"}) {
				t.Errorf("the other node reads %+v", r)
			}
			// The other node cached "new"; a write here reaches it once its
			// refresh interval passed.
			if _, err := svc.SetStringList(ctx, "seen", "new", []string{"y"}); err != nil {
				t.Fatal(err)
			}
			if r, _ := other.Lookup(ctx, "seen", "new"); !reflect.DeepEqual(r.StringList, []string{"x"}) {
				t.Errorf("the other node's cache was dropped before the interval: %+v", r)
			}
			clock.Advance(time.Second)
			if r, _ := other.Lookup(ctx, "seen", "new"); !reflect.DeepEqual(r.StringList, []string{"y"}) {
				t.Errorf("the other node reads %+v after the interval", r)
			}
			if err := svc.ClearKey(ctx, "seen", "k"); err != nil {
				t.Fatal(err)
			}
			if r, _ := svc.Lookup(ctx, "seen", "k"); !r.Empty() {
				t.Errorf("after clear: %+v", r)
			}

			csv, err := svc.CreateComponent(ctx, lookup.Adapters, component("CSV", "csv",
				`{"type":"csvfile","path":"/nonexistent.csv","key_column":"k","value_column":"v"}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateTable(ctx, lookup.Table{Title: "RO", Name: "ro", CacheID: c.ID, DataAdapterID: csv.ID}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SetValue(ctx, "ro", "k", "v"); err == nil || !strings.Contains(err.Error(), "not writable") {
				t.Errorf("a write to a CSV table: %v", err)
			}
			// The file is missing: lookups fail, and the error states say why.
			if r, _ := svc.Lookup(ctx, "ro", "k"); !r.HasError {
				t.Errorf("lookup in a missing file: %+v", r)
			}
			states := svc.ErrorStates([]string{"ro", "seen", "nope"}, []string{"c"}, []string{"csv"})
			if msg := states["data_adapters"]["csv"]; msg == nil || !strings.Contains(*msg, "/nonexistent.csv") {
				t.Errorf("adapter error state %v", msg)
			}
			if states["tables"]["seen"] != nil || states["tables"]["ro"] == nil || len(states["tables"]) != 2 {
				t.Errorf("table error states %v", states["tables"])
			}
		})
	}
}

// TestLookupsDuringChanges: lookups go on while the definitions change
// (run with -race: the running state is replaced, never changed).
func TestLookupsDuringChanges(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t, embedded(t), testclock.New(epoch))
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-done:
				return
			default:
			}
			if r, err := f.svc.Lookup(ctx, "hosts", "10.0.0.1"); err != nil || r.Single != "web-one" {
				errs <- fmt.Errorf("lookup during a change: %+v, %v", r, err)
				return
			}
		}
	}()
	for i := range 20 {
		a := f.adapter
		a.Title = fmt.Sprint("title ", i)
		if _, err := f.svc.UpdateComponent(ctx, lookup.Adapters, a.ID, a); err != nil {
			t.Fatal(err)
		}
		c := f.cache
		c.Config = json.RawMessage(fmt.Sprintf(`{"type":"guava_cache","max_size":%d}`, 10+i))
		if _, err := f.svc.UpdateComponent(ctx, lookup.Caches, c.ID, c); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	if err := <-errs; err != nil {
		t.Error(err)
	}
}
