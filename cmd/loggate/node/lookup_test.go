package node_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestLookupTablesEndToEnd: a CSV file behind a cached table and a
// writable table; GELF messages → a lookup_table extractor and a rule with
// lookup_value and lookup_add_string_list → the search finds the looked-up
// fields and the table query the written list.
func TestLookupTablesEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	csv := filepath.Join(t.TempDir(), "hosts.csv")
	if err := os.WriteFile(csv, []byte("ip,host\n10.0.0.1,web-one\n10.0.0.2,web-two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	adapter := h.Do("POST", "/system/lookup/adapters", map[string]any{"title": "Hosts", "name": "hosts-csv", "description": "",
		"config": map[string]any{"type": "csvfile", "path": csv, "key_column": "ip", "value_column": "host"}}, root).Want(t, http.StatusOK)
	if adapter.Get("config.check_interval").Int() != 60 || adapter.Get("config.separator").String() != "," {
		t.Errorf("adapter with its defaults: %s", adapter.Body)
	}
	cache := h.Do("POST", "/system/lookup/caches", map[string]any{"title": "Hosts cache", "name": "hosts-cache",
		"config": map[string]any{"type": "guava_cache", "max_size": 100}}, root).Want(t, http.StatusOK)
	h.Do("POST", "/system/lookup/tables", map[string]any{"title": "Hosts", "name": "hosts",
		"cache_id": cache.Get("id").String(), "data_adapter_id": adapter.Get("id").String(),
		"default_single_value": "", "default_single_value_type": "NULL", "default_multi_value": "", "default_multi_value_type": "NULL"}, root).Want(t, http.StatusOK)
	kv := h.Do("POST", "/system/lookup/adapters", map[string]any{"title": "Seen", "name": "seen-kv", "config": map[string]any{"type": "mongodb"}}, root).Want(t, http.StatusOK)
	none := h.Do("POST", "/system/lookup/caches", map[string]any{"title": "No cache", "name": "no-cache", "config": map[string]any{"type": "none"}}, root).Want(t, http.StatusOK)
	h.Do("POST", "/system/lookup/tables", map[string]any{"title": "Seen", "name": "seen",
		"cache_id": none.Get("id").String(), "data_adapter_id": kv.Get("id").String()}, root).Want(t, http.StatusOK)

	if got := h.Do("GET", "/system/lookup/tables/hosts/query?key=10.0.0.2", nil, root).Want(t, http.StatusOK).Get("single_value").String(); got != "web-two" {
		t.Errorf("query: %q", got)
	}

	// A constant table name that does not exist fails the parse.
	res := h.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "x" when true then set_field("a", lookup_value("nope", "k")); end`}, root).Want(t, http.StatusBadRequest)
	if want := "Unable to pre-compute value for 1st argument lookup_table in call to function lookup_value: Lookup table <nope> not found"; res.Get("0.type").String() != "invalid_function_argument" || res.Get("0.reason").String() != want {
		t.Errorf("unknown table: %s", res.Body)
	}

	input, addr := h.CreateInput(httpInput)
	extractor := map[string]any{
		"title": "host", "cut_or_copy": "copy", "source_field": "message", "target_field": "client_host",
		"extractor_type": "lookup_table", "extractor_config": map[string]any{"lookup_table_name": "nope"},
		"converters": map[string]any{}, "condition_type": "none", "condition_value": "", "order": 0,
	}
	h.Do("POST", "/system/inputs/"+input+"/extractors", extractor, root).WantError(t, http.StatusInternalServerError, "Configured lookup table <nope> doesn't exist")
	extractor["extractor_config"] = map[string]any{"lookup_table_name": "hosts"}
	h.Do("POST", "/system/inputs/"+input+"/extractors", extractor, root).Want(t, http.StatusCreated)

	rule := h.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "enrich"
when has_field("message")
then
  set_field("host_by_rule", lookup_value("hosts", $message.message, "unknown"));
  lookup_add_string_list("seen", "clients", [to_string($message.message)]);
end`}, root).Want(t, http.StatusOK)
	if rule.Get("errors").Type.String() != "Null" {
		t.Fatalf("rule: %s", rule.Body)
	}
	pipe := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"lookups\"\nstage 0 match all\nrule \"enrich\"\nend"}, root).Want(t, http.StatusOK)
	h.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{
		"stream_id": streams.DefaultStreamID, "pipeline_ids": []string{pipe.Get("id").String()}}, root).Want(t, http.StatusOK)

	base := float64(time.Now().Add(-time.Minute).Unix())
	postGELF(t, addr, "web-1", "10.0.0.1", base+1)
	postGELF(t, addr, "web-1", "10.9.9.9", base+2)
	h.WaitProcessed(2)

	known := h.Do("GET", `/search/universal/relative?query=message:"10.0.0.1"&range=0`, nil, root).Want(t, http.StatusOK).Get("messages.0.message")
	if known.Get("client_host").String() != "web-one" || known.Get("host_by_rule").String() != "web-one" {
		t.Errorf("known client: %s", known.Raw)
	}
	unknown := h.Do("GET", `/search/universal/relative?query=message:"10.9.9.9"&range=0`, nil, root).Want(t, http.StatusOK).Get("messages.0.message")
	if unknown.Get("client_host").Exists() || unknown.Get("host_by_rule").String() != "unknown" {
		t.Errorf("unknown client: %s", unknown.Raw)
	}
	seen := h.Do("GET", "/system/lookup/tables/seen/query?key=clients", nil, root).Want(t, http.StatusOK)
	if got := seen.Get("string_list_value").Raw; got != `["10.0.0.1","10.9.9.9"]` && got != `["10.9.9.9","10.0.0.1"]` {
		t.Errorf("written list: %s", seen.Body)
	}
}

// TestLookupTablesAcrossNodes: two nodes on one store. A rule saved on one
// node right after its table was created on the other parses; a change of
// the table applies on the other node within a second; what one node
// writes to the document-store adapter the other reads.
func TestLookupTablesAcrossNodes(t *testing.T) {
	hs := startCluster(t, 2)
	a, b := hs[0], hs[1]
	root := nodetest.AsRoot()
	kv := a.Do("POST", "/system/lookup/adapters", map[string]any{"title": "KV", "name": "kv", "config": map[string]any{"type": "mongodb"}}, root).Want(t, http.StatusOK)
	none := a.Do("POST", "/system/lookup/caches", map[string]any{"title": "None", "name": "none", "config": map[string]any{"type": "none"}}, root).Want(t, http.StatusOK)
	table := map[string]any{"title": "Shared", "name": "shared", "cache_id": none.Get("id").String(), "data_adapter_id": kv.Get("id").String(),
		"default_single_value": "", "default_single_value_type": "NULL", "default_multi_value": "", "default_multi_value_type": "NULL"}
	created := a.Do("POST", "/system/lookup/tables", table, root).Want(t, http.StatusOK)

	b.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "r" when true then set_field("x", lookup_value("shared", "k")); end`}, root).Want(t, http.StatusOK)

	table["id"] = created.Get("id").String()
	table["default_single_value"], table["default_single_value_type"] = "fallback", "STRING"
	a.Do("PUT", "/system/lookup/tables/shared", table, root).Want(t, http.StatusOK)
	tick(t, time.Second, hs...)
	if got := b.Do("GET", "/system/lookup/tables/shared/query?key=missing", nil, root).Want(t, http.StatusOK).Get("single_value").String(); got != "fallback" {
		t.Errorf("the other node's default: %q", got)
	}
	if got := b.Do("GET", "/system/lookup/tables/shared", nil, root).Want(t, http.StatusOK).Get("lookup_tables.0.default_single_value").String(); got != "fallback" {
		t.Errorf("the other node's table: %q", got)
	}

	if _, err := b.Node.Lookup.SetStringList(t.Context(), "shared", "k", []string{"v"}); err != nil {
		t.Fatal(err)
	}
	if got := a.Do("GET", "/system/lookup/tables/shared/query?key=k", nil, root).Want(t, http.StatusOK).Get("single_value").String(); got != "v" {
		t.Errorf("written on one node, read on the other: %q", got)
	}
}

// TestLookupEventField: a filter event definition's lookup-v1 field reads
// the node's lookup table with the triggering message's field as the key;
// a key the table lacks leaves the field out of the event.
func TestLookupEventField(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	csv := filepath.Join(t.TempDir(), "owners.csv")
	if err := os.WriteFile(csv, []byte("source,team\npay-1,payments\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	adapter := h.Do("POST", "/system/lookup/adapters", map[string]any{"title": "Owners", "name": "owners-csv",
		"config": map[string]any{"type": "csvfile", "path": csv, "key_column": "source", "value_column": "team"}}, root).Want(t, http.StatusOK)
	cache := h.Do("POST", "/system/lookup/caches", map[string]any{"title": "No cache", "name": "owners-none",
		"config": map[string]any{"type": "none"}}, root).Want(t, http.StatusOK)
	h.Do("POST", "/system/lookup/tables", map[string]any{"title": "Owners", "name": "owners",
		"cache_id": cache.Get("id").String(), "data_adapter_id": adapter.Get("id").String()}, root).Want(t, http.StatusOK)

	def := countDefinition("Declined", 0)
	cfg := def["config"].(map[string]any)
	cfg["query"], cfg["group_by"], cfg["series"], cfg["conditions"] = "message:declined", []string{}, []any{}, nil
	def["alert"], def["key_spec"] = false, []string{}
	def["field_spec"] = map[string]any{"team": map[string]any{"data_type": "string",
		"providers": []map[string]any{{"type": "lookup-v1", "table_name": "owners", "key_field": "source"}}}}
	t0 := h.Clock.Now()
	did := h.Do("POST", "/events/definitions", def, root).Want(t, http.StatusOK).Get("id").String()
	_, addr := h.CreateInput(httpInput)
	at := float64(t0.Add(10*time.Second).UnixMilli()) / 1000
	postGELF(t, addr, "pay-1", "declined", at)
	postGELF(t, addr, "shop-7", "declined", at+1)
	h.WaitProcessed(2)
	h.Clock.Advance(61 * time.Second)
	search := func() *nodetest.Response {
		return h.Do("POST", "/events/search", map[string]any{"filter": map[string]any{"alerts": "exclude", "event_definitions": []string{did}},
			"timerange": map[string]any{"type": "relative", "range": 0}}, root).Want(t, http.StatusOK)
	}
	runAlerts(t, h, func() bool { return search().Get("total_events").Int() == 2 })
	var teams []string
	for _, ev := range search().Get("events.#.event").Array() {
		if f := ev.Get("fields.team"); f.Exists() {
			teams = append(teams, f.String())
		}
	}
	if len(teams) != 1 || teams[0] != "payments" {
		t.Errorf("teams of the two events: %q, want only pay-1's %q", teams, "payments")
	}
}

// TestLookupHTTPAdaptersHonourURLWhitelist: the HTTP data adapters call only
// URLs the URL whitelist permits, as Graylog's do: stored URLs are checked
// when saved, and every URL called, redirects included. Any URL was
// called, so that a user allowed to create adapters made the server fetch
// internal addresses and read the answers.
func TestLookupHTTPAdaptersHonourURLWhitelist(t *testing.T) {
	var internalHits atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits.Add(1)
		_, _ = w.Write([]byte(`{"secret":"instance-metadata-credentials"}`))
	}))
	defer internal.Close()
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("k") == "jump" {
			http.Redirect(w, r, internal.URL+"/latest", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(`{"secret":"fine"}`))
	}))
	defer allowed.Close()

	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	adapter := func(name, base string) map[string]any {
		return map[string]any{"title": name, "name": name, "description": "",
			"config": map[string]any{"type": "httpjsonpath", "url": base + "/q?k=${key}", "single_value_jsonpath": "$.secret"}}
	}
	if r := h.Do("POST", "/system/lookup/adapters", adapter("meta", internal.URL), root).Want(t, http.StatusBadRequest); !strings.Contains(r.Get("validation_errors.url.0.error").String(), "is not whitelisted") {
		t.Errorf("create: %s", r.Body)
	}
	if v := h.Do("POST", "/system/lookup/adapters/validate", adapter("meta", internal.URL), root).Want(t, http.StatusOK); !strings.Contains(v.Get("errors.url.0").String(), "is not whitelisted") {
		t.Errorf("validate: %s", v.Body)
	}
	h.Do("PUT", "/system/urlwhitelist", map[string]any{"disabled": false, "entries": []map[string]any{
		{"id": "a9a4cbd2-1b6b-4b37-9a4a-0c1f5e3b7e11", "type": "regex", "value": "^" + regexp.QuoteMeta(allowed.URL) + "/.*", "title": "allowed"}}},
		root).Want(t, http.StatusNoContent)
	h.Do("POST", "/system/lookup/adapters", adapter("ok", allowed.URL), root).Want(t, http.StatusOK)
	if r := h.Do("GET", "/system/lookup/adapters/ok/query?key=x", nil, root).Want(t, http.StatusOK); r.Get("single_value").String() != "fine" {
		t.Errorf("an allowed URL: %s", r.Body)
	}
	if r := h.Do("GET", "/system/lookup/adapters/ok/query?key=jump", nil, root); r.Get("single_value").String() != "" && r.Status == http.StatusOK {
		t.Errorf("a redirect to an URL not allowed was followed: %s", r.Body)
	}
	if n := internalHits.Load(); n != 0 {
		t.Errorf("the internal server was called %d times", n)
	}
}

// TestLookupCSVErrorShowsNoContent: a CSV file adapter's error names the
// column asked for, not the file's first line: the error state is shown to
// every reader of lookup tables, and the path may name any file the server
// can read (/proc/self/environ, with a NUL separator, was one "header").
func TestLookupCSVErrorShowsNoContent(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	secretFile := filepath.Join(t.TempDir(), "server.conf")
	if err := os.WriteFile(secretFile, []byte("password_secret=TOPSECRET-0123456789\nroot_password_sha2=abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Do("POST", "/system/lookup/adapters", map[string]any{"title": "Conf", "name": "conf", "description": "",
		"config": map[string]any{"type": "csvfile", "path": secretFile, "separator": "\u0000", "key_column": "k", "value_column": "v"}}, root).Want(t, http.StatusOK)
	h.Do("GET", "/system/lookup/adapters/conf/query?key=x", nil, root)
	res := h.Do("POST", "/system/lookup/errorstates", map[string]any{"data_adapters": []string{"conf"}}, root).Want(t, http.StatusOK)
	if !strings.Contains(string(res.Body), "key column") || strings.Contains(string(res.Body), "TOPSECRET") {
		t.Errorf("error state: %s", res.Body)
	}
}
