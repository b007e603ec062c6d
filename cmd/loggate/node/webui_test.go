package node_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// webUIPage is one page of Graylog 4.0's web interface: the calls it makes
// when it loads, as recorded in fixtures/webui/4.0 from the interface's
// source, and the fields it reads from each answer.
type webUIPage struct {
	Page  string      `json:"page"`
	Calls []webUICall `json:"calls"`
}

type webUICall struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  *string         `json:"query"`
	Body   json.RawMessage `json:"body"`
	Reads  []string        `json:"reads"`
	// Optional are reads the interface passes along and does without
	// (a JavaScript undefined), which the replay does not demand.
	Optional []string `json:"optional"`
	Note     string   `json:"note"`
}

// placeholder is a {name} in a recorded path, body or field path.
var placeholder = regexp.MustCompile(`\{[a-zA-Z]+\}`)

// TestWebInterfacePages replays, page by page, the calls Graylog 4.0.17's
// web interface makes against a node that has a stream, an input, a stored
// message and a user: every call must succeed in 4.0's status class, and
// every field the interface reads must be in the answer.
func TestWebInterfacePages(t *testing.T) {
	h, vars, sid := webUINode(t)
	replayPages(t, h, vars, sid, "4.0")
}

// TestWebInterface33Pages replays the calls Graylog 3.3.9's web interface
// made, page by page, through a listener pinned to 3.3 (recorded in
// headless Chromium, bodies included): every call must succeed. The 3.3
// recording holds no field reads, so only the statuses are checked.
func TestWebInterface33Pages(t *testing.T) {
	h, vars, sid := webUINode(t)
	replayPages(t, h, vars, sid, "3.3")
}

// webUINode starts a node with what the pages show: a stream with a rule,
// an input, a stored message; it returns the stand-ins' values and a
// session.
func webUINode(t *testing.T) (*nodetest.Harness, map[string]string, string) {
	t.Helper()
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	set := defaultIndexSet(t, h)
	streamID := h.Do("POST", "/streams", map[string]any{"title": "web", "index_set_id": set, "matching_type": "AND",
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "web-1", "inverted": false}}}, root).
		Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+streamID+"/resume", nil, root).Want(t, http.StatusNoContent)
	inputID, addr := h.CreateInput(httpInput)
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json",
		strings.NewReader(gelfJSON("web-1", "GET /index.html 200", float64(h.Clock.Now().Unix()), `,"_took_ms":12`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.WaitProcessed(1)
	sid := h.Login(nodetest.RootUser, nodetest.RootPassword)
	sidecar := webUISidecar(t, h)
	contentPack := webUIContentPack(t, h)
	lut := webUILookupTable(t, h)
	pipes := webUIPipeline(t, h, streamID)
	extractor := webUIExtractor(t, h, inputID)
	alerts := webUIEventDefinition(t, h, streamID)
	vars := map[string]string{
		"nodeId": h.Node.Info.ID, "streamId": streamID, "inputId": inputID, "inputType": httpInput,
		"indexSetId": set, "username": nodetest.RootUser,
		"userId":    h.Do("GET", "/users/"+nodetest.RootUser, nil, root).Want(t, http.StatusOK).Get("id").String(),
		"roleId":    h.Do("GET", "/authz/roles?page=1&per_page=0", nil, root).Want(t, http.StatusOK).Get("roles.0.id").String(),
		"subsystem": "graylog", "loglevel": "info", "tokenName": "webui",
		// The overview asks for failures since a day ago, in local time
		// without a zone.
		"since": time.Now().Add(-24 * time.Hour).Format("2006-01-02T15:04:05.000"),
	}
	maps.Copy(vars, sidecar)
	maps.Copy(vars, contentPack)
	maps.Copy(vars, lut)
	maps.Copy(vars, pipes)
	maps.Copy(vars, extractor)
	maps.Copy(vars, alerts)
	return h, vars, sid
}

// webUISidecar registers a Sidecar running filebeat under a configuration
// assigned to it, with a configuration variable, as the sidecar pages show;
// it returns the placeholders for the Sidecar's node id, the collector's id
// and the configuration's.
func webUISidecar(t *testing.T, h *nodetest.Harness) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	collectorID := ""
	for _, c := range h.Do("GET", "/sidecar/collectors", nil, root).Want(t, http.StatusOK).Get("collectors").Array() {
		if c.Get("name").String() == "filebeat" && c.Get("node_operating_system").String() == "linux" {
			collectorID = c.Get("id").String()
		}
	}
	if collectorID == "" {
		t.Fatal("no default filebeat collector for linux")
	}
	h.Do("POST", "/sidecar/configuration_variables", map[string]any{"name": "logdir", "description": "where the logs are", "content": "/var/log"}, root).
		Want(t, http.StatusOK)
	configID := h.Do("POST", "/sidecar/configurations", map[string]any{"collector_id": collectorID, "name": "web logs", "color": "#00ff00",
		"template": "filebeat.inputs:\n- type: log\n  paths: [${user.logdir}/*.log]\n"}, root).Want(t, http.StatusOK).Get("id").String()
	sidecarID := uuid.NewString()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	h.Do("PUT", "/sidecars/"+sidecarID, map[string]any{"node_name": "web-1", "node_details": map[string]any{
		"operating_system": "Linux", "ip": "192.0.2.10",
		"metrics":       map[string]any{"disks_75": []string{"/var"}, "cpu_idle": 87.5, "load_1": 0.25},
		"log_file_list": []map[string]any{{"path": "/var/log/syslog", "mod_time": now, "size": 1024, "is_dir": false}},
		"status": map[string]any{"status": 0, "message": "1 running / 0 stopped / 0 failing", "collectors": []map[string]any{
			{"collector_id": collectorID, "status": 0, "message": "Running", "verbose_message": ""}}},
	}}, root, nodetest.Header("X-Graylog-Sidecar-Version", "1.1.0")).Want(t, http.StatusAccepted)
	h.Do("PUT", "/sidecars/configurations", map[string]any{"nodes": []map[string]any{{"node_id": sidecarID,
		"assignments": []map[string]any{{"collector_id": collectorID, "configuration_id": configID}}}}}, root).Want(t, http.StatusAccepted)
	return map[string]string{"sidecarId": sidecarID, "sidecarCollectorId": collectorID, "sidecarConfigurationId": configID}
}

// webUIContentPack uploads a content pack of one grok pattern, needing
// Graylog 4.0, and installs it; it returns the placeholders for the pack's
// id and its entity's.
func webUIContentPack(t *testing.T, h *nodetest.Harness) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	id, entityID := uuid.NewString(), uuid.NewString()
	h.Do("POST", "/system/content_packs", map[string]any{"v": "1", "id": id, "rev": 1, "name": "Web patterns",
		"summary": "Grok patterns for web logs", "description": "The **web** patterns", "vendor": "loggate", "url": "https://example.org/web",
		"parameters": []any{}, "entities": []map[string]any{{"v": "1", "type": map[string]any{"name": "grok_pattern", "version": "1"},
			"id": entityID, "data": map[string]any{"name": "WEB_PATH", "pattern": "/[a-z./]*"},
			"constraints": []map[string]any{{"type": "server-version", "version": ">=4.0.0"}}}},
	}, root).Want(t, http.StatusCreated)
	h.Do("POST", "/system/content_packs/"+id+"/1/installations", map[string]any{"parameters": map[string]any{}, "comment": "for the web pages"}, root).
		Want(t, http.StatusOK)
	return map[string]string{"contentPackId": id, "contentPackEntityId": entityID}
}

// webUILookupTable creates a lookup table over a key-value adapter with a
// cache, and a CSV file adapter; it returns the placeholders for their
// names and ids.
func webUILookupTable(t *testing.T, h *nodetest.Harness) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	adapter := h.Do("POST", "/system/lookup/adapters", map[string]any{"title": "Clients", "name": "clients-kv", "description": "seen clients",
		"config": map[string]any{"type": "mongodb"}}, root).Want(t, http.StatusOK)
	cache := h.Do("POST", "/system/lookup/caches", map[string]any{"title": "Clients cache", "name": "clients-cache", "description": "a minute",
		"config": map[string]any{"type": "guava_cache", "max_size": 100, "expire_after_access": 60, "expire_after_access_unit": "SECONDS"}}, root).Want(t, http.StatusOK)
	table := h.Do("POST", "/system/lookup/tables", map[string]any{"title": "Clients", "name": "clients", "description": "clients by address",
		"cache_id": cache.Get("id").String(), "data_adapter_id": adapter.Get("id").String(),
		"default_single_value": "unknown", "default_single_value_type": "STRING", "default_multi_value": "", "default_multi_value_type": "NULL"}, root).
		Want(t, http.StatusOK)
	// A CSV file adapter, which the 4.0 interface knows, for the adapter's
	// page.
	csv := filepath.Join(t.TempDir(), "clients.csv")
	if err := os.WriteFile(csv, []byte("\"ip\",\"client\"\n\"192.0.2.10\",\"web-1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Do("POST", "/system/lookup/adapters", map[string]any{"title": "Clients file", "name": "clients-csv", "description": "clients by address",
		"config": map[string]any{"type": "csvfile", "path": csv, "separator": ",", "quotechar": "\"", "key_column": "ip", "value_column": "client",
			"check_interval": 60, "case_insensitive_lookup": false}}, root).Want(t, http.StatusOK)
	return map[string]string{"lutName": table.Get("name").String(), "lutCacheId": cache.Get("id").String(), "lutCacheName": cache.Get("name").String(),
		"lutAdapterId": adapter.Get("id").String(), "lutAdapterName": adapter.Get("name").String(), "lutCsvAdapterName": "clients-csv"}
}

// webUIPipeline creates a rule and a pipeline of one stage running it,
// connected to the stream; it returns the placeholders for their ids.
func webUIPipeline(t *testing.T, h *nodetest.Harness, streamID string) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	rule := h.Do("POST", "/system/pipelines/rule", map[string]any{"title": "", "description": "marks web requests",
		"source": "rule \"web status\"\nwhen has_field(\"message\")\nthen\n  set_field(\"web\", true);\nend"}, root).
		Want(t, http.StatusOK).Get("id").String()
	pipeline := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"title": "", "description": "web logs",
		"source": "pipeline \"web\"\nstage 0 match either\nrule \"web status\"\nend"}, root).
		Want(t, http.StatusOK).Get("id").String()
	h.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{"stream_id": streamID, "pipeline_ids": []string{pipeline}}, root).
		Want(t, http.StatusOK)
	return map[string]string{"pipelineId": pipeline, "ruleId": rule}
}

// webUIExtractor creates a regex extractor with a numeric converter on the
// input; it returns the placeholders for its id and for the stored
// message's index and id, which the extractor pages load as an example.
func webUIExtractor(t *testing.T, h *nodetest.Harness, inputID string) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	id := h.Do("POST", "/system/inputs/"+inputID+"/extractors", map[string]any{"title": "status", "cut_or_copy": "copy",
		"source_field": "message", "target_field": "status", "extractor_type": "regex", "extractor_config": map[string]any{"regex_value": `(\d{3})$`},
		"converters": map[string]any{"numeric": map[string]any{}}, "condition_type": "string", "condition_value": "GET", "order": 0}, root).
		Want(t, http.StatusCreated).Get("extractor_id").String()
	msg := h.Do("GET", "/search/universal/relative?query=*&range=0&limit=1", nil, root).Want(t, http.StatusOK).Get("messages.0")
	return map[string]string{"extractorId": id, "messageIndex": msg.Get("index").String(), "messageId": msg.Get("message._id").String()}
}

// webUIEventDefinition creates an HTTP notification to a listening hook on
// the URL allow-list and an aggregation event definition over the stream
// that triggers it; it returns the placeholders for their ids and the
// hook's URL.
func webUIEventDefinition(t *testing.T, h *nodetest.Harness, streamID string) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	notification := h.Do("POST", "/events/notifications", map[string]any{"title": "Web hook", "description": "posts the event",
		"config": map[string]any{"type": "http-notification-v1", "url": hk.url()}}, root).Want(t, http.StatusOK).Get("id").String()
	def := countDefinition("Many requests", 100, notification)
	def["config"].(map[string]any)["streams"] = []string{streamID}
	definition := h.Do("POST", "/events/definitions?schedule=true", def, root).Want(t, http.StatusOK).Get("id").String()
	return map[string]string{"notificationId": notification, "eventDefinitionId": definition, "hookURL": hk.url()}
}

// replayPages replays the recorded pages of one release's interface.
func replayPages(t *testing.T, h *nodetest.Harness, vars map[string]string, sid, release string) {
	files, err := filepath.Glob("../../../fixtures/webui/" + release + "/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded pages (%v)", err)
	}
	slices.Sort(files) // _every_page first
	failing := 0
	for _, f := range files {
		var page webUIPage
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			r := &replay{t: t, h: h, sid: sid, vars: vars, release: release}
			for _, c := range page.Calls {
				if !r.call(c) {
					failing++
				}
			}
		})
	}
	t.Logf("%d recorded calls failed", failing)
}

// replay sends one page's calls, carrying the ids the answers give (a
// search, a job, a token) to the calls after them.
type replay struct {
	t      *testing.T
	h      *nodetest.Harness
	sid    string
	vars   map[string]string
	search json.RawMessage // the last search the node echoed
	// release is the interface's: 3.3's goes through the compat chain, as
	// through a listener pinned to it.
	release string
}

func (r *replay) fill(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(p string) string {
		if v, ok := r.vars[p[1:len(p)-1]]; ok {
			return v
		}
		return p
	})
}

// body is the recorded body with its <…> stand-ins made real, as the
// interface would fill them.
func (r *replay) body(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && strings.HasPrefix(s, "<the current search") {
		return r.search
	}
	text := r.fill(string(raw))
	for stand, value := range map[string]string{
		`"<searchId>"`: `"` + objectID() + `"`, `"<new searchId>"`: `"` + objectID() + `"`,
		`"<queryId>"`: `"` + r.id("queryId") + `"`, `"<chartId>"`: `"` + r.id("chartId") + `"`,
		`"<messagesId>"`: `"` + r.id("messagesId") + `"`,
		`"<username>"`:   `"` + nodetest.RootUser + `"`, `"<password>"`: `"` + nodetest.RootPassword + `"`,
		`"<window.location.host>"`: `"127.0.0.1"`,
	} {
		text = strings.ReplaceAll(text, stand, value)
	}
	text = regexp.MustCompile(`"<decorators of [^"]*>"`).ReplaceAllString(text, "[]")
	return json.RawMessage(text)
}

// id is a stand-in's value, the same for a page's calls.
func (r *replay) id(name string) string {
	if _, ok := r.vars[name]; !ok {
		r.vars[name] = uuid.NewString()
	}
	return r.vars[name]
}

func objectID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// call sends c as the interface does and checks the answer; false when it
// failed.
func (r *replay) call(c webUICall) bool {
	t := r.t
	t.Helper()
	path := r.fill(c.Path)
	if c.Query != nil && *c.Query != "" {
		path += "?" + r.fill(*c.Query)
	}
	if placeholder.MatchString(path) {
		t.Errorf("%s %s: a placeholder the replay cannot fill", c.Method, path)
		return false
	}
	opts := []nodetest.ReqOption{nodetest.Header("X-Requested-With", "XMLHttpRequest"), nodetest.Header("X-Requested-By", "XMLHttpRequest")}
	if !(c.Method == "POST" && c.Path == "/system/sessions") {
		opts = append(opts, nodetest.Session(r.sid))
	}
	if r.release != "4.0" {
		opts = append(opts, nodetest.Header("X-API-Version", r.release))
	}
	res := r.h.Do(c.Method, path, r.body(c.Body), opts...)
	if res.Status < 200 || res.Status > 299 {
		t.Errorf("%s %s: %d %s", c.Method, path, res.Status, res.Body)
		return false
	}
	switch {
	case c.Method == "POST" && c.Path == "/views/search":
		r.search, r.vars["searchId"] = res.Body, res.Get("id").String()
		r.vars["queryId"] = res.Get("queries.0.id").String()
	case strings.HasSuffix(c.Path, "/execute"):
		r.vars["jobId"] = res.Get("id").String()
	case c.Method == "POST" && strings.Contains(c.Path, "/tokens/"):
		r.vars["tokenId"] = res.Get("id").String()
	}
	if res.Status == http.StatusNoContent {
		return true // nothing stored: the interface falls back on its defaults
	}
	ok := true
	for _, read := range c.Reads {
		if slices.Contains(c.Optional, read) {
			continue
		}
		if !r.has(res, r.fill(read)) {
			t.Errorf("%s %s: the interface reads %q, which the answer lacks: %s", c.Method, path, read, res.Body)
			ok = false
		}
	}
	return ok
}

// has reports whether the answer has the field the interface reads. For a
// path through every array element (#) or object member (*) the container
// must be there, since it may rightly be empty; a field under an object
// that is null (no active backend, no start page) is absent with it.
func (r *replay) has(res *nodetest.Response, read string) bool {
	if placeholder.MatchString(read) {
		return true // names something the replay does not know, such as a metric's
	}
	parts := strings.Split(read, ".")
	for i, p := range parts {
		if strings.ContainsAny(p, "#*") {
			if i == 0 {
				return gjson.ValidBytes(res.Body)
			}
			return res.Get(strings.Join(parts[:i], ".")).Exists()
		}
		if v := res.Get(strings.Join(parts[:i+1], ".")); i < len(parts)-1 && v.Type == gjson.Null && v.Exists() {
			return true
		}
	}
	return res.Get(read).Exists()
}
