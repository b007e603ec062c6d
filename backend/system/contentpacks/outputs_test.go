package contentpacks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/backend/system/contentpacks"
	"github.com/loggate/loggate/backend/system/sidecars"
)

// sidecarAdmin may also create and read Sidecar collectors and
// configurations (which admin leaves out: the default collectors would
// fill the catalog of the other tests).
var sidecarAdmin = slices.Concat(admin, []string{"sidecar_collectors:*", "sidecar_collector_configurations:*"})

func iref(v int) string { return fmt.Sprintf(`{"@type":"integer","@value":%d}`, v) }

// outputEntity is a GELF output whose host is the parameter HOST.
func outputEntity(id string) string {
	return entity(id, "output", `{"title":`+sref("archive")+`,"type":`+sref(outputs.GELFType)+`,
	 "configuration":{"hostname":{"@type":"parameter","@value":"HOST"},"port":`+iref(12202)+`,"protocol":`+sref("UDP")+`}}`)
}

// streamWithOutputs is a stream entity e2 forwarding to the output entities
// named.
func streamWithOutputs(outs ...string) string {
	var refs []string
	for _, o := range outs {
		refs = append(refs, sref(o))
	}
	return strings.Replace(streamEntity(sref("fwd")), `"outputs":[]`, `"outputs":[`+strings.Join(refs, ",")+`]`, 1)
}

const outputParams = `{"name":"HOST","title":"h","description":"","type":"string"},{"name":"OFF","title":"o","description":"","type":"boolean"},{"name":"SRC","title":"s","description":"","type":"string"}`

const outputValues = `{"parameters":{"HOST":{"@type":"string","@value":"archive.example.org"},"OFF":{"@type":"boolean","@value":false},"SRC":{"@type":"string","@value":"web"}}}`

func resolve(e *env, perms []string, ds ...contentpacks.Descriptor) []contentpacks.Entity {
	e.t.Helper()
	var res struct {
		Entities []contentpacks.Entity `json:"entities"`
	}
	req, _ := json.Marshal(map[string]any{"entities": ds})
	e.want(e.do("POST", "/system/catalog", string(req), perms...), 200, &res)
	return res.Entities
}

func reinstall(e *env, id string, ents []contentpacks.Entity, perms []string) contentpacks.Installation {
	e.t.Helper()
	var parts []string
	for _, en := range ents {
		b, _ := json.Marshal(en)
		parts = append(parts, string(b))
	}
	e.want(e.do("POST", "/system/content_packs", pack(id, 1, "", strings.Join(parts, ",")), perms...), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/"+id+"/1/installations", `{}`, perms...), 200, &in)
	return in
}

func nativeIDs(in contentpacks.Installation) map[string]string {
	ids := map[string]string{}
	for _, d := range in.Entities {
		ids[d.Type.Name] = d.ID
	}
	return ids
}

// TestOutputEntities: an output installs before the stream of the pack
// that forwards to it, which it is attached to; exporting the stream
// exports the output with it; uninstalling removes both.
func TestOutputEntities(t *testing.T) {
	e := newEnvWith(t, true)
	ctx := context.Background()
	e.want(e.do("POST", "/system/content_packs", pack("o", 1, outputParams, streamWithOutputs("o1")+","+outputEntity("o1"))), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/o/1/installations", outputValues), 200, &in)
	if len(in.Entities) != 2 || in.Entities[0].Type.Name != "output" || in.Entities[0].Title != "archive" {
		t.Fatalf("installation %+v", in)
	}
	ids := nativeIDs(in)
	check := func(ids map[string]string) {
		t.Helper()
		out, err := e.out.Get(ctx, ids["output"])
		if err != nil || out.Type != outputs.GELFType || out.Configuration["hostname"] != "archive.example.org" ||
			out.Configuration["port"] != 12202 || out.Configuration["protocol"] != "UDP" || out.CreatorUserID == "" {
			t.Errorf("output %+v %v", out, err)
		}
		if st := e.ss.ss[ids["stream"]]; st == nil || !slices.Equal(st.Outputs, []string{ids["output"]}) {
			t.Errorf("stream %+v", st)
		}
	}
	check(ids)

	// The stream's export brings its output; the stream names it by its
	// entity id.
	ents := resolve(e, nil, contentpacks.Descriptor{ID: ids["stream"], Type: contentpacks.StreamV1})
	byType := map[string]contentpacks.Entity{}
	for _, en := range ents {
		byType[en.Type.Name] = en
	}
	if len(ents) != 2 || len(byType) != 2 {
		t.Fatalf("resolved %+v", ents)
	}
	var sdata struct {
		Outputs []contentpacks.ValueRef `json:"outputs"`
	}
	_ = json.Unmarshal(byType["stream"].Data, &sdata)
	if len(sdata.Outputs) != 1 || string(sdata.Outputs[0].Value) != `"`+byType["output"].ID+`"` {
		t.Errorf("exported stream %s", byType["stream"].Data)
	}
	for _, want := range []string{`"title":{"@type":"string","@value":"archive"}`, `"type":{"@type":"string","@value":"` + outputs.GELFType + `"}`,
		`"hostname":{"@type":"string","@value":"archive.example.org"}`, `"port":{"@type":"integer","@value":12202}`} {
		if !strings.Contains(string(byType["output"].Data), want) {
			t.Errorf("exported output %s lacks %s", byType["output"].Data, want)
		}
	}
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", ""), 200, &cat)
	if !slices.Contains(cat.Entities, contentpacks.Excerpt{ID: ids["output"], Type: contentpacks.OutputV1, Title: "archive"}) {
		t.Errorf("catalog %+v", cat.Entities)
	}

	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/o/installations/"+in.ID, ""), 200, &un)
	if len(un.Uninstalled.Entities) != 2 || len(un.Uninstalled.Failed) != 0 {
		t.Errorf("uninstalled %+v", un.Uninstalled)
	}
	if all, _ := e.out.List(ctx); len(all) != 0 || len(e.ss.ss) != 0 {
		t.Errorf("left %d outputs, %d streams", len(all), len(e.ss.ss))
	}

	// The export installs again.
	check(nativeIDs(reinstall(e, "o-exp", ents, nil)))
}

// TestGraylogOutputEntity: a GELF output as Graylog 4.0 exports it, with
// every field of its configuration (queue_size and max_inflight_sends,
// which tune Graylog's Java client, among them), installs.
func TestGraylogOutputEntity(t *testing.T) {
	e := newEnvWith(t, true)
	b := func(v bool) string { return fmt.Sprintf(`{"@type":"boolean","@value":%t}`, v) }
	out := entity("o1", "output", `{"title":`+sref("forward")+`,"type":`+sref(outputs.GELFType)+`,"configuration":{
	 "hostname":`+sref("graylog.example.org")+`,"port":`+iref(12201)+`,"protocol":`+sref("TCP")+`,
	 "connect_timeout":`+iref(1000)+`,"reconnect_delay":`+iref(500)+`,"tcp_no_delay":`+b(false)+`,"tcp_keep_alive":`+b(false)+`,
	 "tls_verification_enabled":`+b(false)+`,"tls_trust_cert_chain":`+sref("")+`,"queue_size":`+iref(512)+`,"max_inflight_sends":`+iref(512)+`}}`)
	e.want(e.do("POST", "/system/content_packs", pack("g", 1, "", out)), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/g/1/installations", `{}`), 200, &in)
	o, err := e.out.Get(context.Background(), nativeIDs(in)["output"])
	if err != nil || o.Configuration["hostname"] != "graylog.example.org" || o.Configuration["port"] != 12201 ||
		o.Configuration["connect_timeout"] != 1000 || o.Configuration["queue_size"] != nil {
		t.Errorf("output %+v %v", o, err)
	}
}

// TestOutputEntitiesRefused: what installing outputs and streams with
// outputs refuses, leaving nothing behind.
func TestOutputEntitiesRefused(t *testing.T) {
	e := newEnvWith(t, true)
	badType := entity("o1", "output", `{"title":`+sref("x")+`,"type":`+sref("org.example.NoOutput")+`,"configuration":{}}`)
	cases := []struct {
		name, entities string
		perms          []string
		code           int
		msg            string
	}{
		{"missing output", streamWithOutputs("o9"), nil, 400, "missing referenced output: o9"},
		{"unknown type", badType, nil, 400, "Invalid output type"},
		{"no title", entity("o1", "output", `{"title":`+sref("")+`,"type":`+sref(outputs.GELFType)+`,"configuration":{}}`), nil, 400, "title"},
		{"missing parameter", entity("o1", "output", `{"title":`+sref("x")+`,"type":`+sref(outputs.GELFType)+`,"configuration":{"hostname":{"@type":"parameter","@value":"NOPE"}}}`), nil, 400, "missing parameter NOPE"},
		{"output needs outputs:create", outputEntity("o1"), []string{"contentpack:*", "streams:*", "stream_outputs:*"}, 403, "output"},
		{"stream outputs need stream_outputs:create", streamWithOutputs("o1") + "," + outputEntity("o1"),
			[]string{"contentpack:*", "streams:*", "outputs:*"}, 403, "stream"},
		// POST /streams/{id}/outputs needs streams:edit:{id} too, which no
		// one holds for a stream not yet created but through every stream's:
		// creating a stream does not grant editing it, so streams:create
		// alone would forward the messages it routes to any host.
		{"stream outputs need streams:edit", streamWithOutputs("o1") + "," + outputEntity("o1"),
			[]string{"contentpack:*", "streams:create", "streams:read", "outputs:create", "stream_outputs:create"}, 403, "stream"},
	}
	for i, c := range cases {
		id := fmt.Sprintf("bad%d", i)
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, outputParams, c.entities)), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", outputValues, c.perms...)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, w.Code, w.Body, c.code, c.msg)
		}
	}
	if all, _ := e.out.List(context.Background()); len(all) != 0 || len(e.ss.ss) != 0 {
		t.Errorf("refused installations left %d outputs, %d streams", len(all), len(e.ss.ss))
	}
	// With the permissions the pack installs.
	e.want(e.do("POST", "/system/content_packs/bad5/1/installations", outputValues, "contentpack:*", "streams:create", "streams:edit",
		"outputs:create", "stream_outputs:create"), 200, nil)
}

// TestOutputExportNeedsRead: a stream's outputs are exported only to whom
// may read them, as the catalog lists them.
func TestOutputExportNeedsRead(t *testing.T) {
	e := newEnvWith(t, true)
	ctx := context.Background()
	out, err := e.out.Create(ctx, outputs.CreateRequest{Title: "o", Type: outputs.GELFType, Configuration: map[string]json.RawMessage{
		"hostname": json.RawMessage(`"h"`), "port": json.RawMessage(`12201`), "protocol": json.RawMessage(`"TCP"`)}}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	e.ss.ss["s0"] = &streams.Stream{ID: "s0", Title: "fwd", MatchingType: streams.MatchAnd, Outputs: []string{out.ID, "000000000000000000000bad"}}
	req := `{"entities":[{"id":"s0","type":{"name":"stream","version":"1"}}]}`
	cases := []struct {
		perms []string
		code  int
	}{
		{[]string{"catalog:*", "streams:read"}, 403},
		{[]string{"catalog:*", "streams:read", "outputs:read:" + out.ID}, 200},
	}
	for _, c := range cases {
		w := e.do("POST", "/system/catalog", req, c.perms...)
		if w.Code != c.code {
			t.Errorf("%v: %d %s, want %d", c.perms, w.Code, w.Body, c.code)
		}
		// The output that is gone is left out.
		if w.Code == 200 && (strings.Count(w.Body.String(), `"name":"output"`) != 1 || strings.Contains(w.Body.String(), "bad")) {
			t.Errorf("export %s", w.Body)
		}
	}
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", "", "catalog:*", "streams:read"), 200, &cat)
	for _, x := range cat.Entities {
		if x.Type == contentpacks.OutputV1 {
			t.Errorf("the catalog lists an output the caller may not read: %+v", x)
		}
	}
}

// TestURLWhitelistEntriesTwiceInAPack: a pack holding two entries of the
// same value (as a whitelist can, exported as it is) creates the first,
// finds it for the second, and uninstalling removes it: it was not on
// the system before.
func TestURLWhitelistEntriesTwiceInAPack(t *testing.T) {
	e := newEnvWith(t, true)
	ctx := context.Background()
	ents := whitelistEntity("w1", "a1", "literal", "https://api.example.org/") + "," +
		whitelistEntity("w2", "a2", "literal", "https://api.example.org/")
	e.want(e.do("POST", "/system/content_packs", pack("wl2", 1, "", ents)), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/wl2/1/installations", `{}`), 200, &in)
	if w, _ := e.cc.Whitelist(ctx); len(w.Entries) != 1 {
		t.Fatalf("whitelist %+v", w)
	}
	var details struct {
		Entities []contentpacks.NativeDescriptor `json:"entities"`
	}
	e.want(e.do("GET", "/system/content_packs/wl2/installations/"+in.ID+"/uninstall_details", ""), 200, &details)
	if len(details.Entities) == 0 {
		t.Errorf("uninstall details %+v of installation %+v", details, in)
	}
	e.want(e.do("DELETE", "/system/content_packs/wl2/installations/"+in.ID, ""), 200, nil)
	if w, _ := e.cc.Whitelist(ctx); len(w.Entries) != 0 {
		t.Errorf("uninstalling left %+v", w.Entries)
	}
}

func whitelistEntity(id, entryID, typ, value string) string {
	return entity(id, "url_whitelist_entry", fmt.Sprintf(`{"id":%q,"type":%q,"title":"api","value":%q}`, entryID, typ, value))
}

// TestURLWhitelistEntries: an entry is added unless one of the same type
// and value is there (then found on the system and kept on uninstall);
// it keeps its id unless another entry has it.
func TestURLWhitelistEntries(t *testing.T) {
	e := newEnvWith(t, true)
	ctx := context.Background()
	if err := e.cc.SetWhitelist(ctx, clusterconfig.Whitelist{Entries: []clusterconfig.WhitelistEntry{
		{ID: "mine", Type: "literal", Title: "mine", Value: "https://mine.example.org/"},
	}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, entity string
		found        bool
		id           string // the native id; "" a new one
	}{
		{"new entry", whitelistEntity("w", "e-1", "regex", `^https://api\.example\.org/.*$`), false, "e-1"},
		{"same type and value", whitelistEntity("w", "other", "literal", "https://mine.example.org/"), true, "mine"},
		{"same value, other type", whitelistEntity("w", "e-2", "regex", "https://mine.example.org/"), false, "e-2"},
		{"taken id", whitelistEntity("w", "mine", "literal", "https://taken.example.org/"), false, ""},
	}
	for i, c := range cases {
		id := fmt.Sprintf("w%d", i)
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, "", c.entity)), 201, nil)
		var in contentpacks.Installation
		e.want(e.do("POST", "/system/content_packs/"+id+"/1/installations", `{}`), 200, &in)
		d := in.Entities[0]
		if d.FoundOnSystem != c.found || (c.id != "" && d.ID != c.id) || (c.id == "" && (d.ID == "mine" || d.ID == "")) {
			t.Errorf("%s: installed %+v", c.name, d)
		}
		w, _ := e.cc.Whitelist(ctx)
		if !slices.ContainsFunc(w.Entries, func(x clusterconfig.WhitelistEntry) bool { return x.ID == d.ID }) ||
			w.Entries[0] != (clusterconfig.WhitelistEntry{ID: "mine", Type: "literal", Title: "mine", Value: "https://mine.example.org/"}) {
			t.Errorf("%s: whitelist %+v", c.name, w.Entries)
		}
		e.want(e.do("DELETE", "/system/content_packs/"+id+"/installations/"+in.ID, ""), 200, nil)
		w, _ = e.cc.Whitelist(ctx)
		if len(w.Entries) != 1 || w.Entries[0].ID != "mine" {
			t.Errorf("%s: uninstalled, the whitelist is %+v", c.name, w.Entries)
		}
	}

	refused := []struct{ name, entity, msg string }{
		{"unknown type", whitelistEntity("w", "x", "glob", "*"), "unknown URL whitelist entry type"},
		{"no value", entity("w", "url_whitelist_entry", `{"id":"x","type":"literal","title":"t"}`), "needs a value"},
		{"bad regex", whitelistEntity("w", "x", "regex", "("), "invalid regular expression"},
	}
	for i, c := range refused {
		id := fmt.Sprintf("bad%d", i)
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, "", c.entity)), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", `{}`)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want 400 with %q", c.name, w.Code, w.Body, c.msg)
		}
	}

	// Installing needs urlwhitelist:write; the catalog urlwhitelist:read.
	e.want(e.do("POST", "/system/content_packs/w0/1/installations", `{}`, "contentpack:*"), 403, nil)
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", "", "catalog:*"), 200, &cat)
	if len(cat.Entities) != 0 {
		t.Errorf("catalog without urlwhitelist:read %+v", cat.Entities)
	}
	e.want(e.do("GET", "/system/catalog", "", "catalog:*", "urlwhitelist:read"), 200, &cat)
	if len(cat.Entities) != 1 || cat.Entities[0].Title != "mine [https://mine.example.org/]" {
		t.Errorf("catalog %+v", cat.Entities)
	}
	d := contentpacks.Descriptor{ID: "mine", Type: contentpacks.URLWhitelistEntryV1}
	e.want(e.do("POST", "/system/catalog", `{"entities":[{"id":"mine","type":{"name":"url_whitelist_entry","version":"1"}}]}`, "catalog:*"), 403, nil)
	ents := resolve(e, []string{"catalog:*", "urlwhitelist:read"}, d)
	if len(ents) != 1 || string(ents[0].Data) != `{"id":"mine","type":"literal","title":"mine","value":"https://mine.example.org/"}` {
		t.Fatalf("exported %+v", ents)
	}
	// The export installs where the entry is gone.
	if err := e.cc.SetWhitelist(ctx, clusterconfig.Whitelist{}); err != nil {
		t.Fatal(err)
	}
	in := reinstall(e, "w-exp", ents, nil)
	if w, _ := e.cc.Whitelist(ctx); len(w.Entries) != 1 || w.Entries[0].ID != "mine" || in.Entities[0].FoundOnSystem {
		t.Errorf("reinstalled %+v: %+v", in, w)
	}
}

const nxTemplate = "<Output gelf>\n  Module om_udp\n</Output>\n"

// sidecarEntities are a configuration of the collector c1, then c1.
func sidecarEntities(name, os string) []string {
	return []string{
		entity("k1", "sidecar_collector_configuration", `{"collector_id":`+sref("c1")+`,"title":`+sref("cp-conf")+`,"color":`+sref("#ffcc00")+`,"template":`+sref(nxTemplate)+`}`),
		entity("c1", "sidecar_collector", `{"name":`+sref(name)+`,"service_type":`+sref("exec")+`,"node_operating_system":`+sref(os)+`,
		 "executable_path":`+sref("/usr/bin/cp-agent")+`,"execute_parameters":`+sref("-c %s")+`,"validation_parameters":null,"default_template":`+sref("")+`}`),
	}
}

// TestSidecarEntities: a collector installs before its configuration,
// which is stored for it; a collector of the same name and operating
// system is found on the system; a configuration's export brings its
// collector.
func TestSidecarEntities(t *testing.T) {
	e := newEnvWith(t, true)
	ctx := context.Background()
	before, _ := e.sc.Collectors(ctx)
	e.want(e.do("POST", "/system/content_packs", pack("sc", 1, "", strings.Join(sidecarEntities("cp-agent", "linux"), ",")), sidecarAdmin...), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/sc/1/installations", `{}`, sidecarAdmin...), 200, &in)
	if len(in.Entities) != 2 || in.Entities[0].Type.Name != "sidecar_collector" || in.Entities[0].FoundOnSystem || in.Entities[1].Title != "cp-conf" {
		t.Fatalf("installation %+v", in)
	}
	ids := nativeIDs(in)
	check := func(ids map[string]string) {
		t.Helper()
		c, err := e.sc.Collector(ctx, ids["sidecar_collector"])
		if err != nil || c.Name != "cp-agent" || c.NodeOperatingSystem != "linux" || c.ExecuteParameters == nil || *c.ExecuteParameters != "-c %s" || c.ValidationParameters != nil {
			t.Errorf("collector %+v %v", c, err)
		}
		k, err := e.sc.Configuration(ctx, ids["sidecar_collector_configuration"])
		if err != nil || k.CollectorID != c.ID || k.Name != "cp-conf" || k.Color != "#ffcc00" || k.Template != nxTemplate {
			t.Errorf("configuration %+v %v", k, err)
		}
	}
	check(ids)

	ents := resolve(e, sidecarAdmin, contentpacks.Descriptor{ID: ids["sidecar_collector_configuration"], Type: contentpacks.SidecarCollectorConfigurationV1})
	byType := map[string]contentpacks.Entity{}
	for _, en := range ents {
		byType[en.Type.Name] = en
	}
	if len(ents) != 2 || len(byType) != 2 {
		t.Fatalf("resolved %+v", ents)
	}
	if !strings.Contains(string(byType["sidecar_collector_configuration"].Data), `"collector_id":{"@type":"string","@value":"`+byType["sidecar_collector"].ID+`"}`) ||
		!strings.Contains(string(byType["sidecar_collector"].Data), `"validation_parameters":null`) {
		t.Errorf("exported %s %s", byType["sidecar_collector_configuration"].Data, byType["sidecar_collector"].Data)
	}

	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/sc/installations/"+in.ID, "", sidecarAdmin...), 200, &un)
	if len(un.Uninstalled.Entities) != 2 || len(un.Uninstalled.Failed) != 0 {
		t.Errorf("uninstalled %+v", un.Uninstalled)
	}
	if after, _ := e.sc.Collectors(ctx); len(after) != len(before) {
		t.Errorf("%d collectors left, %d before", len(after), len(before))
	}
	if ks, _ := e.sc.Configurations(ctx); len(ks) != 0 {
		t.Errorf("configurations left %+v", ks)
	}
	check(nativeIDs(reinstall(e, "sc-exp", ents, sidecarAdmin)))

	// filebeat on linux is a default collector: found on the system, kept
	// on uninstall, and the configuration is stored for it.
	e.want(e.do("POST", "/system/content_packs", pack("fb", 1, "", strings.Replace(strings.Join(sidecarEntities("filebeat", "linux"), ","), "cp-conf", "fb-conf", 1)), sidecarAdmin...), 201, nil)
	e.want(e.do("POST", "/system/content_packs/fb/1/installations", `{}`, sidecarAdmin...), 200, &in)
	fb := in.Entities[0]
	if fb.Type.Name != "sidecar_collector" || !fb.FoundOnSystem || fb.Title != "filebeat" {
		t.Fatalf("installation %+v", in)
	}
	if k, _ := e.sc.Configuration(ctx, in.Entities[1].ID); k.CollectorID != fb.ID {
		t.Errorf("configuration %+v for %s", k, fb.ID)
	}
	e.want(e.do("DELETE", "/system/content_packs/fb/installations/"+in.ID, "", sidecarAdmin...), 200, &un)
	if _, err := e.sc.Collector(ctx, fb.ID); err != nil || len(un.Uninstalled.Entities) != 1 || len(un.Uninstalled.Skipped) != 1 {
		t.Errorf("uninstalled %+v: %v", un.Uninstalled, err)
	}
}

// TestSidecarEntitiesRefused: what installing Sidecar entities refuses,
// leaving nothing behind, and the permissions they need.
func TestSidecarEntitiesRefused(t *testing.T) {
	e := newEnvWith(t, true)
	ctx := context.Background()
	before, _ := e.sc.Collectors(ctx)
	ents := sidecarEntities("cp-agent", "linux")
	cases := []struct {
		name, entities string
		perms          []string
		code           int
		msg            string
	}{
		{"missing collector", ents[0], sidecarAdmin, 400, `missing collector \"c1\"`},
		{"bad operating system", strings.Join(sidecarEntities("cp-agent", "plan9"), ","), sidecarAdmin, 400, "node_operating_system: Operating system can only be"},
		{"empty template", strings.Replace(strings.Join(ents, ","), sref(nxTemplate), sref(""), 1), sidecarAdmin, 400, "template: Collector template cannot be empty."},
		{"collector needs sidecar_collectors:create", ents[1], []string{"contentpack:*"}, 403, "sidecar_collector"},
		{"configuration needs sidecar_collector_configurations:create", strings.Join(ents, ","), []string{"contentpack:*", "sidecar_collectors:create"}, 403, "sidecar_collector_configuration"},
	}
	for i, c := range cases {
		id := fmt.Sprintf("bad%d", i)
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, "", c.entities)), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", `{}`, c.perms...)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, w.Code, w.Body, c.code, c.msg)
		}
	}
	if after, _ := e.sc.Collectors(ctx); len(after) != len(before) {
		t.Errorf("refused installations left %d collectors, %d before", len(after), len(before))
	}
	if ks, _ := e.sc.Configurations(ctx); len(ks) != 0 {
		t.Errorf("refused installations left configurations %+v", ks)
	}
	// The catalog lists and exports collectors to whom may read them.
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", "", "catalog:*"), 200, &cat)
	if len(cat.Entities) != 0 {
		t.Errorf("catalog without sidecar_collectors:read %+v", cat.Entities)
	}
	e.want(e.do("GET", "/system/catalog", "", "catalog:*", sidecars.PermCollectorsRead), 200, &cat)
	if len(cat.Entities) != len(before) {
		t.Errorf("catalog %+v", cat.Entities)
	}
	req := `{"entities":[{"id":"` + before[0].ID + `","type":{"name":"sidecar_collector","version":"1"}}]}`
	e.want(e.do("POST", "/system/catalog", req, "catalog:*"), 403, nil)
	e.want(e.do("POST", "/system/catalog", req, "catalog:*", sidecars.PermCollectorsRead), 200, nil)
}
