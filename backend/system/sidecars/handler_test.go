package sidecars_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/sidecars"
)

func TestSidecarPermissions(t *testing.T) {
	e := newEnv(t)
	e.register("node-1", "web-1", "linux", 0)
	fb := e.collectorID("filebeat", "linux")
	conf := e.configuration(fb, "web", "a: ${sidecar.nodeId}")
	v := e.as("POST", "/sidecar/configuration_variables", `{"name":"host","content":"h"}`, http.StatusOK).get("id").String()
	coll := `{"name":"x","service_type":"exec","node_operating_system":"linux","executable_path":"/bin/x"}`
	confBody := `{"collector_id":"` + fb + `","name":"n","color":"#fff","template":"t"}`
	collUpdate := strings.Replace(coll, `"x"`, `"filebeat"`, 1)
	confUpdate := strings.Replace(confBody, `"n"`, `"web"`, 1)
	cases := []struct {
		method, path, body string
		need               []string // every permission the route needs
	}{
		{"GET", "/sidecars", "", []string{"sidecars:read"}},
		{"GET", "/sidecars/all", "", []string{"sidecars:read"}},
		{"GET", "/sidecars/node-1", "", []string{"sidecars:read"}},
		{"PUT", "/sidecars/node-2", `{"node_name":"n","node_details":{"operating_system":"linux"}}`, []string{"sidecars:update"}},
		{"PUT", "/sidecars/configurations", `{"nodes":[]}`, []string{"sidecars:update"}},
		{"GET", "/sidecar/collectors", "", []string{"sidecar_collectors:read"}},
		{"GET", "/sidecar/collectors/summary", "", []string{"sidecar_collectors:read"}},
		{"GET", "/sidecar/collectors/" + fb, "", []string{"sidecar_collectors:read"}},
		{"POST", "/sidecar/collectors", coll, []string{"sidecar_collectors:create"}},
		{"PUT", "/sidecar/collectors/" + fb, collUpdate, []string{"sidecar_collectors:update"}},
		{"POST", "/sidecar/collectors/" + fb + "/copy", "", []string{"sidecar_collectors:read", "sidecar_collectors:create"}},
		{"POST", "/sidecar/collectors/validate", coll, []string{"sidecar_collectors:read"}},
		{"DELETE", "/sidecar/collectors/nope", "", []string{"sidecar_collectors:delete"}},
		{"GET", "/sidecar/configurations", "", []string{"sidecar_collector_configurations:read"}},
		{"GET", "/sidecar/configurations/" + conf, "", []string{"sidecar_collector_configurations:read"}},
		{"GET", "/sidecar/configurations/" + conf + "/sidecars", "", []string{"sidecar_collector_configurations:read", "sidecars:read"}},
		{"GET", "/sidecar/configurations/render/node-1/" + conf, "", []string{"sidecar_collector_configurations:read"}},
		{"POST", "/sidecar/configurations/render/preview", `{"template":"x"}`, []string{"sidecar_collector_configurations:read"}},
		{"POST", "/sidecar/configurations", confBody, []string{"sidecar_collector_configurations:create"}},
		{"PUT", "/sidecar/configurations/" + conf, confUpdate, []string{"sidecar_collector_configurations:update"}},
		{"POST", "/sidecar/configurations/" + conf + "/copy2", "", []string{"sidecar_collector_configurations:read", "sidecar_collector_configurations:create"}},
		{"POST", "/sidecar/configurations/validate", confBody, []string{"sidecar_collector_configurations:read"}},
		{"DELETE", "/sidecar/configurations/nope", "", []string{"sidecar_collector_configurations:delete"}},
		{"GET", "/sidecar/configuration_variables", "", []string{"sidecar_collector_configurations:read"}},
		{"POST", "/sidecar/configuration_variables", `{"name":"y","content":"c"}`, []string{"sidecar_collector_configurations:create"}},
		{"PUT", "/sidecar/configuration_variables/" + v, `{"name":"host","content":"h2"}`, []string{"sidecar_collector_configurations:update"}},
		{"DELETE", "/sidecar/configuration_variables/nope", "", []string{"sidecar_collector_configurations:update"}},
		{"GET", "/sidecar/configuration_variables/" + v + "/configurations", "", []string{"sidecar_collector_configurations:read"}},
		{"POST", "/sidecar/configuration_variables/validate", `{"name":"z","content":"c"}`, []string{"sidecar_collector_configurations:read"}},
		{"POST", "/sidecar/administration", `{}`, []string{"sidecars:read", "sidecar_collectors:read", "sidecar_collector_configurations:read"}},
		{"PUT", "/sidecar/administration/action", `{"action":"restart","collectors":[]}`, []string{"sidecars:update"}},
		{"GET", "/sidecar/action/node-1", "", []string{"sidecars:read"}},
		{"PUT", "/sidecar/action/node-1", `[]`, []string{"sidecars:update"}},
	}
	hdr := map[string]string{sidecars.VersionHeader: "1.0.0"}
	for _, c := range cases {
		name := c.method + " " + c.path
		if res := e.do(call{method: c.method, path: c.path, body: c.body, header: hdr}); res.Code != http.StatusUnauthorized {
			t.Errorf("%s anonymous: %d, want 401", name, res.Code)
		}
		// Missing any one of the permissions is a 403.
		for i := range c.need {
			others := append([]string{"streams:read"}, c.need[:i]...)
			others = append(others, c.need[i+1:]...)
			if res := e.do(call{method: c.method, path: c.path, body: c.body, perms: others, header: hdr}); res.Code != http.StatusForbidden {
				t.Errorf("%s without %s: %d %s, want 403", name, c.need[i], res.Code, res.Body)
			}
		}
		if res := e.do(call{method: c.method, path: c.path, body: c.body, perms: c.need, header: hdr}); res.Code == 401 || res.Code == 403 || res.Code >= 500 {
			t.Errorf("%s with %v: %d %s", name, c.need, res.Code, res.Body)
		}
	}
}

func TestSidecarRegistration(t *testing.T) {
	e := newEnv(t)
	hdr := map[string]string{sidecars.VersionHeader: "1.0.2"}
	bad := []struct {
		body   string
		header map[string]string
		want   string
	}{
		{`{"node_name":"a","node_details":{"operating_system":"linux"}}`, nil, sidecars.VersionHeader},
		{`{"node_details":{"operating_system":"linux"}}`, hdr, "node_name"},
		{`{"node_name":"","node_details":{"operating_system":"linux"}}`, hdr, "node_name"},
		{`{"node_name":"a"}`, hdr, "node_details"},
		{`{"node_name":"a","node_details":{}}`, hdr, "operating_system"},
		{`{"node_name":"a","node_details":{"operating_system":"linux"},"extra":1}`, hdr, "extra"},
		{`{"node_name":"a","node_details":{"operating_system":"linux","status":{"status":"x"}}}`, hdr, "status"},
		{``, hdr, "mandatory"},
		{`[`, hdr, "JSON"},
	}
	for _, c := range bad {
		res := e.do(call{method: "PUT", path: "/sidecars/n1", body: c.body, perms: admin, header: c.header})
		if res.Code != http.StatusBadRequest || !strings.Contains(res.Body.String(), c.want) {
			t.Errorf("%s: %d %s, want 400 naming %s", c.body, res.Code, res.Body, c.want)
		}
	}
	long := strings.Repeat("x", 600)
	if res := e.do(call{method: "PUT", path: "/sidecars/" + long, body: `{"node_name":"a","node_details":{"operating_system":"linux"}}`, perms: admin, header: hdr}); res.Code != http.StatusBadRequest {
		t.Errorf("a long id: %d", res.Code)
	}
	if res := e.as("GET", "/sidecars/all", "", 200); res.get("sidecars.#").Int() != 0 {
		t.Fatalf("refused registrations stored: %s", res.Body)
	}

	res := e.register("n1", "web-1", "linux", 0)
	want := `{"configuration":{"update_interval":30,"send_status":true},"configuration_override":false,"actions":null,"assignments":null}`
	if res.Body.String() != want {
		t.Errorf("registration answer %s, want %s", res.Body, want)
	}
	got := e.as("GET", "/sidecars/n1", "", 200)
	for path, want := range map[string]string{
		"node_id": "n1", "node_name": "web-1", "sidecar_version": "1.0.2", "last_seen": "2021-03-04T05:06:07.000Z",
		"active": "true", "node_details.operating_system": "linux", "node_details.status.collectors.0.collector_id": "c1",
		"node_details.ip": "10.0.0.1", "assignments": "[]", "collectors": "",
	} {
		if g := got.get(path); g.String() != want {
			t.Errorf("%s = %q, want %q in %s", path, g.String(), want, got.Body)
		}
	}
	e.as("GET", "/sidecars/nope", "", 404)

	// The cluster configuration's settings are answered.
	e.conf = settings{json.RawMessage(`{"sidecar_expiration_threshold":"P14D","sidecar_inactive_threshold":"PT2M","sidecar_update_interval":"PT1M","sidecar_send_status":false,"sidecar_configuration_override":true}`)}
	e.open()
	if res := e.register("n1", "web-1b", "linux", 2); res.get("configuration.update_interval").Int() != 60 || res.get("configuration.send_status").Bool() || !res.get("configuration_override").Bool() {
		t.Errorf("settings not answered: %s", res.Body)
	}
	e.clock.Advance(time.Minute)
	e.register("n2", "db-1", "windows", 3)
	e.clock.Advance(90 * time.Second) // n1 last seen 2.5 minutes ago: inactive

	cases := []struct {
		query string
		names []string
		total int // pagination.total
	}{
		{"", []string{"db-1", "web-1b"}, 2},
		{"?order=desc", []string{"web-1b", "db-1"}, 2},
		{"?only_active=true", []string{"db-1"}, 1},
		{"?query=web", []string{"web-1b"}, 1},
		{"?query=status:failing", []string{"web-1b"}, 1},
		{"?query=status:STOPPED", []string{"db-1"}, 1},
		{"?query=operating_system:windows", []string{"db-1"}, 1},
		{"?per_page=1&page=2", []string{"web-1b"}, 2},
		{"?sort=last_seen&order=desc", []string{"db-1", "web-1b"}, 2},
	}
	for _, c := range cases {
		res := e.as("GET", "/sidecars"+c.query, "", 200)
		var names []string
		for _, s := range res.get("sidecars.#.node_name").Array() {
			names = append(names, s.String())
		}
		if fmt.Sprint(names) != fmt.Sprint(c.names) || int(res.get("pagination.total").Int()) != c.total || res.get("total").Int() != 2 {
			t.Errorf("%s: %v total %d, want %v %d: %s", c.query, names, res.get("pagination.total").Int(), c.names, c.total, res.Body)
		}
	}
	res = e.as("GET", "/sidecars?only_active=true", "", 200)
	for _, key := range []string{"query", "pagination", "total", "only_active", "sort", "order", "sidecars", "filters"} {
		if !res.get(key).Exists() {
			t.Errorf("listing lacks %s: %s", key, res.Body)
		}
	}
	if !res.get("only_active").Bool() || res.get("sort").String() != "node_name" || res.get("order").String() != "asc" {
		t.Errorf("listing: %s", res.Body)
	}
	for _, q := range []string{"?sort=nope", "?page=0", "?per_page=-1", "?order=up", "?query=nope:x", `?query="x`} {
		e.as("GET", "/sidecars"+q, "", 400)
	}
	all := e.as("GET", "/sidecars/all", "", 200)
	if all.get("pagination.total").Int() != 2 || all.get("pagination.per_page").Int() != 2 || all.get("sort").Type.String() != "Null" || all.get("query").String() != "" {
		t.Errorf("/sidecars/all: %s", all.Body)
	}
}

func TestSidecarDefaultCollectors(t *testing.T) {
	e := newEnv(t)
	res := e.as("GET", "/sidecar/collectors", "", 200)
	var got []string
	for _, c := range res.get("collectors").Array() {
		got = append(got, c.Get("name").String()+"/"+c.Get("node_operating_system").String()+"/"+c.Get("service_type").String())
	}
	want := map[string]bool{"filebeat/linux/exec": true, "winlogbeat/windows/svc": true, "nxlog/linux/exec": true, "nxlog/windows/svc": true, "filebeat/windows/svc": true}
	if len(got) != 5 || res.get("total").Int() != 5 {
		t.Fatalf("collectors %v: %s", got, res.Body)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected collector %s", g)
		}
	}
	fb := e.as("GET", "/sidecar/collectors/"+e.collectorID("filebeat", "linux"), "", 200)
	if !strings.HasPrefix(fb.get("default_template").String(), "# Needed for Graylog\nfields_under_root: true\nfields.collector_node_id: ${sidecar.nodeName}\n") ||
		fb.get("execute_parameters").String() != "-c  %s" || fb.get("executable_path").String() != "/usr/share/filebeat/bin/filebeat" {
		t.Errorf("filebeat: %s", fb.Body)
	}
	// Every default template renders.
	for _, d := range sidecars.DefaultCollectors() {
		if _, err := e.svc.Preview(context.Background(), *d.DefaultTemplate); err != nil {
			t.Errorf("%s on %s: %v", d.Name, d.NodeOperatingSystem, err)
		}
	}
	// The Sidecar asks with the ETag it has.
	tag := res.Header().Get("ETag")
	again := e.do(call{method: "GET", path: "/sidecar/collectors", perms: admin, header: map[string]string{"If-None-Match": tag}})
	if tag == "" || again.Code != http.StatusNotModified || res.Header().Get("Cache-Control") != "private, no-transform" {
		t.Errorf("ETag %q: %d", tag, again.Code)
	}
	// A start adds the defaults that are missing, once.
	e.as("DELETE", "/sidecar/collectors/"+e.collectorID("nxlog", "windows"), "", http.StatusAccepted)
	e.open()
	e.open()
	if n := e.as("GET", "/sidecar/collectors", "", 200).get("total").Int(); n != 5 {
		t.Errorf("%d collectors after restarts, want 5", n)
	}
}

func TestSidecarCollectors(t *testing.T) {
	e := newEnv(t)
	body := func(name, st, os, path string) string {
		return fmt.Sprintf(`{"name":%q,"service_type":%q,"node_operating_system":%q,"executable_path":%q,"execute_parameters":"-c %%s","validation_parameters":null,"default_template":"x"}`, name, st, os, path)
	}
	created := e.as("POST", "/sidecar/collectors", body("mybeat", "exec", "linux", "/usr/bin/mybeat"), 200)
	id := created.get("id").String()
	if len(id) != 24 || created.get("validation_parameters").Type.String() != "Null" {
		t.Fatalf("created %s", created.Body)
	}
	invalid := []struct {
		body  string
		field string
		msg   string
	}{
		{body("", "exec", "linux", "/x"), "name", "Collector name cannot be empty."},
		{body("a b", "exec", "linux", "/x"), "name", "Collector name can only contain"},
		{body("b", "exec", "linux", ""), "executable_path", "Collector binary path cannot be empty."},
		{body("b", "exec", "linux", "/x;rm"), "executable_path", "cannot contain"},
		{body("b", "exec", "macos", "/x"), "node_operating_system", "Operating system can only be 'linux' or 'windows'."},
		{body("b", "svc", "linux", "/x"), "service_type", "Linux collectors only support"},
		{body("mybeat", "exec", "linux", "/x"), "name", `Collector "mybeat" already exists for the "linux" operating system.`},
	}
	for _, c := range invalid {
		res := e.as("POST", "/sidecar/collectors", c.body, 400)
		if !res.get("failed").Bool() || !strings.Contains(res.get("errors."+c.field+".0").String(), c.msg) {
			t.Errorf("%s: %s, want %s: %s", c.body, res.Body, c.field, c.msg)
		}
		v := e.as("POST", "/sidecar/collectors/validate", c.body, 200)
		if !v.get("failed").Bool() || !v.get("error_context").IsObject() {
			t.Errorf("validate %s: %s", c.body, v.Body)
		}
	}
	if v := e.as("POST", "/sidecar/collectors/validate", body("other", "svc", "windows", `C:\x.exe`), 200); v.Body.String() != `{"failed":false,"errors":{},"error_context":{}}` {
		t.Errorf("valid: %s", v.Body)
	}
	for _, b := range []string{`{"name":"x"}`, `{}`, `{"name":"x","service_type":"exec","node_operating_system":"linux","executable_path":"/x","bogus":1}`, `{"name":1}`} {
		e.as("POST", "/sidecar/collectors", b, 400)
	}
	// The same name on another operating system is another collector.
	e.as("POST", "/sidecar/collectors", body("mybeat", "svc", "windows", `C:\b.exe`), 200)
	upd := e.as("PUT", "/sidecar/collectors/"+id, body("mybeat", "exec", "linux", "/opt/mybeat"), 200)
	if upd.get("id").String() != id || upd.get("executable_path").String() != "/opt/mybeat" {
		t.Errorf("updated %s", upd.Body)
	}
	e.as("PUT", "/sidecar/collectors/000000000000000000000000", body("z", "exec", "linux", "/x"), 404)
	e.as("GET", "/sidecar/collectors/nope", "", 404)
	e.as("POST", "/sidecar/collectors/"+id+"/mybeat-copy", "", http.StatusAccepted)
	e.as("POST", "/sidecar/collectors/"+id+"/mybeat-copy", "", 400) // the name is taken
	e.as("POST", "/sidecar/collectors/nope/x", "", 404)
	e.collectorID("mybeat-copy", "linux")

	sum := e.as("GET", "/sidecar/collectors/summary?query=beat&per_page=2&sort=name&order=desc", "", 200)
	if sum.get("total").Int() != 8 || sum.get("pagination.total").Int() != 6 || sum.get("pagination.count").Int() != 2 ||
		sum.get("collectors.0.name").String() != "winlogbeat" || sum.get("collectors.0.executable_path").Exists() {
		t.Errorf("summary: %s", sum.Body)
	}
	e.configuration(id, "uses mybeat", "x")
	if res := e.as("DELETE", "/sidecar/collectors/"+id, "", 400); res.get("message").String() != "Collector still in use, cannot delete." {
		t.Errorf("delete in use: %s", res.Body)
	}
	e.as("DELETE", "/sidecar/collectors/nope", "", http.StatusNotModified)
}

func TestSidecarConfigurationsAndAssignments(t *testing.T) {
	e := newEnv(t)
	fb, nx := e.collectorID("filebeat", "linux"), e.collectorID("nxlog", "linux")
	e.register("node-1", "web-1", "linux", 0)

	// An unknown variable fails validation with FreeMarker's words.
	res := e.as("POST", "/sidecar/configurations", `{"collector_id":"`+fb+`","name":"web","color":"#fff","template":"host: ${user.logstash}"}`, 400)
	if msg := res.get("errors.template.0").String(); !strings.HasPrefix(msg, "Template error: ----\nFTL stack trace") || !strings.Contains(msg, "Failed at: ${user.logstash}") {
		t.Errorf("unknown variable: %s", res.Body)
	}
	e.as("POST", "/sidecar/configuration_variables", `{"name":"logstash","description":null,"content":"10.0.0.5:5044"}`, 200)
	conf := e.configuration(fb, "web", "host: ${user.logstash}\nid: ${sidecar.nodeId} name: ${ sidecar.nodeName } os: ${sidecar.operatingSystem} v: ${sidecar.sidecarVersion}")
	got := e.as("GET", "/sidecar/configurations/"+conf, "", 200)
	if got.get("collector_id").String() != fb || got.get("color").String() != "#ffffff" {
		t.Errorf("configuration %s", got.Body)
	}
	for _, c := range []struct{ body, field string }{
		{`{"collector_id":"` + fb + `","name":"web","color":"#fff","template":"x"}`, "name"},
		{`{"collector_id":"` + fb + `","name":"a|b","color":"#fff","template":"x"}`, "name"},
		{`{"collector_id":"","name":"b","color":"#fff","template":"x"}`, "collector_id"},
		{`{"collector_id":"` + fb + `","name":"b","color":"","template":"x"}`, "color"},
		{`{"collector_id":"` + fb + `","name":"b","color":"#fff","template":""}`, "template"},
		{`{"collector_id":"` + fb + `","name":"b","color":"#fff","template":"${a b}"}`, "template"},
		{`{"collector_id":"` + fb + `","name":"b","color":"#fff","template":"<#if x>y</#if>"}`, "template"},
	} {
		if res := e.as("POST", "/sidecar/configurations", c.body, 400); !res.get("errors." + c.field).Exists() {
			t.Errorf("%s: %s, want an error on %s", c.body, res.Body, c.field)
		}
	}
	e.as("POST", "/sidecar/configurations", `{"name":"b"}`, 400)

	// Assignments: checked, then answered to the Sidecar.
	bad := []struct {
		body string
		want int
	}{
		{`{"nodes":[{"node_id":"nope","assignments":[]}]}`, 404},
		{`{"nodes":[{"node_id":"node-1","assignments":[{"collector_id":"` + nx + `","configuration_id":"` + conf + `"}]}]}`, 404},
		{`{"nodes":[{"node_id":"node-1","assignments":[{"collector_id":"` + fb + `","configuration_id":"nope"}]}]}`, 404},
		{`{"nodes":[{"node_id":"node-1","assignments":[{"collector_id":"nope","configuration_id":"` + conf + `"}]}]}`, 404},
		{`{"nodes":[{"node_id":"node-1"}]}`, 400},
		{`{}`, 400},
		{`{"nodes":[` + strings.Repeat(`{"node_id":"x","assignments":[]},`, 10000) + `{"node_id":"x","assignments":[]}]}`, 400},
	}
	for _, c := range bad {
		e.as("PUT", "/sidecars/configurations", c.body, c.want)
	}
	e.as("PUT", "/sidecars/configurations", `{"nodes":[{"node_id":"node-1","assignments":[{"collector_id":"`+fb+`","configuration_id":"`+conf+`"}]}]}`, http.StatusAccepted)
	if a := e.register("node-1", "web-1", "linux", 0).get("assignments"); a.Raw != `[{"collector_id":"`+fb+`","configuration_id":"`+conf+`"}]` {
		t.Errorf("assignments answered: %s", a.Raw)
	}
	sc := e.as("GET", "/sidecars/node-1", "", 200)
	if sc.get("assignments.0.configuration_id").String() != conf {
		t.Errorf("sidecar %s", sc.Body)
	}
	using := e.as("GET", "/sidecar/configurations/"+conf+"/sidecars", "", 200)
	if using.get("configuration_id").String() != conf || using.get("sidecar_ids.#").Int() != 1 || using.get("sidecar_ids.0").String() == "node-1" {
		t.Errorf("sidecars using: %s", using.Body)
	}
	e.as("GET", "/sidecar/configurations/nope/sidecars", "", 404)

	// Rendering for the Sidecar.
	r := e.as("GET", "/sidecar/configurations/render/node-1/"+conf, "", 200)
	if want := "host: 10.0.0.5:5044\nid: node-1 name: web-1 os: linux v: 1.0.2\n"; r.get("template").String() != want || r.get("id").String() != conf {
		t.Errorf("rendered %q, want %q", r.get("template").String(), want)
	}
	if again := e.do(call{method: "GET", path: "/sidecar/configurations/render/node-1/" + conf, perms: admin, header: map[string]string{"If-None-Match": r.Header().Get("ETag")}}); again.Code != 304 {
		t.Errorf("If-None-Match: %d", again.Code)
	}
	if res := e.as("GET", "/sidecar/configurations/render/nope/"+conf, "", 404); res.get("message").String() != "Couldn't find Sidecar by ID: nope" {
		t.Errorf("%s", res.Body)
	}
	e.as("GET", "/sidecar/configurations/render/node-1/nope", "", 404)
	p := e.as("POST", "/sidecar/configurations/render/preview", `{"template":"n=${sidecar.nodeName}"}`, 200)
	if p.Body.String() != `{"preview":"n=<node name>\n"}` {
		t.Errorf("preview %s", p.Body)
	}
	e.as("POST", "/sidecar/configurations/render/preview", `{"template":"${sidecar.spoolDir}"}`, 400)

	// Assigned: no delete, no change of collector.
	if res := e.as("DELETE", "/sidecar/configurations/"+conf, "", 400); res.get("message").String() != "Configuration still in use, cannot delete." {
		t.Errorf("%s", res.Body)
	}
	e.as("PUT", "/sidecar/configurations/"+conf, `{"collector_id":"`+nx+`","name":"web","color":"#fff","template":"x"}`, 400)
	upd := e.as("PUT", "/sidecar/configurations/"+conf, `{"collector_id":"`+fb+`","name":"web","color":"#000","template":"y"}`, 200)
	if upd.get("color").String() != "#000" || upd.get("id").String() != conf {
		t.Errorf("updated %s", upd.Body)
	}
	e.as("PUT", "/sidecar/configurations/nope", `{"collector_id":"`+fb+`","name":"q","color":"#000","template":"y"}`, 404)
	e.as("POST", "/sidecar/configurations/"+conf+"/web-copy", "", http.StatusAccepted)
	e.as("POST", "/sidecar/configurations/nope/x", "", 404)
	list := e.as("GET", "/sidecar/configurations?query=web", "", 200)
	if list.get("total").Int() != 2 || list.get("configurations.#").Int() != 2 || list.get("configurations.1.name").String() != "web-copy" || list.get("configurations.0.template").Exists() {
		t.Errorf("list %s", list.Body)
	}
	if v := e.as("POST", "/sidecar/configurations/validate", `{"collector_id":"`+fb+`","name":"web","color":"#fff","template":"x"}`, 200); !v.get("failed").Bool() {
		t.Errorf("validate a taken name: %s", v.Body)
	}
	e.as("PUT", "/sidecars/configurations", `{"nodes":[{"node_id":"node-1","assignments":[]}]}`, http.StatusAccepted)
	e.as("DELETE", "/sidecar/configurations/"+conf, "", http.StatusAccepted)
	e.as("DELETE", "/sidecar/configurations/"+conf, "", http.StatusNotModified)
}

func TestSidecarVariables(t *testing.T) {
	e := newEnv(t)
	fb := e.collectorID("filebeat", "linux")
	b := e.as("POST", "/sidecar/configuration_variables", `{"name":"beta","content":"b"}`, 200).get("id").String()
	e.as("POST", "/sidecar/configuration_variables", `{"name":"alpha","description":"d","content":"a"}`, 200)
	if l := e.as("GET", "/sidecar/configuration_variables", "", 200); l.get("#.name").Raw != `["alpha","beta"]` {
		t.Errorf("list %s", l.Body)
	}
	for _, c := range []struct{ body, msg string }{
		{`{"name":"","content":"x"}`, "Variable name can not be empty."},
		{`{"name":"a-b","content":"x"}`, "Variable name can only contain the following characters: A-Z,a-z,0-9,_"},
		{`{"name":"1a","content":"x"}`, "Variable name can not start with numbers."},
		{`{"name":"beta","content":"x"}`, "A variable with that name already exists."},
		{`{"name":"gamma","content":""}`, "Variable content can not be empty."},
	} {
		res := e.as("POST", "/sidecar/configuration_variables", c.body, 400)
		if !strings.Contains(res.Body.String(), c.msg) || !res.get("failed").Bool() {
			t.Errorf("%s: %s", c.body, res.Body)
		}
		if v := e.as("POST", "/sidecar/configuration_variables/validate", c.body, 200); !v.get("failed").Bool() {
			t.Errorf("validate %s: %s", c.body, v.Body)
		}
	}
	conf := e.configuration(fb, "uses beta", "x: ${user.beta}")
	if u := e.as("GET", "/sidecar/configuration_variables/"+b+"/configurations", "", 200); u.get("#.id").Raw != `["`+conf+`"]` {
		t.Errorf("using: %s", u.Body)
	}
	res := e.as("DELETE", "/sidecar/configuration_variables/"+b, "", 400)
	if res.get("errors.name.0").String() != "Variable is still used in the following configurations: uses beta" {
		t.Errorf("delete in use: %s", res.Body)
	}
	// Renaming renames in the templates.
	e.as("PUT", "/sidecar/configuration_variables/"+b, `{"name":"beta","content":"b2"}`, 200)
	e.as("PUT", "/sidecar/configuration_variables/"+b, `{"name":"delta","content":"b2"}`, 200)
	if tpl := e.as("GET", "/sidecar/configurations/"+conf, "", 200).get("template").String(); tpl != "x: ${user.delta}" {
		t.Errorf("template after the rename: %q", tpl)
	}
	e.as("PUT", "/sidecar/configuration_variables/nope", `{"name":"x","content":"b2"}`, 404)
	e.as("GET", "/sidecar/configuration_variables/nope/configurations", "", 404)
	e.as("DELETE", "/sidecar/configuration_variables/nope", "", 404)
	e.as("PUT", "/sidecar/configurations/"+conf, `{"collector_id":"`+fb+`","name":"uses beta","color":"#fff","template":"none"}`, 200)
	e.as("DELETE", "/sidecar/configuration_variables/"+b, "", http.StatusAccepted)
}

func TestSidecarActionsAndAdministration(t *testing.T) {
	e := newEnv(t)
	e.register("lin-1", "lin-1", "linux", 0)
	e.register("win-1", "win-1", "windows", 2)
	fb, wl := e.collectorID("filebeat", "linux"), e.collectorID("winlogbeat", "windows")

	e.as("PUT", "/sidecar/administration/action", `{"action":"restart","collectors":[{"sidecar_id":"lin-1","collector_ids":["`+fb+`"]}]}`, http.StatusAccepted)
	e.as("PUT", "/sidecar/administration/action", `{"action":"reboot","collectors":[]}`, 400)
	e.as("PUT", "/sidecar/administration/action", `{"collectors":[]}`, 400)
	e.as("PUT", "/sidecar/action/lin-1", `[{"collector_id":"other","properties":{"stop":true}}]`, http.StatusAccepted)
	e.as("PUT", "/sidecar/action/lin-1", `[{"collector_id":"x"}]`, 400)
	e.as("PUT", "/sidecar/action/lin-1", `{}`, 400)
	if a := e.as("GET", "/sidecar/action/lin-1", "", 200); a.Body.String() != `[{"collector_id":"`+fb+`","properties":{"restart":true}},{"collector_id":"other","properties":{"stop":true}}]` {
		t.Errorf("actions %s", a.Body)
	}
	if a := e.as("GET", "/sidecar/action/nobody", "", 200); a.Body.String() != `[]` {
		t.Errorf("no actions: %s", a.Body)
	}
	// Delivered once, with the next heartbeat.
	if got := e.register("lin-1", "lin-1", "linux", 0).get("actions.#").Int(); got != 2 {
		t.Errorf("%d actions delivered", got)
	}
	if got := e.register("lin-1", "lin-1", "linux", 0).get("actions"); got.Type.String() != "Null" {
		t.Errorf("actions delivered twice: %s", got.Raw)
	}

	cases := []struct {
		body  string
		names string
		colls string // collectors of the first Sidecar listed
	}{
		{`{}`, `["lin-1","win-1"]`, ""},
		{`{"filters":{"os":"windows"}}`, `["win-1"]`, ""},
		{`{"filters":{"collector":"` + wl + `"}}`, `["win-1"]`, `["` + wl + `"]`},
		{`{"filters":{"status":"2"}}`, `["win-1"]`, ""},
		{`{"filters":{"status":"0","os":"windows"}}`, `[]`, ""},
		{`{"query":"lin"}`, `["lin-1"]`, ""},
		{`{"page":2,"per_page":1}`, `["win-1"]`, ""},
	}
	for _, c := range cases {
		res := e.as("POST", "/sidecar/administration", c.body, 200)
		if res.get("sidecars.#.node_name").Raw != c.names || !res.get("filters").IsObject() || res.get("sort").String() != "node_name" {
			t.Errorf("%s: %s, want %s", c.body, res.Body, c.names)
		}
		if c.colls != "" && res.get("sidecars.0.collectors").Raw != c.colls {
			t.Errorf("%s: collectors %s, want %s", c.body, res.get("sidecars.0.collectors").Raw, c.colls)
		}
	}
	if res := e.as("POST", "/sidecar/administration", `{}`, 200); res.get("sidecars.0.collectors.#").Int() != 2 {
		t.Errorf("lin-1 may run the two linux collectors: %s", res.Body)
	}
	e.as("POST", "/sidecar/administration", `{"filters":{"bogus":"x"}}`, 400)
	e.as("POST", "/sidecar/administration", `{"filters":{"status":"x"}}`, 400)
	e.as("POST", "/sidecar/administration", `{"filters":{"collector":"nope"}}`, 404)
	e.as("POST", "/sidecar/administration", `{"filters":{"configuration":"nope"}}`, 404)
	e.as("POST", "/sidecar/administration", `{"page":-1}`, 400)
}

func TestSidecarRenderTemplates(t *testing.T) {
	e := newEnv(t)
	e.as("POST", "/sidecar/configuration_variables", `{"name":"path","content":"/var/log/${x}"}`, 200)
	cases := []struct {
		template, want, err string
	}{
		{"plain $ and {} and #{x} and $x", "plain $ and {} and #{x} and $x\n", ""},
		{"a\n", "a\n", ""},
		{"", "\n", ""},
		{"${user.path}", "/var/log/${x}\n", ""}, // values are not rendered again
		{"${ sidecar . nodeName }", "<node name>\n", ""},
		{"x\n  ${sidecar.nope}", "", "Failed at: ${sidecar.nope}  [in template"},
		{"x\n  ${sidecar.nope}", "", "at line 2, column 3]"},
		{"${nope}", "", "Failed at: ${nope}"},
		{"${user.nope}", "", "Failed at: ${user.nope}"},
		{"${sidecar}", "", "evaluated to a hash"},
		{"${sidecar.nodeName", "", "Syntax error in template"},
		{"${sidecar.nodeName?upper_case}", "", "Unsupported expression"},
		{"<#list x as y></#list>", "", "directives are not supported"},
		{"${sidecar.spool_dir}", "", "Failed at"},
	}
	for _, c := range cases {
		b, _ := json.Marshal(map[string]string{"template": c.template})
		res := e.do(call{method: "POST", path: "/sidecar/configurations/render/preview", body: string(b), perms: admin})
		if c.err == "" {
			if res.Code != 200 || res.get("preview").String() != c.want {
				t.Errorf("%q: %d %s, want %q", c.template, res.Code, res.Body, c.want)
			}
			continue
		}
		if res.Code != 400 || !strings.HasPrefix(res.get("message").String(), "Could not render template preview: ") || !strings.Contains(res.get("message").String(), c.err) {
			t.Errorf("%q: %d %s, want 400 with %q", c.template, res.Code, res.Body, c.err)
		}
	}
}

// TestRenderOutputBounded: a template naming a long variable many times
// would render to far more than the request or the stored template holds
// (64 KiB × 300 here; 8 MiB × 900,000 at most): the rendering is refused
// past sidecars.MaxRendered instead of taking the node's memory.
func TestRenderOutputBounded(t *testing.T) {
	e := newEnv(t)
	big := strings.Repeat("k", 64<<10)
	e.as("POST", "/sidecar/configuration_variables", `{"name":"cert","description":"","content":"`+big+`"}`, 200)
	template := strings.Repeat("${user.cert}", 300)
	res := e.do(call{method: "POST", path: "/sidecar/configurations/render/preview", body: `{"template":"` + template + `"}`, perms: admin})
	if res.Code != 400 || !strings.Contains(res.get("message").String(), "larger than") {
		t.Errorf("preview: %d, %d bytes, message %.200q", res.Code, res.Body.Len(), res.get("message").String())
	}
	e.as("POST", "/sidecar/configurations/render/preview", `{"template":"${user.cert}"}`, 200)
}

// TestPurge: Graylog's PurgeExpiredSidecarsThread marks running Sidecars
// unseen for the inactive threshold as unknown, and deletes those unseen
// for the expiration threshold with their pending actions.
func TestPurge(t *testing.T) {
	e := newEnv(t)
	e.conf = settings{json.RawMessage(`{"sidecar_expiration_threshold":"P1D","sidecar_inactive_threshold":"PT2M"}`)}
	e.open()
	ctx := context.Background()
	fb := e.collectorID("filebeat", "linux")
	e.register("old", "old", "linux", sidecars.StatusRunning)
	e.as("PUT", "/sidecar/administration/action", `{"action":"restart","collectors":[{"sidecar_id":"old","collector_ids":["`+fb+`"]}]}`, http.StatusAccepted)
	e.clock.Advance(23 * time.Hour)
	e.register("quiet", "quiet", "linux", sidecars.StatusRunning)
	e.register("failing", "failing", "linux", sidecars.StatusFailing)
	e.clock.Advance(time.Hour + time.Second) // old: over a day; quiet, failing: an hour
	e.register("fresh", "fresh", "linux", sidecars.StatusRunning)

	marked, deleted, err := e.svc.Purge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if marked != 1 || deleted != 1 {
		t.Errorf("Purge: marked %d, deleted %d; want 1, 1", marked, deleted)
	}
	e.as("GET", "/sidecars/old", "", http.StatusNotFound)
	for _, c := range []struct {
		node, status string
		code         int64
	}{
		{"quiet", "Received no ping signal from sidecar", sidecars.StatusUnknown},
		{"failing", "m", sidecars.StatusFailing},
		{"fresh", "m", sidecars.StatusRunning},
	} {
		got := e.as("GET", "/sidecars/"+c.node, "", http.StatusOK)
		if s := got.get("node_details.status"); s.Get("status").Int() != c.code || s.Get("message").String() != c.status ||
			s.Get("collectors.0.status").Int() != c.code || s.Get("collectors.0.collector_id").String() != "c1" {
			t.Errorf("%s: status %s", c.node, s.Raw)
		}
	}
	// The purged Sidecar's pending actions went with it: registering
	// again starts afresh.
	if got := e.register("old", "old", "linux", sidecars.StatusRunning).get("actions"); got.Raw != "" && got.Raw != "null" {
		t.Errorf("a purged Sidecar's actions were kept: %s", got.Raw)
	}
	if marked, deleted, err := e.svc.Purge(ctx); err != nil || marked != 0 || deleted != 0 {
		t.Errorf("second Purge: %d, %d, %v; want nothing left to do", marked, deleted, err)
	}
}
