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
	"github.com/tidwall/gjson"
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

// TestContentPackEventDefinitionsAndNotifications: a pack's stream,
// notification and event definition install through the alerts' services
// (the definition scheduled, searching the stream and sending to the
// notification, owned by the installer), export with the notification's
// URL password masked, uninstall with the definition's job, and install
// again from the export.
func TestContentPackEventDefinitionsAndNotifications(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	definition := func(title string) string {
		return packEntity("d", "event_definition", `{"title":`+title+`,"description":`+refS("")+`,"priority":{"@type":"integer","@value":2},
		 "alert":`+refB(true)+`,"config":{"type":"aggregation-v1","query":`+refS("level:error")+`,"streams":["s"],"group_by":[],
		  "series":[{"id":"c","function":"count","field":null}],
		  "conditions":{"expression":{"expr":">","left":{"expr":"number-ref","ref":"c"},"right":{"expr":"number","value":5}}},
		  "search_within_ms":60000,"execute_every_ms":60000},"field_spec":{},"key_spec":[],
		 "notification_settings":{"grace_period_ms":0,"backlog_size":0},
		 "notifications":[{"notification_id":`+refS("n")+`,"notification_parameters":null}],"storage":[],"is_scheduled":`+refB(true)+`}`)
	}
	entities := []string{
		definition(refParam("TITLE")),
		packEntity("n", "notification", `{"title":`+refS("ops hook")+`,"description":`+refS("")+`,
		 "config":{"type":"http-notification-v1","url":`+refS("https://ops:hook-secret@hooks.example.org/x")+`}}`),
		packEntity("s", "stream", `{"title":`+refS("errors")+`,"description":`+refS("")+`,"disabled":`+refB(false)+`,
		 "matching_type":`+refS("AND")+`,"stream_rules":[],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],
		 "default_stream":`+refB(false)+`,"remove_matches":`+refB(false)+`}`),
	}
	pack := func(id string, ents ...string) string {
		return `{"v":"1","id":"` + id + `","rev":1,"name":"events","summary":"","description":"","vendor":"","url":"",
		 "parameters":[{"name":"TITLE","title":"t","description":"","type":"string"}],"entities":[` + strings.Join(ents, ",") + `]}`
	}
	h.Do("POST", "/system/content_packs", pack("ev-bad", definition(refS("")), entities[1], entities[2]), root).Want(t, http.StatusCreated)
	h.Do("POST", "/system/content_packs/ev-bad/1/installations", `{"parameters":{"TITLE":`+refS("x")+`}}`, root).
		WantError(t, http.StatusBadRequest, "entity d (event_definition): Invalid event definition <>: title: Event Definition title cannot be empty.")
	if n := h.Do("GET", "/events/notifications", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Fatalf("a refused install left %d notifications", n)
	}

	h.Do("POST", "/system/content_packs", pack("ev", entities...), root).Want(t, http.StatusCreated)
	h.Do("POST", "/roles", map[string]any{"name": "EventsInstaller", "permissions": []string{"contentpack:read", "contentpack:install",
		"catalog:list", "catalog:resolve", "streams:create", "streams:read", "eventdefinitions:create", "eventnotifications:create"}}, root).
		Want(t, http.StatusCreated)
	h.CreateUser("events", "events-password-1", "EventsInstaller")
	as := nodetest.Basic("events", "events-password-1")
	in := h.Do("POST", "/system/content_packs/ev/1/installations", `{"parameters":{"TITLE":`+refS("Many errors")+`}}`, as).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	// The installer owns the definition and the notification: they read
	// them without eventdefinitions:read or eventnotifications:read.
	def := h.Do("GET", "/events/definitions/"+ids["event_definition"]+"/with-context", nil, as).Want(t, http.StatusOK)
	if def.Get("event_definition.title").String() != "Many errors" || def.Get("event_definition.config.streams.0").String() != ids["stream"] ||
		def.Get("event_definition.notifications.0.notification_id").String() != ids["notification"] ||
		!def.Get("context.scheduler.is_scheduled").Bool() {
		t.Errorf("definition %s", def.Body)
	}
	jobOf := func(definitionID string) bool {
		jobs := h.Do("GET", "/scheduler/jobs?per_page=1000", nil, root).Want(t, http.StatusOK)
		return jobs.Get(`job_definitions.#(config.event_definition_id=="` + definitionID + `")`).Exists()
	}
	if !jobOf(ids["event_definition"]) {
		t.Error("the installed definition has no scheduler job")
	}
	if n := h.Do("GET", "/events/notifications/"+ids["notification"], nil, as).Want(t, http.StatusOK); n.Get("config.url").String() != "https://ops:hook-secret@hooks.example.org/x" {
		t.Errorf("notification %s", n.Body)
	}

	req := map[string]any{"entities": []any{map[string]any{"id": ids["event_definition"], "type": map[string]any{"name": "event_definition", "version": "1"}}}}
	res := h.Do("POST", "/system/catalog", req, as).Want(t, http.StatusOK)
	if res.Get("entities.#").Int() != 3 || strings.Contains(string(res.Body), "hook-secret") ||
		res.Get(`entities.#(type.name=="notification").data.config.url.@value`).String() != "https://ops:xxxxx@hooks.example.org/x" ||
		res.Get(`entities.#(type.name=="event_definition").data.config.streams.0`).String() != res.Get(`entities.#(type.name=="stream").id`).String() {
		t.Errorf("export %s", res.Body)
	}

	un := h.Do("DELETE", "/system/content_packs/ev/installations/"+in.Get("_id").String(), nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 3 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/events/definitions/"+ids["event_definition"], nil, root).Want(t, http.StatusNotFound)
	if jobOf(ids["event_definition"]) {
		t.Error("the uninstalled definition's job is left")
	}
	h.Do("GET", "/events/notifications/"+ids["notification"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusNotFound)
	if defs := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK); defs.Get("total").Int() != 0 {
		t.Errorf("definitions left %s", defs.Body)
	}

	export := map[string]any{"v": "1", "id": "ev-exported", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": res.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/ev-exported/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	for _, e := range re.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	def = h.Do("GET", "/events/definitions/"+ids["event_definition"]+"/with-context", nil, root).Want(t, http.StatusOK)
	if def.Get("event_definition.title").String() != "Many errors" || def.Get("event_definition.config.streams.0").String() != ids["stream"] ||
		!def.Get("context.scheduler.is_scheduled").Bool() {
		t.Errorf("re-installed definition %s", def.Body)
	}
}

// TestContentPackDashboard: a dashboard (dashboard version 2) installs its
// search, then itself, owned by the installing user, its stream filter on
// the stream the pack installed; the catalog exports it with that stream,
// uninstalling deletes the view and its search, and the export installs
// again.
func TestContentPackDashboard(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	dashboard := `{"type":"DASHBOARD","title":` + refParam("TITLE") + `,"summary":` + refS("") + `,"description":` + refS("web servers") + `,
	  "search":{"queries":[{"id":"q1","timerange":{"type":"relative","range":300},"query":{"type":"elasticsearch","query_string":""},
	    "filter":{"type":"or","filters":[{"type":"stream","id":"st"}]},
	    "search_types":[{"id":"st1","type":"pivot","name":"chart","row_groups":[{"type":"time","field":"timestamp","interval":{"type":"auto","scaling":1.0}}],
	      "column_groups":[],"series":[{"type":"count","id":"count()"}],"sort":[],"rollup":true,"streams":[],"filter":null,"query":null,"timerange":null}]}],
	    "parameters":[],"requires":{},"owner":"someone","created_at":"2021-01-01T00:00:00.000Z"},
	  "properties":[],"requires":{},
	  "state":{"q1":{"selected_fields":null,"titles":{"widget":{"w1":"Messages over time"}},
	    "widgets":[{"id":"w1","type":"aggregation","filter":null,"timerange":null,"query":null,"streams":[],
	      "config":{"row_pivots":[{"field":"timestamp","type":"time","config":{"interval":{"type":"auto","scaling":1.0}}}],"column_pivots":[],
	        "series":[{"config":{"name":null},"function":"count()"}],"sort":[],"visualization":"bar","rollup":true}}],
	    "widget_mapping":{"w1":["st1"]},"positions":{"w1":{"col":1,"row":1,"height":4,"width":"Infinity"}},
	    "formatting":{"highlighting":[]},"display_mode_settings":{"positions":{}}}},
	  "owner":"someone","created_at":"2021-01-01T00:00:00.000Z"}`
	pack := `{"v":"1","id":"e2e-dash","rev":1,"name":"e2e","summary":"","description":"","vendor":"","url":"",
	"parameters":[{"name":"TITLE","title":"t","description":"","type":"string","default_value":"Web"}],"entities":[
	 {"v":"1","type":{"name":"dashboard","version":"2"},"id":"d","data":` + dashboard + `,"constraints":[]},
	 ` + packEntity("st", "stream", `{"title":`+refS("e2e web")+`,"description":`+refS("")+`,"disabled":`+refB(false)+`,"matching_type":`+refS("AND")+`,
	   "stream_rules":[],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],"default_stream":`+refB(false)+`,"remove_matches":`+refB(false)+`}`) + `]}`
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)

	// An installer who may not create dashboards is refused, and nothing
	// is created; with dashboards:create the dashboard is theirs.
	h.Do("POST", "/roles", map[string]any{"name": "PackInstaller",
		"permissions": []string{"contentpack:read", "contentpack:install", "streams:create", "streams:read", "streams:edit", "catalog:list", "catalog:resolve"}}, root).Want(t, http.StatusCreated)
	h.CreateUser("packer", "packer-password-1", "PackInstaller")
	as := nodetest.Basic("packer", "packer-password-1")
	h.Do("POST", "/system/content_packs/e2e-dash/1/installations", `{"parameters":{"TITLE":`+refS("Web servers")+`}}`, as).
		WantError(t, http.StatusForbidden, "dashboard")
	if n := h.Do("GET", "/dashboards", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Fatalf("a refused installation created %d dashboards", n)
	}
	h.Do("PUT", "/roles/PackInstaller", map[string]any{"name": "PackInstaller",
		"permissions": []string{"contentpack:read", "contentpack:install", "streams:create", "streams:read", "streams:edit", "catalog:list", "catalog:resolve", "dashboards:create"}}, root).Want(t, http.StatusOK)
	in := h.Do("POST", "/system/content_packs/e2e-dash/1/installations", `{"parameters":{"TITLE":`+refS("Web servers")+`}}`, as).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 2 || in.Get("entities.1.type.version").String() != "2" {
		t.Fatalf("installation %s", in.Body)
	}
	view := h.Do("GET", "/views/"+ids["dashboard"], nil, as).Want(t, http.StatusOK)
	if view.Get("type").String() != "DASHBOARD" || view.Get("title").String() != "Web servers" || view.Get("owner").String() != "packer" ||
		view.Get("state.q1.widgets.0.config.visualization_config").Type.String() != "Null" {
		t.Errorf("dashboard %s", view.Body)
	}
	searchID := view.Get("search_id").String()
	search := h.Do("GET", "/views/search/"+searchID, nil, as).Want(t, http.StatusOK)
	if search.Get("queries.0.filter.filters.0.id").String() != ids["stream"] || search.Get("owner").String() != "packer" {
		t.Errorf("search %s, stream %s", search.Body, ids["stream"])
	}
	h.Do("POST", "/views/search/"+searchID+"/execute", `{}`, as).Want(t, http.StatusCreated)

	// The catalog exports the dashboard with its stream.
	resolved := h.Do("POST", "/system/catalog", map[string]any{"entities": []any{
		map[string]any{"id": ids["dashboard"], "type": map[string]any{"name": "dashboard", "version": "2"}},
	}}, as).Want(t, http.StatusOK)
	if resolved.Get("entities.#").Int() != 2 {
		t.Fatalf("resolved %s", resolved.Body)
	}
	streamEntity := resolved.Get(`entities.#(type.name=="stream").id`).String()
	if d := resolved.Get(`entities.#(type.name=="dashboard").data`); d.Get("search.queries.0.filter.filters.0.id").String() != streamEntity ||
		d.Get("title.@value").String() != "Web servers" {
		t.Errorf("exported dashboard %s", d.Raw)
	}

	instID := in.Get("_id").String()
	un := h.Do("DELETE", "/system/content_packs/e2e-dash/installations/"+instID, nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 2 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/views/"+ids["dashboard"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/views/search/"+searchID, nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusNotFound)

	export := map[string]any{"v": "1", "id": "e2e-dash-export", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": resolved.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/e2e-dash-export/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	for _, e := range re.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	view = h.Do("GET", "/views/"+ids["dashboard"], nil, root).Want(t, http.StatusOK)
	search = h.Do("GET", "/views/search/"+view.Get("search_id").String(), nil, root).Want(t, http.StatusOK)
	if view.Get("title").String() != "Web servers" || search.Get("queries.0.filter.filters.0.id").String() != ids["stream"] {
		t.Errorf("re-installed dashboard %s, search %s", view.Body, search.Body)
	}
}

// TestContentPackOutputsWhitelistAndSidecars: outputs (attached to the
// pack's streams), URL whitelist entries and Sidecar collectors with their
// configurations install, export and uninstall through the HTTP API.
func TestContentPackOutputsWhitelistAndSidecars(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	tmpl := "<Output gelf>\n  Module om_udp\n</Output>\n"
	entities := []string{
		packEntity("st", "stream", `{"title":`+refS("e2e forwarded")+`,"description":`+refS("")+`,"disabled":`+refB(false)+`,"matching_type":`+refS("AND")+`,
		  "stream_rules":[],"alert_conditions":[],"alarm_callbacks":[],"outputs":[`+refS("out")+`],"default_stream":`+refB(false)+`,"remove_matches":`+refB(false)+`}`),
		packEntity("out", "output", `{"title":`+refS("e2e archive")+`,"type":`+refS("org.graylog2.outputs.GelfOutput")+`,
		  "configuration":{"hostname":`+refParam("HOST")+`,"port":{"@type":"integer","@value":12202},"protocol":`+refS("UDP")+`}}`),
		packEntity("wl", "url_whitelist_entry", `{"id":"e2e-entry","type":"literal","title":"e2e api","value":"https://e2e.example.org/api"}`),
		packEntity("conf", "sidecar_collector_configuration", `{"collector_id":`+refS("col")+`,"title":`+refS("e2e-conf")+`,"color":`+refS("#00ff00")+`,"template":`+refS(tmpl)+`}`),
		packEntity("col", "sidecar_collector", `{"name":`+refS("e2e-agent")+`,"service_type":`+refS("exec")+`,"node_operating_system":`+refS("linux")+`,
		  "executable_path":`+refS("/usr/bin/e2e-agent")+`,"execute_parameters":`+refS("-c %s")+`,"validation_parameters":`+refS("-t -c %s")+`,"default_template":`+refS("")+`}`),
	}
	pack := `{"v":"1","id":"e2e-out","rev":1,"name":"e2e","summary":"","description":"","vendor":"","url":"",
	"parameters":[{"name":"HOST","title":"host","description":"","type":"string"}],"entities":[` + strings.Join(entities, ",") + `]}`
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)
	in := h.Do("POST", "/system/content_packs/e2e-out/1/installations", `{"parameters":{"HOST":`+refS("archive.example.org")+`}}`, root).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 5 {
		t.Fatalf("installation %s", in.Body)
	}

	check := func(ids map[string]string) {
		t.Helper()
		o := h.Do("GET", "/system/outputs/"+ids["output"], nil, root).Want(t, http.StatusOK)
		if o.Get("title").String() != "e2e archive" || o.Get("configuration.hostname").String() != "archive.example.org" || o.Get("configuration.port").Int() != 12202 {
			t.Errorf("output %s", o.Body)
		}
		so := h.Do("GET", "/streams/"+ids["stream"]+"/outputs", nil, root).Want(t, http.StatusOK)
		if so.Get("total").Int() != 1 || so.Get("outputs.0.id").String() != ids["output"] {
			t.Errorf("stream outputs %s", so.Body)
		}
		wl := h.Do("GET", "/system/urlwhitelist", nil, root).Want(t, http.StatusOK)
		if wl.Get(`entries.#(id=="`+ids["url_whitelist_entry"]+`").value`).String() != "https://e2e.example.org/api" {
			t.Errorf("whitelist %s", wl.Body)
		}
		chk := h.Do("POST", "/system/urlwhitelist/check", map[string]any{"url": "https://e2e.example.org/api"}, root).Want(t, http.StatusOK)
		if !chk.Get("is_whitelisted").Bool() {
			t.Errorf("whitelist check %s", chk.Body)
		}
		c := h.Do("GET", "/sidecar/collectors/"+ids["sidecar_collector"], nil, root).Want(t, http.StatusOK)
		if c.Get("name").String() != "e2e-agent" || c.Get("validation_parameters").String() != "-t -c %s" {
			t.Errorf("collector %s", c.Body)
		}
		k := h.Do("GET", "/sidecar/configurations/"+ids["sidecar_collector_configuration"], nil, root).Want(t, http.StatusOK)
		if k.Get("collector_id").String() != ids["sidecar_collector"] || k.Get("template").String() != tmpl || k.Get("name").String() != "e2e-conf" {
			t.Errorf("configuration %s", k.Body)
		}
	}
	check(ids)

	// Export the stream, the whitelist entry and the configuration: the
	// output and the collector come with them.
	desc := func(typ string) map[string]any {
		return map[string]any{"id": ids[typ], "type": map[string]any{"name": typ, "version": "1"}}
	}
	resolved := h.Do("POST", "/system/catalog", map[string]any{"entities": []any{
		desc("stream"), desc("url_whitelist_entry"), desc("sidecar_collector_configuration"),
	}}, root).Want(t, http.StatusOK)
	if resolved.Get("entities.#").Int() != 5 {
		t.Fatalf("resolved %s", resolved.Body)
	}
	outID := resolved.Get(`entities.#(type.name=="output").id`).String()
	if got := resolved.Get(`entities.#(type.name=="stream").data.outputs.0.@value`).String(); got != outID || outID == "" {
		t.Errorf("exported stream names output %q, want %q: %s", got, outID, resolved.Body)
	}

	un := h.Do("DELETE", "/system/content_packs/e2e-out/installations/"+in.Get("_id").String(), nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 5 || un.Get("uninstalled.failed_entities.#").Int() != 0 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/system/outputs/"+ids["output"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/sidecar/collectors/"+ids["sidecar_collector"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/sidecar/configurations/"+ids["sidecar_collector_configuration"], nil, root).Want(t, http.StatusNotFound)
	if wl := h.Do("GET", "/system/urlwhitelist", nil, root).Want(t, http.StatusOK); strings.Contains(string(wl.Body), "e2e.example.org") {
		t.Errorf("whitelist after uninstall %s", wl.Body)
	}

	export := map[string]any{"v": "1", "id": "e2e-out-export", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": resolved.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/e2e-out-export/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	ids = map[string]string{}
	for _, e := range re.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 5 {
		t.Fatalf("re-installation %s", re.Body)
	}
	check(ids)
}

// TestContentPackDashboardV1: a Graylog 3.x pack's dashboard (dashboard
// version 1) installs as a 4.0 dashboard owned by the installer, its
// widgets converted over the pack's stream and placed where the pack puts
// them, readable by 4.0 clients (/views) and 3.x clients (/dashboards);
// the catalog lists and exports it once, as a dashboard of version 2, and
// uninstalling deletes the view and its search.
func TestContentPackDashboardV1(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	refI := func(n int) string { return fmt.Sprintf(`{"@type":"integer","@value":%d}`, n) }
	relative := func(s int) string { return `{"type":` + refS("relative") + `,"range":` + refI(s) + `}` }
	pos := func(col, row, w, hgt int) string {
		return `{"width":` + refI(w) + `,"height":` + refI(hgt) + `,"row":` + refI(row) + `,"col":` + refI(col) + `}`
	}
	widget := func(id, typ, desc, tr, config, position string) string {
		return `{"id":` + refS(id) + `,"description":` + refS(desc) + `,"type":` + refS(typ) + `,"cache_time":` + refI(10) +
			`,"time_range":` + tr + `,"configuration":{"timerange":{"type":` + refS("relative") + `}` + config + `},"position":` + position + `}`
	}
	const streamID = "9f1b6a2e-5d4c-4e0b-8d7a-3c2b1a0f9e8d"
	dashboard := `{"title":` + refParam("TITLE") + `,"description":` + refS("Nginx overview") + `,"widgets":[` + strings.Join([]string{
		widget("5b3c1d2e-0001-4a6f-9e2d-000000000001", "STREAM_SEARCH_RESULT_COUNT", "Requests", relative(3600),
			`,"stream_id":`+refS(streamID)+`,"query":`+refS("")+`,"trend":`+refB(true)+`,"lower_is_better":`+refB(false), pos(1, 1, 2, 1)),
		widget("5b3c1d2e-0002-4a6f-9e2d-000000000002", "QUICKVALUES", "Status codes", relative(86400),
			`,"field":`+refS("response_status")+`,"query":`+refParam("QUERY")+`,"show_pie_chart":`+refB(true)+`,"show_data_table":`+refB(false)+
				`,"limit":`+refI(5)+`,"sort_order":`+refS("desc")+`,"stacked_fields":`+refS(""), pos(3, 1, 2, 3)),
		widget("5b3c1d2e-0003-4a6f-9e2d-000000000003", "SEARCH_RESULT_CHART", "Messages", relative(300),
			`,"interval":`+refS("minute")+`,"query":`+refS(""), "null"),
	}, ",") + `]}`
	pack := `{"v":1,"id":"e2e-dash-v1","rev":1,"name":"Nginx","summary":"3.x","description":"","vendor":"community","url":"",
	"parameters":[{"name":"TITLE","title":"Title","description":"","type":"string","default_value":"Nginx"},
	  {"name":"QUERY","title":"Query","description":"","type":"string","default_value":"source:nginx"}],"entities":[
	 {"v":"1","type":{"name":"dashboard","version":"1"},"id":"3c01787d-877f-4345-9bee-20fb7fc21b2e","data":` + dashboard + `,
	  "constraints":[{"type":"server-version","version":">=3.0.0"}]},
	 ` + packEntity(streamID, "stream", `{"title":`+refS("nginx")+`,"description":`+refS("")+`,"disabled":`+refB(false)+`,"matching_type":`+refS("AND")+`,
	   "stream_rules":[],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],"default_stream":`+refB(false)+`,"remove_matches":`+refB(false)+`}`) + `]}`
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)
	in := h.Do("POST", "/system/content_packs/e2e-dash-v1/1/installations",
		`{"parameters":{"TITLE":`+refS("Nginx servers")+`,"QUERY":`+refS("source:web-1")+`}}`, root).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()+"/"+e.Get("type.version").String()] = e.Get("id").String()
	}
	dashID, stream := ids["dashboard/1"], ids["stream/1"]
	if len(ids) != 2 || dashID == "" || stream == "" {
		t.Fatalf("installation %s", in.Body)
	}

	// 4.0 clients see the converted dashboard and run its search.
	view := h.Do("GET", "/views/"+dashID, nil, root).Want(t, http.StatusOK)
	if view.Get("type").String() != "DASHBOARD" || view.Get("title").String() != "Nginx servers" || view.Get("summary").String() != "Converted Dashboard" ||
		view.Get("description").String() != "Nginx overview" || view.Get("owner").String() != in.Get("created_by").String() {
		t.Errorf("dashboard %s", view.Body)
	}
	var state gjson.Result
	view.Get("state").ForEach(func(_, v gjson.Result) bool { state = v; return false })
	titled := map[string]gjson.Result{}
	for _, w := range state.Get("widgets").Array() {
		titled[state.Get("titles.widget."+w.Get("id").String()).String()] = w
	}
	for _, c := range []struct {
		title, vis, query, streams string
		positioned                 bool
	}{
		{"Requests", "numeric", "", `["` + stream + `"]`, true},
		{"Status codes", "pie", "source:web-1", `[]`, true},
		{"Messages", "bar", "", `[]`, false},
	} {
		w := titled[c.title]
		if w.Get("config.visualization").String() != c.vis || w.Get("query.query_string").String() != c.query || w.Get("streams").Raw != c.streams ||
			state.Get("positions."+w.Get("id").String()).Exists() != c.positioned {
			t.Errorf("%s: widget %s, positions %s", c.title, w.Raw, state.Get("positions").Raw)
		}
	}
	searchID := view.Get("search_id").String()
	search := h.Do("GET", "/views/search/"+searchID, nil, root).Want(t, http.StatusOK)
	if search.Get("queries.0.search_types.#").Int() != 3 || !strings.Contains(search.Get("queries.0.search_types").Raw, `"streams":["`+stream+`"]`) {
		t.Errorf("search %s", search.Body)
	}
	h.Do("POST", "/views/search/"+searchID+"/execute", `{}`, root).Want(t, http.StatusCreated)

	// 3.x clients see the dashboard with its widgets and positions.
	v3 := nodetest.Header("X-API-Version", "3.0")
	legacy := h.Do("GET", "/dashboards/"+dashID, nil, root, v3).Want(t, http.StatusOK)
	requests := legacy.Get(`widgets.#(description=="Requests")`)
	if legacy.Get("widgets.#").Int() != 3 || requests.Get("type").String() != "STREAM_SEARCH_RESULT_COUNT" ||
		requests.Get("config.stream_id").String() != stream || requests.Get("config.timerange.range").Int() != 3600 ||
		legacy.Get("positions."+requests.Get("id").String()+".col").Int() != 1 {
		t.Errorf("legacy dashboard %s", legacy.Body)
	}
	if n := len(legacy.Get("positions").Map()); n != 2 {
		t.Errorf("legacy positions %s", legacy.Get("positions").Raw)
	}

	// The catalog lists it once, as a dashboard of version 2, and exports
	// it so; version 1 is not exported.
	cat := h.Do("GET", "/system/catalog", nil, root).Want(t, http.StatusOK)
	if listed := cat.Get(`entities.#(id=="` + dashID + `")#`); len(listed.Array()) != 1 || listed.Get("0.type.version").String() != "2" {
		t.Errorf("catalog lists %s", listed.Raw)
	}
	h.Do("POST", "/system/catalog", map[string]any{"entities": []any{
		map[string]any{"id": dashID, "type": map[string]any{"name": "dashboard", "version": "1"}},
	}}, root).WantError(t, http.StatusBadRequest, "dashboard version 1 is installed but not exported")
	resolved := h.Do("POST", "/system/catalog", map[string]any{"entities": []any{
		map[string]any{"id": dashID, "type": map[string]any{"name": "dashboard", "version": "2"}},
	}}, root).Want(t, http.StatusOK)
	exported := resolved.Get(`entities.#(type.name=="dashboard")`)
	if resolved.Get("entities.#").Int() != 2 || exported.Get("type.version").String() != "2" ||
		!strings.Contains(exported.Get("data.state").Raw, `"streams":["`+resolved.Get(`entities.#(type.name=="stream").id`).String()+`"]`) {
		t.Errorf("resolved %s", resolved.Body)
	}

	// Uninstalling deletes the view, its search and the stream.
	un := h.Do("DELETE", "/system/content_packs/e2e-dash-v1/installations/"+in.Get("_id").String(), nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 2 || un.Get("uninstalled.failed_entities.#").Int() != 0 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/views/"+dashID, nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/views/search/"+searchID, nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/streams/"+stream, nil, root).Want(t, http.StatusNotFound)

	// The export, version 2, installs again.
	export := map[string]any{"v": "1", "id": "e2e-dash-v1-export", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": resolved.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/e2e-dash-v1-export/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	for _, e := range re.Get("entities").Array() {
		ids[e.Get("type.name").String()+"/"+e.Get("type.version").String()] = e.Get("id").String()
	}
	again := h.Do("GET", "/dashboards/"+ids["dashboard/2"], nil, root, v3).Want(t, http.StatusOK)
	if again.Get("title").String() != "Nginx servers" || again.Get("widgets.#").Int() != 3 ||
		again.Get(`widgets.#(description=="Requests").config.stream_id`).String() != ids["stream/1"] {
		t.Errorf("re-installed dashboard %s", again.Body)
	}
}
