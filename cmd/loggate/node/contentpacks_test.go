package node_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/servicetest"
)

func TestContentPackEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pack := `{"v":"1","id":"e2e-pack","rev":1,"name":"e2e","summary":"","description":"","vendor":"","url":"",
	"parameters":[{"name":"TITLE","title":"t","description":"","type":"string","default_value":"web"},
	              {"name":"PORT","title":"p","description":"","type":"integer","default_value":12201}],
	"entities":[
	 {"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"g","data":{"name":"E2E_TOOK","pattern":"took %{NUMBER:took:int} ms"},"constraints":[]},
	 {"v":"1","type":{"name":"stream","version":"1"},"id":"s","data":{"title":` + refParam("TITLE") + `,"description":` + refS("from a pack") + `,
	   "disabled":` + refB(false) + `,"matching_type":` + refS("AND") + `,"stream_rules":[{"type":` + refS("EXACT") + `,"field":` + refS("source") + `,
	   "value":` + refS("web-1") + `,"inverted":` + refB(false) + `,"description":` + refS("") + `}],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],
	   "default_stream":` + refB(false) + `,"remove_matches":` + refB(false) + `},"constraints":[]},
	 {"v":"1","type":{"name":"input","version":"1"},"id":"i","data":{"title":` + refParam("TITLE") + `,"type":` + refS("org.graylog2.inputs.gelf.http.GELFHttpInput") + `,
	   "global":` + refB(true) + `,"configuration":{"bind_address":` + refS("127.0.0.1") + `,"port":` + refParam("PORT") + `},
	   "static_fields":{"team":` + refS("ops") + `},
	   "extractors":[{"title":` + refS("took") + `,"type":` + refS("REGEX") + `,"cursor_strategy":` + refS("COPY") + `,"target_field":` + refS("took") + `,
	     "source_field":` + refS("message") + `,"configuration":{"regex_value":` + refS(`took (\d+) ms`) + `},"converters":[],
	     "condition_type":` + refS("NONE") + `,"condition_value":` + refS("") + `,"order":{"@type":"integer","@value":0}}]},"constraints":[]}]}`
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusBadRequest)
	h.Do("POST", "/system/content_packs/e2e-pack/1/installations", `{"parameters":{"TITLE":{"@type":"string","@value":"web"}}}`, root).
		WantError(t, http.StatusBadRequest, "Missing parameters: [PORT]")

	install := fmt.Sprintf(`{"parameters":{"TITLE":{"@type":"string","@value":"pack web"},"PORT":{"@type":"integer","@value":%d}},"comment":"e2e"}`, port)
	in := h.Do("POST", "/system/content_packs/e2e-pack/1/installations", install, root).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 3 {
		t.Fatalf("installation %s", in.Body)
	}
	if g := h.Do("GET", "/system/grok/"+ids["grok_pattern"], nil, root).Want(t, http.StatusOK); g.Get("name").String() != "E2E_TOOK" {
		t.Errorf("grok pattern %s", g.Body)
	}
	st := h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusOK)
	if st.Get("title").String() != "pack web" || st.Get("rules.#").Int() != 1 || st.Get("rules.0.value").String() != "web-1" {
		t.Errorf("stream %s", st.Body)
	}
	inp := h.Do("GET", "/system/inputs/"+ids["input"], nil, root).Want(t, http.StatusOK)
	if inp.Get("title").String() != "pack web" || inp.Get("attributes.port").Int() != int64(port) || inp.Get("static_fields.team").String() != "ops" {
		t.Errorf("input %s", inp.Body)
	}
	ex := h.Do("GET", "/system/inputs/"+ids["input"]+"/extractors", nil, root).Want(t, http.StatusOK)
	if ex.Get("total").Int() != 1 || ex.Get("extractors.0.extractor_config.regex_value").String() != `took (\d+) ms` {
		t.Errorf("extractors %s", ex.Body)
	}
	list := h.Do("GET", "/system/content_packs", nil, root).Want(t, http.StatusOK)
	if list.Get("content_packs_metadata.e2e-pack.1.installation_count").Int() != 1 {
		t.Errorf("list %s", list.Body)
	}
	h.Do("DELETE", "/system/content_packs/e2e-pack/1", nil, root).Want(t, http.StatusBadRequest)

	// Export through the catalog, then uninstall and install the export.
	cat := h.Do("GET", "/system/catalog", nil, root).Want(t, http.StatusOK)
	var want []map[string]any
	for _, e := range cat.Get("entities").Array() {
		if id := e.Get("id").String(); id == ids["grok_pattern"] || id == ids["stream"] || id == ids["input"] {
			want = append(want, map[string]any{"id": id, "type": e.Get("type").Value()})
		}
	}
	if len(want) != 3 {
		t.Fatalf("catalog lacks the installed entities: %s", cat.Body)
	}
	resolved := h.Do("POST", "/system/catalog", map[string]any{"entities": want}, root).Want(t, http.StatusOK)

	in2 := h.Do("GET", "/system/content_packs/e2e-pack/installations", nil, root).Want(t, http.StatusOK)
	instID := in2.Get("installations.0._id").String()
	det := h.Do("GET", "/system/content_packs/e2e-pack/installations/"+instID+"/uninstall_details", nil, root).Want(t, http.StatusOK)
	if det.Get("entities.#").Int() != 3 {
		t.Errorf("uninstall details %s", det.Body)
	}
	un := h.Do("DELETE", "/system/content_packs/e2e-pack/installations/"+instID, nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 3 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/system/grok/"+ids["grok_pattern"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/system/inputs/"+ids["input"], nil, root).Want(t, http.StatusNotFound)
	h.Do("DELETE", "/system/content_packs/e2e-pack", nil, root).Want(t, http.StatusNoContent)

	export := map[string]any{"v": "1", "id": "exported", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": resolved.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/exported/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	for _, e := range re.Get("entities").Array() {
		switch e.Get("type.name").String() {
		case "grok_pattern":
			h.Do("GET", "/system/grok/"+e.Get("id").String(), nil, root).Want(t, http.StatusOK)
		case "stream":
			if r := h.Do("GET", "/streams/"+e.Get("id").String(), nil, root).Want(t, http.StatusOK); r.Get("rules.#").Int() != 1 {
				t.Errorf("re-installed stream %s", r.Body)
			}
		case "input":
			if r := h.Do("GET", "/system/inputs/"+e.Get("id").String()+"/extractors", nil, root).Want(t, http.StatusOK); r.Get("total").Int() != 1 {
				t.Errorf("re-installed extractors %s", r.Body)
			}
		}
	}
	if re.Get("entities.#").Int() != 3 {
		t.Errorf("re-installation %s", re.Body)
	}
}

func TestContentPackLookupTablesAndPipelines(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	csv := filepath.Join(t.TempDir(), "hosts.csv")
	if err := os.WriteFile(csv, []byte("host,owner\nweb-1,ops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rule := "rule \"e2e-owner\"\nwhen has_field(\"source\")\nthen\n  set_field(\"owner\", lookup_value(\"e2e-hosts\", $message.source));\nend"
	pipeline := "pipeline \"e2e-pipe\"\nstage 0 match either\nrule \"e2e-owner\";\nend"
	entities := []string{
		packEntity("p", "pipeline", `{"title":`+refS("e2e-pipe")+`,"description":`+refS("")+`,"source":`+refS(pipeline)+`,"connected_streams":[`+refS("st")+`]}`),
		packEntity("r", "pipeline_rule", `{"title":`+refS("e2e-owner")+`,"description":`+refS("owner of the source")+`,"source":`+refS(rule)+`}`),
		packEntity("t", "lookup_table", `{"name":`+refS("e2e-hosts")+`,"title":`+refS("Hosts")+`,"description":`+refS("")+`,"cache_name":`+refS("c")+`,
		  "data_adapter_name":`+refS("a")+`,"default_single_value":`+refS("nobody")+`,"default_single_value_type":`+refS("STRING")+`,
		  "default_multi_value":`+refS("")+`,"default_multi_value_type":`+refS("NULL")+`}`),
		packEntity("c", "lookup_cache", `{"name":`+refS("e2e-cache")+`,"title":`+refS("Cache")+`,"description":`+refS("")+`,"configuration":{"type":`+refS("none")+`}}`),
		packEntity("a", "lookup_adapter", `{"name":`+refS("e2e-csv")+`,"title":`+refS("CSV")+`,"description":`+refS("")+`,"configuration":{"type":`+refS("csvfile")+`,
		  "path":{"@type":"parameter","@value":"CSV"},"separator":`+refS(",")+`,"quotechar":`+refS(`"`)+`,"key_column":`+refS("host")+`,
		  "value_column":`+refS("owner")+`,"check_interval":{"@type":"integer","@value":60},"case_insensitive_lookup":`+refB(false)+`}}`),
		packEntity("st", "stream", `{"title":`+refS("e2e web")+`,"description":`+refS("")+`,"disabled":`+refB(false)+`,"matching_type":`+refS("AND")+`,
		  "stream_rules":[],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],"default_stream":`+refB(false)+`,"remove_matches":`+refB(false)+`}`),
	}
	pack := `{"v":"1","id":"e2e-lp","rev":1,"name":"e2e","summary":"","description":"","vendor":"","url":"",
	"parameters":[{"name":"CSV","title":"csv","description":"","type":"string"}],"entities":[` + strings.Join(entities, ",") + `]}`
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)
	in := h.Do("POST", "/system/content_packs/e2e-lp/1/installations", `{"parameters":{"CSV":`+refS(csv)+`}}`, root).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 6 {
		t.Fatalf("installation %s", in.Body)
	}

	// The entities work through their own APIs.
	check := func(ids map[string]string) {
		t.Helper()
		q := h.Do("GET", "/system/lookup/tables/e2e-hosts/query?key=web-1", nil, root).Want(t, http.StatusOK)
		if q.Get("single_value").String() != "ops" {
			t.Errorf("lookup %s", q.Body)
		}
		tb := h.Do("GET", "/system/lookup/tables/"+ids["lookup_table"], nil, root).Want(t, http.StatusOK)
		if tb.Get("lookup_tables.0.cache_id").String() != ids["lookup_cache"] || tb.Get("lookup_tables.0.data_adapter_id").String() != ids["lookup_adapter"] {
			t.Errorf("table %s", tb.Body)
		}
		r := h.Do("GET", "/system/pipelines/rule/"+ids["pipeline_rule"], nil, root).Want(t, http.StatusOK)
		if r.Get("title").String() != "e2e-owner" || r.Get("source").String() != rule {
			t.Errorf("rule %s", r.Body)
		}
		p := h.Do("GET", "/system/pipelines/pipeline/"+ids["pipeline"], nil, root).Want(t, http.StatusOK)
		if p.Get("title").String() != "e2e-pipe" || p.Get("stages.0.rules.0").String() != "e2e-owner" {
			t.Errorf("pipeline %s", p.Body)
		}
		c := h.Do("GET", "/system/pipelines/connections/"+ids["stream"], nil, root).Want(t, http.StatusOK)
		if c.Get("pipeline_ids.#").Int() != 1 || c.Get("pipeline_ids.0").String() != ids["pipeline"] {
			t.Errorf("connection %s", c.Body)
		}
		sim := h.Do("POST", "/system/pipelines/simulate", map[string]any{"stream_id": ids["stream"],
			"message": map[string]any{"_id": "m1", "message": "hello", "source": "web-1"}}, root).Want(t, http.StatusOK)
		if sim.Get("messages.0.message.owner").String() != "ops" {
			t.Errorf("simulation %s", sim.Body)
		}
	}
	check(ids)

	// Export the table and the pipeline: what they need comes with them.
	resolved := h.Do("POST", "/system/catalog", map[string]any{"entities": []any{
		map[string]any{"id": ids["lookup_table"], "type": map[string]any{"name": "lookup_table", "version": "1"}},
		map[string]any{"id": ids["pipeline"], "type": map[string]any{"name": "pipeline", "version": "1"}},
	}}, root).Want(t, http.StatusOK)
	if resolved.Get("entities.#").Int() != 6 {
		t.Fatalf("resolved %s", resolved.Body)
	}

	instID := in.Get("_id").String()
	un := h.Do("DELETE", "/system/content_packs/e2e-lp/installations/"+instID, nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 6 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/system/lookup/tables/"+ids["lookup_table"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/system/lookup/caches/"+ids["lookup_cache"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/system/lookup/adapters/"+ids["lookup_adapter"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/system/pipelines/rule/"+ids["pipeline_rule"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/system/pipelines/pipeline/"+ids["pipeline"], nil, root).Want(t, http.StatusNotFound)

	export := map[string]any{"v": "1", "id": "e2e-lp-export", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": resolved.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/e2e-lp-export/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	ids = map[string]string{}
	for _, e := range re.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 6 {
		t.Fatalf("re-installation %s", re.Body)
	}
	check(ids)
}

// TestContentPackInstallNeedsCreatePermissions: installing a pack creates
// grok patterns, streams and inputs through their services, so the
// installer needs the permissions creating them directly needs
// (inputs:create, streams:create): contentpack:install alone must not open
// a listening port.
func TestContentPackInstallNeedsCreatePermissions(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pack := fmt.Sprintf(`{"v":"1","id":"perm-pack","rev":1,"name":"p","summary":"","description":"","vendor":"","url":"","parameters":[],
	"entities":[{"v":"1","type":{"name":"input","version":"1"},"id":"i","data":{"title":%s,"type":%s,"global":{"@type":"boolean","@value":true},
	  "configuration":{"bind_address":%s,"port":{"@type":"integer","@value":%d}},"static_fields":{},"extractors":[]},"constraints":[]}]}`,
		refS("sneaky"), refS("org.graylog2.inputs.gelf.http.GELFHttpInput"), refS("127.0.0.1"), port)
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)
	h.Do("POST", "/roles", map[string]any{"name": "PackInstaller", "permissions": []string{"contentpack:read", "contentpack:install"}}, root).Want(t, http.StatusCreated)
	h.CreateUser("installer", "installer-password-1", "PackInstaller")
	as := nodetest.Basic("installer", "installer-password-1")
	h.Do("POST", "/system/content_packs/perm-pack/1/installations", `{"parameters":{}}`, as).Want(t, http.StatusForbidden)
	if n := h.Do("GET", "/system/inputs", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Fatalf("an input was created by a user without inputs:create: %d inputs", n)
	}
	h.Do("PUT", "/roles/PackInstaller", map[string]any{"name": "PackInstaller",
		"permissions": []string{"contentpack:read", "contentpack:install", "inputs:create"}}, root).Want(t, http.StatusOK)
	h.Do("POST", "/system/content_packs/perm-pack/1/installations", `{"parameters":{}}`, as).Want(t, http.StatusOK)
}

// TestCatalogResolveChecksReadAndMasksSecrets: exporting an entity through
// the catalog needs the permission to read it, and an input's password
// fields are exported masked, as GET /system/inputs shows them.
func TestCatalogResolveChecksReadAndMasksSecrets(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	created := h.Do("POST", "/system/inputs", map[string]any{"title": "tls", "type": "org.graylog2.inputs.gelf.tcp.GELFTCPInput", "global": true,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": port, "tls_key_password": "hunter2-secret"}}, root).Want(t, http.StatusCreated)
	id := created.Get("id").String()
	req := map[string]any{"entities": []any{map[string]any{"id": id, "type": map[string]any{"name": "input", "version": "1"}}}}

	h.Do("POST", "/roles", map[string]any{"name": "Cataloger", "permissions": []string{"catalog:list", "catalog:resolve"}}, root).Want(t, http.StatusCreated)
	h.CreateUser("cataloger", "cataloger-password-1", "Cataloger")
	as := nodetest.Basic("cataloger", "cataloger-password-1")
	h.Do("POST", "/system/catalog", req, as).Want(t, http.StatusForbidden)
	if cat := h.Do("GET", "/system/catalog", nil, as).Want(t, http.StatusOK); strings.Contains(string(cat.Body), id) {
		t.Errorf("the catalog lists an input the caller may not read: %s", cat.Body)
	}

	res := h.Do("POST", "/system/catalog", req, root).Want(t, http.StatusOK)
	if strings.Contains(string(res.Body), "hunter2-secret") {
		t.Fatalf("the export holds the input's TLS key password: %s", res.Body)
	}
	if got := res.Get("entities.0.data.configuration.port.@value").Int(); got != int64(port) {
		t.Errorf("exported port %d, want %d: %s", got, port, res.Body)
	}
}

// Value references and entities of content packs, as Graylog writes them.

func refS(v string) string        { return fmt.Sprintf(`{"@type":"string","@value":%q}`, v) }
func refB(v bool) string          { return fmt.Sprintf(`{"@type":"boolean","@value":%t}`, v) }
func refParam(name string) string { return fmt.Sprintf(`{"@type":"parameter","@value":%q}`, name) }

func packEntity(id, typ, data string) string {
	return `{"v":"1","type":{"name":"` + typ + `","version":"1"},"id":"` + id + `","data":` + data + `,"constraints":[]}`
}
