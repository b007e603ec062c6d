package lookup_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/internal/testclock"
	"github.com/loggate/loggate/router/routertest"
)

type handlerEnv struct {
	routertest.Client
	f fixture
}

func newHandlerEnv(t *testing.T) handlerEnv {
	t.Helper()
	f := newFixture(t, embedded(t), testclock.New(epoch))
	return handlerEnv{Client: routertest.Client{H: routertest.Handler(lookup.NewHandler(f.svc).Routes())}, f: f}
}

// body checks the status and returns the parsed body.
func body(t *testing.T, rec *httptest.ResponseRecorder, status int) gjson.Result {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	return gjson.Parse(rec.Body.String())
}

// TestHandlerShapes: the listings, single entities, validation answers,
// types and lookups in Graylog 4.0's shapes.
func TestHandlerShapes(t *testing.T) {
	e := newHandlerEnv(t)
	second := `{"title":"Zones","name":"zones","cache_id":"` + e.f.cache.ID + `","data_adapter_id":"` + e.f.adapter.ID + `"}`
	zones := body(t, e.Admin("POST", "/system/lookup/tables", second), http.StatusOK)
	if zones.Get("default_single_value_type").String() != "NULL" || zones.Get("id").String() == "" || zones.Get("content_pack").Type != gjson.Null {
		t.Errorf("created: %s", zones.Raw)
	}

	list := body(t, e.Admin("GET", "/system/lookup/tables", ""), http.StatusOK)
	if list.Get("lookup_tables.#.name").Raw != `["zones","hosts"]` || list.Get("total").Int() != 2 || list.Get("per_page").Int() != 50 ||
		list.Get("caches").Raw != "{}" || list.Get("data_adapters").Raw != "{}" || list.Get("query").Raw != `""` {
		t.Errorf("list (by title, descending): %s", list.Raw)
	}
	if got := body(t, e.Admin("GET", "/system/lookup/tables?sort=nope&order=asc", ""), http.StatusOK).Get("lookup_tables.#.name").Raw; got != `["hosts","zones"]` {
		t.Errorf("an unknown sort field sorts by title: %s", got)
	}
	list = body(t, e.Admin("GET", "/system/lookup/tables?resolve=true&query=name:hosts&order=asc", ""), http.StatusOK)
	if list.Get("lookup_tables.#").Int() != 1 || list.Get("caches."+e.f.cache.ID+".name").String() != "hosts-cache" ||
		list.Get("data_adapters."+e.f.adapter.ID+".config.type").String() != "csvfile" {
		t.Errorf("resolved: %s", list.Raw)
	}
	for _, idOrName := range []string{"hosts", e.f.table.ID} {
		one := body(t, e.Admin("GET", "/system/lookup/tables/"+idOrName, ""), http.StatusOK)
		if one.Get("lookup_tables.0.name").String() != "hosts" || one.Get("total").Int() != 1 || one.Get("per_page").Int() != 1 || one.Get("query").Type != gjson.Null {
			t.Errorf("one table: %s", one.Raw)
		}
	}
	routertest.WantError(t, e.Admin("GET", "/system/lookup/tables/nope", ""), http.StatusNotFound, "HTTP 404 Not Found")

	caches := body(t, e.Admin("GET", "/system/lookup/caches", ""), http.StatusOK)
	if caches.Get("caches.0.config.max_size").Int() != 1000 || caches.Get("caches.0.config.expire_after_access_unit").String() != "SECONDS" || caches.Get("total").Int() != 1 {
		t.Errorf("caches: %s", caches.Raw)
	}
	adapter := body(t, e.Admin("GET", "/system/lookup/adapters/hosts-csv", ""), http.StatusOK)
	if adapter.Get("id").String() != e.f.adapter.ID || adapter.Get("config.key_column").String() != "ip" {
		t.Errorf("adapter: %s", adapter.Raw)
	}

	v := body(t, e.Admin("POST", "/system/lookup/tables/validate", `{"title":"x","name":"hosts","default_single_value":"x","default_single_value_type":"NUMBER"}`), http.StatusOK)
	if !v.Get("failed").Bool() || v.Get("errors.name.0").String() != "The lookup table name is already in use." || !v.Get("errors.default_single_value").Exists() {
		t.Errorf("table validation: %s", v.Raw)
	}
	v = body(t, e.Admin("POST", "/system/lookup/tables/validate", `{"id":"`+e.f.table.ID+`","title":"x","name":"hosts"}`), http.StatusOK)
	if !routertest.SameJSON(t, []byte(v.Raw), []byte(`{"errors":{},"failed":false}`)) {
		t.Errorf("an update's own name: %s", v.Raw)
	}
	v = body(t, e.Admin("POST", "/system/lookup/adapters/validate", `{"title":"x","name":"y","config":{"type":"csvfile","path":"`+filepath.Join(t.TempDir(), "none.csv")+`","key_column":"a","value_column":"b","check_interval":0}}`), http.StatusOK)
	if v.Get("errors.path.0").String() != "The file does not exist." || !v.Get("errors.check_interval").Exists() {
		t.Errorf("adapter validation: %s", v.Raw)
	}
	v = body(t, e.Admin("POST", "/system/lookup/caches/validate", `{"title":"x","name":"hosts-cache","config":{"type":"none"}}`), http.StatusOK)
	if v.Get("errors.name.0").String() != "The cache name is already in use." {
		t.Errorf("cache validation: %s", v.Raw)
	}
	for _, path := range []string{"/system/lookup/adapters", "/system/lookup/adapters/validate"} {
		routertest.WantError(t, e.Admin("POST", path, `{"title":"Geo","name":"geo","config":{"type":"maxmind_geoip","path":"/x.mmdb"}}`),
			http.StatusBadRequest, "Data adapter type <maxmind_geoip> is not available in loggate: it needs data from outside (a database, a feed or a service) that loggate does not have")
	}

	types := body(t, e.Admin("GET", "/system/lookup/types/adapters", ""), http.StatusOK)
	var names []string
	types.ForEach(func(k, _ gjson.Result) bool { names = append(names, k.String()); return true })
	if strings.Join(names, ",") != "csvfile,dnslookup,dsvhttp,httpjsonpath,mongodb" || types.Get("csvfile.default_config.check_interval").Int() != 60 ||
		types.Get("csvfile.config_class").String() != "org.graylog2.lookup.adapters.CSVFileDataAdapter$Config" {
		t.Errorf("adapter types: %s", types.Raw)
	}
	if got := body(t, e.Admin("GET", "/system/lookup/types/caches", ""), http.StatusOK).Get("guava_cache.default_config.max_size").Int(); got != 1000 {
		t.Errorf("cache types: max_size %d", got)
	}

	q := body(t, e.Admin("GET", "/system/lookup/tables/hosts/query?key=10.0.0.1", ""), http.StatusOK)
	if !routertest.SameJSON(t, []byte(q.Raw), []byte(`{"has_error":false,"multi_value":{"value":"web-one"},"single_value":"web-one","string_list_value":null,"ttl":9223372036854775807}`)) {
		t.Errorf("query: %s", q.Raw)
	}
	routertest.WantError(t, e.Admin("GET", "/system/lookup/tables/nope/query?key=1", ""), http.StatusNotFound, "Lookup table <nope> not found")
	if got := body(t, e.Admin("GET", "/system/lookup/adapters/hosts-csv/query?key=10.0.0.2", ""), http.StatusOK).Get("single_value").String(); got != "web-two" {
		t.Errorf("adapter query: %s", got)
	}
	routertest.WantError(t, e.Admin("GET", "/system/lookup/adapters/nope/query?key=1", ""), http.StatusNotFound, "Unable to find data adapter nope")
	routertest.WantStatus(t, e.Admin("POST", "/system/lookup/tables/hosts/purge?key=10.0.0.1", ""), http.StatusNoContent)
	routertest.WantStatus(t, e.Admin("POST", "/system/lookup/tables/"+e.f.table.ID+"/purge", ""), http.StatusNoContent)
	routertest.WantError(t, e.Admin("POST", "/system/lookup/tables/nope/purge", ""), http.StatusNotFound, "Lookup table <nope> not found")

	states := body(t, e.Admin("POST", "/system/lookup/errorstates", `{"tables":["hosts","nope"],"caches":["hosts-cache"],"data_adapters":["hosts-csv"]}`), http.StatusOK)
	if !routertest.SameJSON(t, []byte(states.Raw), []byte(`{"caches":{"hosts-cache":null},"data_adapters":{"hosts-csv":null},"tables":{"hosts":null}}`)) {
		t.Errorf("error states: %s", states.Raw)
	}

	upd := strings.Replace(second, `"title":"Zones"`, `"id":"`+zones.Get("id").String()+`","title":"Zones 2"`, 1)
	routertest.WantError(t, e.Admin("PUT", "/system/lookup/tables/hosts", upd), http.StatusBadRequest, "URL parameter <hosts> does not match parameter in request body")
	if got := body(t, e.Admin("PUT", "/system/lookup/tables/zones", upd), http.StatusOK).Get("title").String(); got != "Zones 2" {
		t.Errorf("updated title %q", got)
	}
	routertest.WantError(t, e.Admin("DELETE", "/system/lookup/caches/hosts-cache", ""), http.StatusBadRequest, "The cache is still in use, cannot delete.")
	if got := body(t, e.Admin("DELETE", "/system/lookup/tables/zones", ""), http.StatusOK).Get("name").String(); got != "zones" {
		t.Errorf("deleted %q", got)
	}
}

// TestHandlerPermissions: lookuptables:read/create/edit/delete as Graylog
// checks them, the instance ones once the entity is found.
func TestHandlerPermissions(t *testing.T) {
	e := newHandlerEnv(t)
	id := e.f.table.ID
	reader := routertest.Principal(t, "lookuptables:read")
	one := routertest.Principal(t, "lookuptables:read:"+id, "lookuptables:edit:"+id)
	cases := []struct {
		who          string
		p            *auth.Principal
		method, path string
		body         string
		status       int
	}{
		{"anonymous", nil, "GET", "/system/lookup/tables", "", http.StatusUnauthorized},
		{"reader", reader, "GET", "/system/lookup/tables", "", http.StatusOK},
		{"reader", reader, "GET", "/system/lookup/tables/hosts/query?key=1", "", http.StatusOK},
		{"reader", reader, "POST", "/system/lookup/tables", `{"title":"t","name":"t"}`, http.StatusForbidden},
		{"reader", reader, "DELETE", "/system/lookup/tables/hosts", "", http.StatusForbidden},
		{"reader", reader, "DELETE", "/system/lookup/adapters/hosts-csv", "", http.StatusForbidden},
		{"one table", one, "GET", "/system/lookup/tables/hosts", "", http.StatusOK},
		{"one table", one, "GET", "/system/lookup/tables", "", http.StatusForbidden},
		{"one table", one, "GET", "/system/lookup/caches/hosts-cache", "", http.StatusForbidden},
		{"one table", one, "PUT", "/system/lookup/tables/hosts", `{"id":"` + id + `","title":"T","name":"hosts","cache_id":"` + e.f.cache.ID + `","data_adapter_id":"` + e.f.adapter.ID + `"}`, http.StatusOK},
		{"one table", one, "DELETE", "/system/lookup/tables/hosts", "", http.StatusForbidden},
	}
	for _, c := range cases {
		if got := e.Do(c.p, c.method, c.path, c.body).Code; got != c.status {
			t.Errorf("%s %s %s: %d, want %d", c.who, c.method, c.path, got, c.status)
		}
	}
}
