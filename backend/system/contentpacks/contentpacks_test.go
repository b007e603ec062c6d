package contentpacks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/pipelines/functions"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/backend/system/contentpacks"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/backend/system/sidecars"
	legacyviews "github.com/loggate/loggate/legacy/views"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// fakeGrok and fakeStreams keep entities in memory.
type fakeGrok struct{ ps map[string]grok.Pattern }

func (f *fakeGrok) All() []grok.Pattern {
	var out []grok.Pattern
	for _, p := range f.ps {
		out = append(out, p)
	}
	return out
}

func (f *fakeGrok) Get(id string) (grok.Pattern, error) {
	p, ok := f.ps[id]
	if !ok {
		return p, api.Errorf(api.NotFound, "no pattern %s", id)
	}
	return p, nil
}

func (f *fakeGrok) Create(_ context.Context, p grok.Pattern) (grok.Pattern, error) {
	for _, o := range f.ps {
		if o.Name == p.Name {
			return p, api.Errorf(api.Invalid, "Grok pattern %s already exists", p.Name)
		}
	}
	p.ID = fmt.Sprintf("g%d", len(f.ps)+1)
	f.ps[p.ID] = p
	return p, nil
}

func (f *fakeGrok) Delete(_ context.Context, id string) error { delete(f.ps, id); return nil }

type fakeStreams struct{ ss map[string]*streams.Stream }

func (f *fakeStreams) All() []*streams.Stream {
	var out []*streams.Stream
	for _, s := range f.ss {
		out = append(out, s)
	}
	return out
}

func (f *fakeStreams) Get(id string) (*streams.Stream, error) {
	s, ok := f.ss[id]
	if !ok {
		return nil, api.Errorf(api.NotFound, "no stream %s", id)
	}
	return s, nil
}

func (f *fakeStreams) Create(_ context.Context, s *streams.Stream) error {
	if s.Title == "" {
		return api.Invalidf("title", "empty title")
	}
	s.ID = fmt.Sprintf("s%d", len(f.ss)+1)
	f.ss[s.ID] = s
	return nil
}

func (f *fakeStreams) Delete(_ context.Context, id string) error { delete(f.ss, id); return nil }

// AddOutput and RemoveOutput are what the outputs service needs of the
// streams.
func (f *fakeStreams) AddOutput(_ context.Context, streamID, outputID string) error {
	s, ok := f.ss[streamID]
	if !ok {
		return store.ErrNotFound
	}
	s.Outputs = append(s.Outputs, outputID)
	return nil
}

func (f *fakeStreams) RemoveOutput(_ context.Context, outputID string) error {
	for _, s := range f.ss {
		s.Outputs = slices.DeleteFunc(s.Outputs, func(o string) bool { return o == outputID })
	}
	return nil
}

type defaultIndexSet struct{}

func (defaultIndexSet) DefaultID(context.Context) (string, error) { return "is1", nil }

type env struct {
	t  testing.TB
	g  *fakeGrok
	ss *fakeStreams
	h  http.Handler
	// lk and pl, the real services over the pack's store, only in
	// environments made by newEnvWith(t, true).
	lk *lookup.Service
	pl *pipelines.Service
	// vs and se, the real views and their searches over the pack's
	// store.
	vs *views.Service
	se *views.Searches
	st store.Store
	// out, cc and sc, the real outputs, cluster configuration (the URL
	// whitelist) and Sidecar services, only in full environments too.
	out *outputs.Service
	cc  *clusterconfig.Service
	sc  *sidecars.Service
}

func newEnv(t *testing.T) *env { return newEnvWith(t, false) }

// newEnvWith returns an environment; full adds the lookup tables, the
// pipelines, the outputs, the URL whitelist and the Sidecars.
func newEnvWith(t testing.TB, full bool) *env {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), slices.Concat(lookup.Indexes, pipelines.Indexes))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := &env{t: t, g: &fakeGrok{ps: map[string]grok.Pattern{}}, ss: &fakeStreams{ss: map[string]*streams.Stream{}}}
	now := func() time.Time { return time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC) }
	e.st = st
	e.vs = views.NewService(st, now)
	e.se = views.NewSearches(st, e.vs, now)
	deps := contentpacks.Deps{Grok: e.g, Streams: e.ss, IndexSets: defaultIndexSet{}, Views: e.vs, ViewSearches: e.se,
		LegacyDashboards: legacyviews.PackDashboards{}}
	if full {
		ctx := context.Background()
		if e.lk, err = lookup.NewService(ctx, st, lookup.Options{Now: now}); err != nil {
			t.Fatal(err)
		}
		lib := functions.New(functions.Deps{Lookup: e.lk, Now: now})
		if e.pl, err = pipelines.NewService(ctx, st, lib, metrics.New(now), now); err != nil {
			t.Fatal(err)
		}
		deps.Lookup, deps.Pipelines = e.lk, e.pl
		e.out = outputs.NewService(st, e.ss, now)
		if e.cc, err = clusterconfig.NewService(ctx, st); err != nil {
			t.Fatal(err)
		}
		if e.sc, err = sidecars.NewService(ctx, st, e.cc, now); err != nil {
			t.Fatal(err)
		}
		deps.Outputs, deps.URLWhitelist, deps.Sidecars = e.out, e.cc, e.sc
	}
	svc := contentpacks.NewService(st, deps, now)
	e.h = routertest.Handler(contentpacks.NewHandler(svc).Routes())
	return e
}

// admin holds what the packs' entities need too: creating and reading
// grok patterns and streams.
var admin = []string{"contentpack:*", "catalog:*", "inputs:*", "streams:*", "lookuptables:*", "pipeline_rule:*", "pipeline:*",
	"outputs:*", "stream_outputs:*", "urlwhitelist:*", "dashboards:create"}

func (e *env) do(method, path, body string, perms ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if perms == nil {
		perms = admin
	}
	r = r.WithContext(auth.WithPrincipal(r.Context(), routertest.Principal(e.t, perms...)))
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

func (e *env) want(w *httptest.ResponseRecorder, code int, out any) {
	e.t.Helper()
	if w.Code != code {
		e.t.Fatalf("status %d %s, want %d", w.Code, w.Body, code)
	}
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			e.t.Fatalf("decoding %s: %v", w.Body, err)
		}
	}
}

func pack(id string, rev int, params, entities string) string {
	return fmt.Sprintf(`{"v":"1","id":%q,"rev":%d,"name":"p","summary":"","description":"","vendor":"","url":"","parameters":[%s],"entities":[%s]}`, id, rev, params, entities)
}

const grokEntity = `{"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"e1","data":{"name":"CP_WORD","pattern":"\\w+"},"constraints":[]}`

func streamEntity(title string) string {
	return `{"v":"1","type":{"name":"stream","version":"1"},"id":"e2","data":{"title":` + title + `,"description":{"@type":"string","@value":"d"},"disabled":{"@type":"parameter","@value":"OFF"},"matching_type":{"@type":"string","@value":"OR"},"stream_rules":[{"type":{"@type":"string","@value":"REGEX"},"field":{"@type":"string","@value":"source"},"value":{"@type":"parameter","@value":"SRC"},"inverted":{"@type":"boolean","@value":false},"description":{"@type":"string","@value":""}}],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],"default_stream":{"@type":"boolean","@value":false},"remove_matches":{"@type":"boolean","@value":true}},"constraints":[]}`
}

const params3 = `{"name":"TITLE","title":"t","description":"","type":"string","default_value":"x"},{"name":"OFF","title":"o","description":"","type":"boolean"},{"name":"SRC","title":"s","description":"","type":"string"}`

func TestUploadInvalid(t *testing.T) {
	e := newEnv(t)
	many := strings.TrimSuffix(strings.Repeat(`{"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"x","data":{}},`, contentpacks.MaxEntities+1), ",")
	cases := []struct{ name, body, msg string }{
		{"not json", `{`, ""},
		{"version 0", strings.Replace(pack("a", 1, "", ""), `"v":"1"`, `"v":"0"`, 1), "version"},
		{"no id", pack("", 1, "", ""), "id"},
		{"id no permission can name", pack("a,b", 1, "", ""), "must not hold"},
		{"id no path can name", pack("a/b", 1, "", ""), "must not hold"},
		{"revision 0", pack("a", 0, "", ""), "revision"},
		{"parameter type", pack("a", 1, `{"name":"P","type":"date"}`, ""), "unknown type"},
		{"parameter default", pack("a", 1, `{"name":"P","type":"integer","default_value":"x"}`, ""), "Default value"},
		{"duplicate parameter", pack("a", 1, `{"name":"P","type":"string"},{"name":"P","type":"string"}`, ""), "Duplicate"},
		{"duplicate entity", pack("a", 1, "", grokEntity+","+grokEntity), "Duplicate entity"},
		{"entity data", pack("a", 1, "", `{"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"e","data":3}`), "JSON object"},
		{"too many entities", pack("a", 1, "", many), "at most"},
	}
	for _, c := range cases {
		w := e.do("POST", "/system/content_packs", c.body)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want 400 with %q", c.name, w.Code, w.Body, c.msg)
		}
	}
}

func TestUploadListGetDelete(t *testing.T) {
	e := newEnv(t)
	for _, b := range []string{pack("a", 1, "", grokEntity), pack("a", 2, "", grokEntity), pack("b", 1, "", "")} {
		w := e.do("POST", "/system/content_packs", b)
		e.want(w, 201, nil)
	}
	e.want(e.do("POST", "/system/content_packs", pack("a", 2, "", "")), 400, nil)

	var all struct {
		Total    int                        `json:"total"`
		Packs    []contentpacks.Pack        `json:"content_packs"`
		Metadata *map[string]map[string]any `json:"content_packs_metadata"` // none installed: {}
	}
	e.want(e.do("GET", "/system/content_packs", ""), 200, &all)
	if all.Total != 3 || len(all.Packs) != 3 || all.Metadata == nil {
		t.Errorf("list: %+v", all)
	}
	e.want(e.do("GET", "/system/content_packs/latest", ""), 200, &all)
	if all.Total != 2 || all.Packs[0].Rev != 2 {
		t.Errorf("latest: %+v", all)
	}
	var revs struct {
		Revisions map[string]contentpacks.Pack `json:"content_pack_revisions"`
	}
	e.want(e.do("GET", "/system/content_packs/a", ""), 200, &revs)
	if len(revs.Revisions) != 2 || revs.Revisions["2"].Rev != 2 {
		t.Errorf("revisions: %+v", revs)
	}
	var one struct {
		Pack contentpacks.Pack `json:"content_pack"`
	}
	e.want(e.do("GET", "/system/content_packs/a/1", ""), 200, &one)
	if one.Pack.ID != "a" || len(one.Pack.Entities) != 1 || one.Pack.ServerVersion == "" {
		t.Errorf("get: %+v", one)
	}
	var dl contentpacks.Pack
	e.want(e.do("GET", "/system/content_packs/a/1/download", ""), 200, &dl)
	if dl.ID != "a" || dl.Rev != 1 {
		t.Errorf("download: %+v", dl)
	}

	cases := []struct {
		method, path string
		perms        []string
		want         int
	}{
		{"GET", "/system/content_packs/a/9", nil, 404},
		{"GET", "/system/content_packs/a/x", nil, 404},
		{"GET", "/system/content_packs/zzz", nil, 404},
		{"GET", "/system/content_packs", []string{"streams:read"}, 403},
		{"GET", "/system/content_packs/a", []string{"contentpack:read:b"}, 403},
		{"GET", "/system/content_packs/a", []string{"contentpack:read:a"}, 200},
		{"DELETE", "/system/content_packs/a/1", []string{"contentpack:read"}, 403},
		{"DELETE", "/system/content_packs/a/1", nil, 204},
		{"GET", "/system/content_packs/a/1", nil, 404},
		{"DELETE", "/system/content_packs/a", nil, 204},
		{"GET", "/system/content_packs/a", nil, 404},
	}
	for _, c := range cases {
		if w := e.do(c.method, c.path, "", c.perms...); w.Code != c.want {
			t.Errorf("%s %s %v: %d %s, want %d", c.method, c.path, c.perms, w.Code, w.Body, c.want)
		}
	}
}

func TestInstallParameters(t *testing.T) {
	e := newEnv(t)
	body := pack("p", 1, params3, grokEntity+","+streamEntity(`{"@type":"parameter","@value":"TITLE"}`))
	e.want(e.do("POST", "/system/content_packs", body), 201, nil)
	good := `"TITLE":{"@type":"string","@value":"web"},"OFF":{"@type":"boolean","@value":true},"SRC":{"@type":"string","@value":"^web"}`
	cases := []struct{ name, params, msg string }{
		{"missing", `"TITLE":{"@type":"string","@value":"web"},"OFF":{"@type":"boolean","@value":true}`, "Missing parameters: [SRC]"},
		{"unknown", good + `,"X":{"@type":"string","@value":"x"}`, "Unknown parameters: [X]"},
		{"wrong type", `"TITLE":{"@type":"integer","@value":1},"OFF":{"@type":"boolean","@value":true},"SRC":{"@type":"string","@value":"x"}`, "Invalid parameters: [TITLE]"},
		{"bad literal", `"TITLE":{"@type":"string","@value":"a"},"OFF":{"@type":"boolean","@value":"yes"},"SRC":{"@type":"string","@value":"x"}`, "Invalid parameters: [OFF]"},
	}
	for _, c := range cases {
		w := e.do("POST", "/system/content_packs/p/1/installations", `{"parameters":{`+c.params+`},"comment":""}`)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want 400 with %q", c.name, w.Code, w.Body, c.msg)
		}
	}
	if len(e.g.ps) != 0 || len(e.ss.ss) != 0 {
		t.Fatalf("refused installs created entities")
	}

	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/p/1/installations", `{"parameters":{`+good+`},"comment":"c"}`), 200, &in)
	if len(in.Entities) != 2 || in.Comment != "c" || in.PackID != "p" {
		t.Fatalf("installation %+v", in)
	}
	var st *streams.Stream
	for _, s := range e.ss.ss {
		st = s
	}
	if st == nil || st.Title != "web" || !st.Disabled || st.MatchingType != streams.MatchOr || !st.RemoveMatchesFromDefaultStream ||
		len(st.Rules) != 1 || st.Rules[0].Type != streams.RuleRegex || st.Rules[0].Value != "^web" || st.IndexSetID != "is1" {
		t.Errorf("stream %+v", st)
	}
	// A revision installed cannot be deleted, nor its pack.
	e.want(e.do("DELETE", "/system/content_packs/p/1", ""), 400, nil)
	e.want(e.do("DELETE", "/system/content_packs/p", ""), 400, nil)

	// A second installation finds the grok pattern it made: uninstalling the
	// first one keeps it.
	var in2 contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/p/1/installations", `{"parameters":{`+good+`}}`), 200, &in2)
	var details struct {
		Entities []contentpacks.NativeDescriptor `json:"entities"`
	}
	e.want(e.do("GET", "/system/content_packs/p/installations/"+in.ID+"/uninstall_details", ""), 200, &details)
	if len(details.Entities) != 1 || details.Entities[0].Type.Name != "stream" {
		t.Errorf("uninstall details %+v", details)
	}
	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/p/installations/"+in.ID, ""), 200, &un)
	if len(un.Uninstalled.Entities) != 1 || len(un.Uninstalled.Skipped) != 1 || len(e.g.ps) != 1 || len(e.ss.ss) != 1 {
		t.Errorf("uninstalled %+v; %d patterns, %d streams left", un.Uninstalled, len(e.g.ps), len(e.ss.ss))
	}
	e.want(e.do("DELETE", "/system/content_packs/p/installations/"+in2.ID, ""), 200, &un)
	if len(e.g.ps) != 0 || len(e.ss.ss) != 0 {
		t.Errorf("left %d patterns, %d streams", len(e.g.ps), len(e.ss.ss))
	}
	e.want(e.do("DELETE", "/system/content_packs/p/installations/"+in2.ID, ""), 404, nil)
}

func TestInstallFoundOnSystemAndRollback(t *testing.T) {
	e := newEnv(t)
	e.g.ps["g0"] = grok.Pattern{ID: "g0", Name: "CP_WORD", Pattern: `\w+`}
	// The stream's title is empty: the install fails after the grok pattern
	// and creates nothing.
	e.want(e.do("POST", "/system/content_packs", pack("p", 1, "", grokEntity+","+streamEntity(`{"@type":"string","@value":""}`))), 201, nil)
	e.want(e.do("POST", "/system/content_packs/p/1/installations", `{"parameters":{}}`), 400, nil)
	e.want(e.do("POST", "/system/content_packs", pack("q", 1, "", grokEntity)), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/q/1/installations", `{}`), 200, &in)
	if len(in.Entities) != 1 || !in.Entities[0].FoundOnSystem || in.Entities[0].ID != "g0" {
		t.Errorf("installation %+v", in)
	}
	e.want(e.do("DELETE", "/system/content_packs/q/installations/"+in.ID, ""), 200, nil)
	if _, ok := e.g.ps["g0"]; !ok {
		t.Error("a pattern found on the system was removed")
	}
	// A pattern of the same name but another definition is refused.
	e.g.ps["g0"] = grok.Pattern{ID: "g0", Name: "CP_WORD", Pattern: `\d+`}
	e.want(e.do("POST", "/system/content_packs/q/1/installations", `{}`), 400, nil)
}

func TestUnsupportedTypes(t *testing.T) {
	// Types without a facade, types whose service is not given, and
	// versions of supported types loggate does not read (dashboard 1,
	// Graylog 3.x's dashboard, installs: TestDashboardV1Install).
	for _, c := range []struct {
		full              bool
		typ, version, msg string
	}{
		{false, "pipeline_rule", "1", "pipeline_rule"}, {false, "pipeline", "1", "pipeline"},
		{false, "lookup_table", "1", "lookup_table"}, {false, "input", "1", "input"}, {false, "output", "1", "output"},
		{false, "url_whitelist_entry", "1", "url_whitelist_entry"}, {false, "sidecar_collector", "1", "sidecar_collector"},
		{false, "sidecar_collector_configuration", "1", "sidecar_collector_configuration"},
		{false, "event_definition", "1", "event_definition"}, {false, "notification", "1", "notification"},
		{false, "search", "2", "search version 2"}, {false, "dashboard", "3", "dashboard version 3"},
		{true, "dashboard", "3", "dashboard version 3"}, {true, "lookup_table_v2", "1", "lookup_table_v2"},
	} {
		e := newEnvWith(t, c.full)
		id := "u-" + c.typ + c.version
		body := pack(id, 1, "", grokEntity+`,{"v":"1","type":{"name":"`+c.typ+`","version":"`+c.version+`"},"id":"x","data":{}}`)
		e.want(e.do("POST", "/system/content_packs", body), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", `{}`)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) || !strings.Contains(w.Body.String(), "not supported") {
			t.Errorf("%s %s: %d %s", c.typ, c.version, w.Code, w.Body)
		}
		w = e.do("POST", "/system/catalog", `{"entities":[{"id":"x","type":{"name":"`+c.typ+`","version":"`+c.version+`"}}]}`)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("catalog %s %s: %d %s", c.typ, c.version, w.Code, w.Body)
		}
		if len(e.g.ps) != 0 {
			t.Error("a refused install created a pattern")
		}
	}
	// With their services, the new types are supported: an entity without
	// data is refused for its data.
	e := newEnvWith(t, true)
	for _, typ := range []string{"output", "url_whitelist_entry", "sidecar_collector", "sidecar_collector_configuration"} {
		id := "s-" + typ
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, "", entity("x", typ, `{}`))), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", `{}`, sidecarAdmin...)
		if w.Code != 400 || strings.Contains(w.Body.String(), "not supported") {
			t.Errorf("%s: %d %s", typ, w.Code, w.Body)
		}
	}
}

func TestCatalogExportReinstalls(t *testing.T) {
	e := newEnv(t)
	e.g.ps["g0"] = grok.Pattern{ID: "g0", Name: "MINE", Pattern: `x+`}
	desc := "about"
	e.ss.ss["s0"] = &streams.Stream{ID: "s0", Title: "mine", Description: &desc, MatchingType: streams.MatchAnd,
		Rules: []streams.Rule{{Type: streams.RuleExact, Field: "f", Value: "v", Inverted: true}}}
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", ""), 200, &cat)
	if len(cat.Entities) != 2 {
		t.Fatalf("catalog %+v", cat)
	}
	var res struct {
		Entities []contentpacks.Entity `json:"entities"`
	}
	req, _ := json.Marshal(map[string]any{"entities": cat.Entities})
	e.want(e.do("POST", "/system/catalog", string(req)), 200, &res)
	if len(res.Entities) != 2 {
		t.Fatalf("resolved %+v", res)
	}
	ents, _ := json.Marshal(res.Entities)
	body := pack("exp", 1, "", strings.Trim(string(ents), "[]"))
	e.want(e.do("POST", "/system/content_packs", body), 201, nil)
	delete(e.g.ps, "g0")
	delete(e.ss.ss, "s0")
	e.want(e.do("POST", "/system/content_packs/exp/1/installations", `{}`), 200, nil)
	if len(e.g.ps) != 1 || len(e.ss.ss) != 1 {
		t.Fatalf("reinstalled %d patterns, %d streams", len(e.g.ps), len(e.ss.ss))
	}
	for _, s := range e.ss.ss {
		if s.Title != "mine" || *s.Description != "about" || len(s.Rules) != 1 || !s.Rules[0].Inverted || s.Rules[0].Type != streams.RuleExact {
			t.Errorf("stream %+v", s)
		}
	}
}

func sref(v string) string { return fmt.Sprintf(`{"@type":"string","@value":%q}`, v) }

func entity(id, typ, data string) string {
	return `{"v":"1","type":{"name":"` + typ + `","version":"1"},"id":"` + id + `","data":` + data + `,"constraints":[]}`
}

const (
	cpRule     = "rule \"cp-tag\"\nwhen has_field(\"source\")\nthen\n  set_field(\"owner\", lookup_value(\"cp-hosts\", $message.source));\nend"
	cpPipeline = "pipeline \"cp-pipe\"\nstage 0 match either\nrule \"cp-tag\";\nend"
)

// lookupEntities are a CSV data adapter (its path the parameter CSV), a
// cache and the table of the two, the table first.
func lookupEntities() []string {
	return []string{
		entity("t1", "lookup_table", `{"name":`+sref("cp-hosts")+`,"title":`+sref("Hosts")+`,"description":`+sref("")+`,
		 "cache_name":`+sref("c1")+`,"data_adapter_name":`+sref("a1")+`,"default_single_value":`+sref("nobody")+`,
		 "default_single_value_type":`+sref("STRING")+`,"default_multi_value":`+sref("")+`,"default_multi_value_type":`+sref("NULL")+`}`),
		entity("a1", "lookup_adapter", `{"name":`+sref("cp-hosts-csv")+`,"title":`+sref("Hosts CSV")+`,"description":`+sref("d")+`,
		 "configuration":{"type":`+sref("csvfile")+`,"path":{"@type":"parameter","@value":"CSV"},"separator":`+sref(",")+`,"quotechar":`+sref(`"`)+`,
		 "key_column":`+sref("host")+`,"value_column":`+sref("owner")+`,"check_interval":{"@type":"integer","@value":60},
		 "case_insensitive_lookup":{"@type":"boolean","@value":false}}}`),
		entity("c1", "lookup_cache", `{"name":`+sref("cp-hosts-cache")+`,"title":`+sref("Hosts cache")+`,"description":`+sref("")+`,
		 "configuration":{"type":`+sref("none")+`}}`),
	}
}

// pipelineEntities are a pipeline connected to the stream e2 and its rule,
// the pipeline first.
func pipelineEntities() []string {
	return []string{
		entity("p1", "pipeline", `{"title":`+sref("cp-pipe")+`,"description":`+sref("from a pack")+`,"source":`+sref(cpPipeline)+`,
		 "connected_streams":[`+sref("e2")+`]}`),
		entity("r1", "pipeline_rule", `{"title":`+sref("cp-tag")+`,"description":null,"source":`+sref(cpRule)+`}`),
	}
}

const csvParams = `{"name":"CSV","title":"c","description":"","type":"string"},{"name":"OFF","title":"o","description":"","type":"boolean"},{"name":"SRC","title":"s","description":"","type":"string"}`

func csvFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "hosts.csv")
	if err := os.WriteFile(path, []byte("host,owner\nweb-1,ops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// check verifies what the lookup and pipeline entities of a pack became:
// the table looks up through the adapter, the pipeline runs the rule and
// is connected to the stream.
func (e *env) check(streamID string) {
	e.t.Helper()
	ctx := context.Background()
	r, err := e.lk.Lookup(ctx, "cp-hosts", "web-1")
	if err != nil || r.Single != "ops" {
		e.t.Errorf("lookup: %+v %v", r, err)
	}
	if r, _ := e.lk.Lookup(ctx, "cp-hosts", "db-1"); r.Single != "nobody" {
		e.t.Errorf("default value: %+v", r)
	}
	pls := e.pl.Pipelines()
	if len(pls) != 1 || *pls[0].Title != "cp-pipe" || len(pls[0].Stages) != 1 || pls[0].Stages[0].Rules[0] != "cp-tag" || len(pls[0].Errors) != 0 {
		e.t.Fatalf("pipelines %+v", pls)
	}
	if rs := e.pl.Rules(); len(rs) != 1 || *rs[0].Title != "cp-tag" || rs[0].Source != cpRule || len(rs[0].Errors) != 0 {
		e.t.Errorf("rules %+v", rs)
	}
	if c, ok := e.pl.Connection(streamID); !ok || !slices.Equal(c.PipelineIDs, []string{*pls[0].ID}) {
		e.t.Errorf("connection of %s: %+v", streamID, c)
	}
}

// empty verifies that the lookup and pipeline entities are gone.
func (e *env) empty() {
	e.t.Helper()
	if len(e.lk.Tables()) != 0 || len(e.lk.Caches()) != 0 || len(e.lk.Adapters()) != 0 || len(e.pl.Rules()) != 0 || len(e.pl.Pipelines()) != 0 {
		e.t.Errorf("left %d tables, %d caches, %d adapters, %d rules, %d pipelines",
			len(e.lk.Tables()), len(e.lk.Caches()), len(e.lk.Adapters()), len(e.pl.Rules()), len(e.pl.Pipelines()))
	}
	for _, c := range e.pl.Connections() {
		if len(c.PipelineIDs) != 0 {
			e.t.Errorf("connection left %+v", c)
		}
	}
}

func TestLookupAndPipelineEntities(t *testing.T) {
	e := newEnvWith(t, true)
	ents := slices.Concat(pipelineEntities(), lookupEntities(), []string{streamEntity(sref("web"))})
	e.want(e.do("POST", "/system/content_packs", pack("lp", 1, csvParams, strings.Join(ents, ","))), 201, nil)
	params := `{"parameters":{"CSV":` + sref(csvFile(t)) + `,"OFF":{"@type":"boolean","@value":false},"SRC":` + sref("web") + `}}`
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/lp/1/installations", params), 200, &in)
	var order []string
	ids := map[string]string{}
	for _, d := range in.Entities {
		order = append(order, d.ContentPackEnID)
		ids[d.Type.Name] = d.ID
	}
	if !slices.Equal(order, []string{"a1", "c1", "t1", "e2", "r1", "p1"}) {
		t.Errorf("installed in order %v", order)
	}
	e.check(ids["stream"])
	if tb, _ := e.lk.Table(context.Background(), "cp-hosts"); tb.CacheID != ids["lookup_cache"] || tb.DataAdapterID != ids["lookup_adapter"] {
		t.Errorf("table %+v", tb)
	}

	// Export the table and the pipeline: their adapter, cache, rule and
	// stream come with them.
	var res struct {
		Entities []contentpacks.Entity `json:"entities"`
	}
	req := `{"entities":[{"id":"` + ids["lookup_table"] + `","type":{"name":"lookup_table","version":"1"}},{"id":"` + ids["pipeline"] + `","type":{"name":"pipeline","version":"1"}}]}`
	e.want(e.do("POST", "/system/catalog", req), 200, &res)
	types := map[string]contentpacks.Entity{}
	for _, en := range res.Entities {
		types[en.Type.Name] = en
	}
	if len(res.Entities) != 6 || len(types) != 6 {
		t.Fatalf("resolved %+v", res.Entities)
	}
	var tdata, pdata map[string]any
	_ = json.Unmarshal(types["lookup_table"].Data, &tdata)
	_ = json.Unmarshal(types["pipeline"].Data, &pdata)
	if tdata["cache_name"].(map[string]any)["@value"] != types["lookup_cache"].ID ||
		tdata["data_adapter_name"].(map[string]any)["@value"] != types["lookup_adapter"].ID {
		t.Errorf("exported table %s", types["lookup_table"].Data)
	}
	if cs := pdata["connected_streams"].([]any); len(cs) != 1 || cs[0].(map[string]any)["@value"] != types["stream"].ID {
		t.Errorf("exported pipeline %s", types["pipeline"].Data)
	}
	if !strings.Contains(string(types["lookup_adapter"].Data), `"key_column":{"@type":"string","@value":"host"}`) {
		t.Errorf("exported adapter %s", types["lookup_adapter"].Data)
	}
	if !strings.Contains(string(types["pipeline_rule"].Data), `"description":null`) {
		t.Errorf("exported rule %s", types["pipeline_rule"].Data)
	}
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", ""), 200, &cat)
	if len(cat.Entities) != 6 {
		t.Errorf("catalog %+v", cat.Entities)
	}

	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/lp/installations/"+in.ID, ""), 200, &un)
	if len(un.Uninstalled.Entities) != 6 || len(un.Uninstalled.Failed) != 0 {
		t.Errorf("uninstalled %+v", un.Uninstalled)
	}
	e.empty()

	// The export installs again.
	ents = nil
	for _, en := range res.Entities {
		b, _ := json.Marshal(en)
		ents = append(ents, string(b))
	}
	e.want(e.do("POST", "/system/content_packs", pack("exp", 1, "", strings.Join(ents, ","))), 201, nil)
	e.want(e.do("POST", "/system/content_packs/exp/1/installations", `{}`), 200, &in)
	for _, d := range in.Entities {
		ids[d.Type.Name] = d.ID
	}
	e.check(ids["stream"])
	e.want(e.do("DELETE", "/system/content_packs/exp/installations/"+in.ID, ""), 200, &un)
	e.empty()
}

func TestLookupFoundOnSystemAndRefused(t *testing.T) {
	e := newEnvWith(t, true)
	params := `{"parameters":{"CSV":` + sref(csvFile(t)) + `,"OFF":{"@type":"boolean","@value":false},"SRC":` + sref("web") + `}}`
	e.want(e.do("POST", "/system/content_packs", pack("l", 1, csvParams, strings.Join(lookupEntities(), ","))), 201, nil)
	var in1, in2 contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/l/1/installations", params), 200, &in1)
	// A second installation finds the three by name; uninstalling the first
	// keeps them.
	e.want(e.do("POST", "/system/content_packs/l/1/installations", params), 200, &in2)
	if len(in2.Entities) != 3 || in2.Entities[0].ID != in1.Entities[0].ID || len(e.lk.Tables()) != 1 {
		t.Fatalf("second installation %+v", in2)
	}
	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/l/installations/"+in1.ID, ""), 200, &un)
	if len(un.Uninstalled.Skipped) != 3 || len(e.lk.Tables()) != 1 {
		t.Errorf("uninstalled %+v", un.Uninstalled)
	}
	e.want(e.do("DELETE", "/system/content_packs/l/installations/"+in2.ID, ""), 200, &un)
	if len(un.Uninstalled.Entities) != 3 {
		t.Errorf("uninstalled %+v", un.Uninstalled)
	}

	const xRule = "rule \"cp-x\"\nwhen true\nthen\nend"
	cases := []struct{ name, entities, msg string }{
		// A table whose cache is not in the pack.
		{"missing cache", strings.Join(lookupEntities()[:2], ","), `missing cache \"c1\"`},
		// A pipeline connected to a stream the pack lacks.
		{"missing stream", pipelineEntities()[0], "missing stream e2"},
		// A rule of the same title but another source.
		{"diverging rule", entity("r", "pipeline_rule", `{"title":`+sref("cp-x")+`,"source":`+sref(strings.Replace(xRule, "true", "false", 1))+`}`), "different pipeline rule sources"},
	}
	if _, err := e.pl.CreateRule(context.Background(), nil, xRule); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		id := fmt.Sprintf("bad%d", i)
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, csvParams, c.entities)), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", params)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want 400 with %q", c.name, w.Code, w.Body, c.msg)
		}
	}
	// The refused installations left nothing behind.
	if len(e.lk.Tables()) != 0 || len(e.lk.Caches()) != 0 || len(e.lk.Adapters()) != 0 || len(e.pl.Rules()) != 1 || len(e.pl.Pipelines()) != 0 {
		t.Errorf("refused installations left entities")
	}
}

// TestUninstallDetailsNeedsRead: the entities an installation holds are
// shown to whoever may read the pack only.
func TestUninstallDetailsNeedsRead(t *testing.T) {
	e := newEnv(t)
	e.want(e.do("POST", "/system/content_packs", pack("p", 1, "", `{"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"g","data":{"name":"SECRET_NAME","pattern":"x"},"constraints":[]}`)), 201, nil)
	var in struct {
		ID string `json:"_id"`
	}
	e.want(e.do("POST", "/system/content_packs/p/1/installations", `{"parameters":{}}`), 200, &in)
	path := "/system/content_packs/p/installations/" + in.ID + "/uninstall_details"
	e.want(e.do("GET", path, "", "streams:read"), 403, nil)
	e.want(e.do("GET", path, "", "contentpack:read:p"), 200, nil)
}

// TestLookupAndPipelineInstallNeedsCreatePermissions: lookup entities and
// pipelines a pack creates need the permissions creating them directly
// needs, as grok patterns, streams and inputs do.
func TestLookupAndPipelineInstallNeedsCreatePermissions(t *testing.T) {
	e := newEnvWith(t, true)
	cache := entity("c1", "lookup_cache", `{"name":`+sref("perm-cache")+`,"title":`+sref("c")+`,"description":`+sref("")+`,"configuration":{"type":`+sref("none")+`}}`)
	rule := entity("r1", "pipeline_rule", `{"title":`+sref("perm-rule")+`,"description":null,"source":`+sref("rule \"perm-rule\"\nwhen true\nthen\nend")+`}`)
	for _, c := range []struct {
		entity, perm string
	}{{cache, "lookuptables:create"}, {rule, "pipeline_rule:create"}} {
		id := strings.TrimSuffix(c.perm, ":create")
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, "", c.entity)), 201, nil)
		path := "/system/content_packs/" + id + "/1/installations"
		e.want(e.do("POST", path, `{"parameters":{}}`, "contentpack:*"), 403, nil)
		e.want(e.do("POST", path, `{"parameters":{}}`, "contentpack:*", c.perm), 200, nil)
	}
}

// pausingStore pauses after the first read of a pack revision until
// released.
type pausingStore struct {
	store.Store
	once             sync.Once
	reached, release chan struct{}
}

func (s *pausingStore) Get(ctx context.Context, coll, id string) ([]byte, error) {
	doc, err := s.Store.Get(ctx, coll, id)
	if coll == contentpacks.PacksCollection {
		s.once.Do(func() { close(s.reached); <-s.release })
	}
	return doc, err
}

// TestInstallRacingDelete: a pack deleted while an installation of it
// reads it is either refused as installed or leaves no installation of a
// pack that is gone (which could never be uninstalled).
func TestInstallRacingDelete(t *testing.T) {
	e := newEnv(t)
	ps := &pausingStore{Store: e.st, reached: make(chan struct{}), release: make(chan struct{})}
	now := func() time.Time { return time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC) }
	svc := contentpacks.NewService(ps, contentpacks.Deps{Grok: e.g}, now)
	e.h = routertest.Handler(contentpacks.NewHandler(svc).Routes())
	e.want(e.do("POST", "/system/content_packs", pack("race", 1, "", grokEntity)), 201, nil)
	installed := make(chan *httptest.ResponseRecorder, 1)
	go func() { installed <- e.do("POST", "/system/content_packs/race/1/installations", `{}`) }()
	<-ps.reached
	deleted := make(chan *httptest.ResponseRecorder, 1)
	go func() { deleted <- e.do("DELETE", "/system/content_packs/race", "") }()
	var del *httptest.ResponseRecorder
	select {
	case del = <-deleted: // the deletion did not wait for the installation
	case <-time.After(300 * time.Millisecond):
	}
	close(ps.release)
	in := <-installed
	if del == nil {
		del = <-deleted
	}
	ins, err := svc.Installations(context.Background(), "race")
	if err != nil {
		t.Fatal(err)
	}
	if del.Code == 204 && (in.Code == 200 || len(ins) > 0) {
		t.Errorf("pack deleted (%d) while installed (%d %s): installations %+v", del.Code, in.Code, in.Body, ins)
	}
	if in.Code == 200 && del.Code != 400 {
		t.Errorf("installed, then deleting the pack answered %d %s, want 400", del.Code, del.Body)
	}
}
