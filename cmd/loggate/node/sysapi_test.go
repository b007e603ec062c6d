package node_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/poll"

	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The search settings are there from the first start, with the defaults
// the web interface's search page reads; other known classes answer 204
// until written, unknown ones 404; what is written survives a restart.
func TestClusterConfig(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	path := "/system/cluster_config/"

	s := h.Do("GET", path+clusterconfig.SearchesClass, nil, root).Want(t, http.StatusOK)
	for field, want := range map[string]string{
		"query_time_range_limit":             `"PT0S"`,
		"analysis_disabled_fields":           `["full_message","message"]`,
		"surrounding_filter_fields":          `["source","gl2_source_input","file","source_file"]`,
		"relative_timerange_options.PT5M":    `"Search in the last 5 minutes"`,
		"surrounding_timerange_options.PT1S": `"1 second"`,
	} {
		if got := s.Get(field).Raw; got != want {
			t.Errorf("SearchesClusterConfig %s = %s, want %s", field, got, want)
		}
	}
	// The interface lists the time ranges in Graylog's order.
	if raw := s.Get("relative_timerange_options").Raw; !strings.HasPrefix(raw, `{"PT5M":`) || !strings.HasSuffix(raw, `"PT0S":"Search in all messages"}`) {
		t.Errorf("relative_timerange_options out of Graylog's order: %s", raw)
	}
	// Written at the first start, as Graylog's migrations write them.
	if r := h.Do("GET", path+clusterconfig.EventsClass, nil, root).Want(t, http.StatusOK); r.Get("events_search_timeout").Int() != 60000 {
		t.Errorf("EventsConfiguration: %s", r.Body)
	}
	if r := h.Do("GET", path+clusterconfig.SidecarClass, nil, root).Want(t, http.StatusOK); r.Get("sidecar_update_interval").String() != "PT30S" {
		t.Errorf("SidecarConfiguration: %s", r.Body)
	}
	if r := h.Do("GET", path+clusterconfig.GeoIPClass, nil, root); r.Status != http.StatusNoContent || len(r.Body) != 0 {
		t.Errorf("GET %s: %d %s, want 204 without a body", clusterconfig.GeoIPClass, r.Status, r.Body)
	}
	h.Do("GET", path+"org.example.Nope", nil, root).WantError(t, http.StatusNotFound, `Couldn't find configuration class "org.example.Nope".`)
	h.Do("PUT", path+"org.example.Nope", map[string]any{"a": 1}, root).Want(t, http.StatusNotFound)

	// A partial body takes the class's defaults; a wrong type is refused.
	put := h.Do("PUT", path+clusterconfig.GeoIPClass, map[string]any{"enabled": true}, root).Want(t, http.StatusAccepted)
	if put.Get("enabled").Bool() != true || put.Get("db_type").String() != "MAXMIND_CITY" {
		t.Errorf("PUT GeoIpResolverConfig answered %s", put.Body)
	}
	h.Do("PUT", path+clusterconfig.GeoIPClass, map[string]any{"enabled": "yes"}, root).Want(t, http.StatusBadRequest)
	h.Do("PUT", path+clusterconfig.SearchesClass, map[string]any{"query_time_range_limit": "P30D"}, root).Want(t, http.StatusAccepted)

	classes := h.Do("GET", "/system/cluster_config", nil, root).Want(t, http.StatusOK).Get("classes").Raw
	if !strings.Contains(classes, clusterconfig.GeoIPClass) || !strings.Contains(classes, clusterconfig.SearchesClass) || !strings.Contains(classes, clusterconfig.EventsClass) {
		t.Errorf("classes = %s", classes)
	}
	// Classes other resources keep in the collection are listed and read
	// as stored, as Graylog reads every class it has; loggate's own
	// records are not classes.
	grokMigration := "org.graylog2.migrations.V20180924111644_AddDefaultGrokPatterns.MigrationCompleted"
	if !strings.Contains(classes, grokMigration) || strings.Contains(classes, `"cluster_id"`) {
		t.Errorf("classes = %s", classes)
	}
	h.Do("GET", path+grokMigration, nil, root).Want(t, http.StatusOK)
	h.Do("GET", path+"cluster_id", nil, root).Want(t, http.StatusNotFound)

	h.Restart()
	if got := h.Do("GET", path+clusterconfig.SearchesClass, nil, root).Want(t, http.StatusOK); got.Get("query_time_range_limit").String() != "P30D" || got.Get("analysis_disabled_fields.#").Int() != 2 {
		t.Errorf("after a restart: %s", got.Body)
	}
	h.Do("DELETE", path+clusterconfig.GeoIPClass, nil, root).Want(t, http.StatusNoContent)
	h.Do("GET", path+clusterconfig.GeoIPClass, nil, root).Want(t, http.StatusNoContent)

	// Permissions as Graylog's: clusterconfigentry:read to read, :create
	// and :edit to write.
	h.CreateUser("reader", "readerpass1", "Reader")
	createUnprivileged(t, h)
	reader, nobody := nodetest.Basic("reader", "readerpass1"), nodetest.Basic("nobody", "nobodypass1")
	h.Do("GET", path+clusterconfig.SearchesClass, nil, reader).Want(t, http.StatusOK)
	h.Do("GET", path+clusterconfig.SearchesClass, nil, nobody).Want(t, http.StatusForbidden)
	h.Do("PUT", path+clusterconfig.SearchesClass, map[string]any{}, reader).Want(t, http.StatusForbidden)
}

// A class's document written through /system/cluster_config is one the
// class can read back: a list of strings holds strings, an integer property
// an integer. A message processors document with [1] in it was stored, and
// then /system/messageprocessors/config answered 500 (and message
// processing re-read the store and warned on every batch); one of the
// getting-started state, and the landing page's /system/gettingstarted did.
func TestClusterConfigRefusesUnreadableDocuments(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	path := "/system/cluster_config/"
	h.Do("PUT", path+clusterconfig.MessageProcessorsClass, `{"processor_order":[{"name":"x"}],"disabled_processors":[1]}`, root).
		WantError(t, http.StatusBadRequest, "Couldn't parse cluster configuration")
	h.Do("GET", "/system/messageprocessors/config", nil, root).Want(t, http.StatusOK)
	h.Do("PUT", path+clusterconfig.EventsClass, `{"events_catchup_window":1.5}`, root).
		WantError(t, http.StatusBadRequest, "Couldn't parse cluster configuration")
	if got := h.Do("GET", path+clusterconfig.EventsClass, nil, root).Want(t, http.StatusOK).Get("events_catchup_window").Raw; got != "3600000" {
		t.Errorf("events_catchup_window = %s after a refused write", got)
	}
	// The landing page's getting-started state too.
	h.Do("PUT", path+clusterconfig.GettingStartedClass, `{"dismissed_in_versions":[4.0]}`, root).
		WantError(t, http.StatusBadRequest, "Couldn't parse cluster configuration")
	h.Do("GET", "/system/gettingstarted", nil, root).Want(t, http.StatusOK)
	// What the class reads still goes through.
	h.Do("PUT", path+clusterconfig.MessageProcessorsClass, `{"processor_order":["org.graylog2.messageprocessors.MessageFilterChainProcessor"],"disabled_processors":[]}`, root).
		Want(t, http.StatusAccepted)
	h.Do("GET", "/system/messageprocessors/config", nil, root).Want(t, http.StatusOK)
}

// The cluster configuration lives in the cluster's document store, the
// embedded one or MongoDB: a second node on the same store reads what the
// first wrote.
func TestClusterConfigSharedByNodes(t *testing.T) {
	for name, start := range map[string]func(t *testing.T) (a, b *nodetest.Harness){
		"bbolt": func(t *testing.T) (a, b *nodetest.Harness) {
			st := nodetest.SharedStore(t)
			return nodetest.StartOn(t, st), nodetest.StartOn(t, st)
		},
		"mongodb": func(t *testing.T) (a, b *nodetest.Harness) {
			onMongo := nodetest.WithConfig(func(c *config.Config) { c.MongoDBURI = mongoDatabase(t) })
			return nodetest.Start(t, onMongo), nodetest.Start(t, onMongo)
		},
	} {
		t.Run(name, func(t *testing.T) {
			a, b := start(t)
			root := nodetest.AsRoot()
			a.Do("PUT", "/system/urlwhitelist", map[string]any{"entries": []map[string]any{
				{"id": "1", "type": "regex", "value": `^https://hooks\.example\.org/`, "title": "hooks"},
			}, "disabled": false}, root).Want(t, http.StatusNoContent)
			if got := b.Do("GET", "/system/urlwhitelist", nil, root).Want(t, http.StatusOK).Get("entries.0.title").String(); got != "hooks" {
				t.Errorf("the other node reads entry %q", got)
			}
			b.Do("POST", "/system/gettingstarted/dismiss", nil, root).Want(t, http.StatusNoContent)
			if a.Do("GET", "/system/gettingstarted", nil, root).Want(t, http.StatusOK).Get("show").Bool() {
				t.Error("dismissed on one node, shown on the other")
			}
			// Both nodes started on the store; the search settings are
			// there once.
			a.Do("GET", "/system/cluster_config/"+clusterconfig.SearchesClass, nil, root).Want(t, http.StatusOK)
		})
	}
}

func TestMessageProcessorsConfig(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	def := h.Do("GET", "/system/messageprocessors/config", nil, root).Want(t, http.StatusOK)
	if def.Get("processor_order.#").Int() != 4 || def.Get("processor_order.3.class_name").String() != "org.graylog2.messageprocessors.MessageFilterChainProcessor" ||
		def.Get("processor_order.2.class_name").String() != "org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter" ||
		def.Get("disabled_processors").Raw != "[]" {
		t.Fatalf("default: %s", def.Body)
	}
	// Moving the filter chain first and disabling GeoIP; an unknown class
	// is dropped, the processors not named follow in their default order.
	put := h.Do("PUT", "/system/messageprocessors/config", map[string]any{
		"processor_order": []map[string]string{
			{"name": "Message Filter Chain", "class_name": "org.graylog2.messageprocessors.MessageFilterChainProcessor"},
			{"name": "Nope", "class_name": "org.example.Nope"},
		},
		"disabled_processors": []string{"org.graylog.plugins.map.geoip.processor.GeoIpProcessor", "org.example.Nope"},
	}, root).Want(t, http.StatusOK)
	// The answer is the request body, as in Graylog; a GET normalizes.
	if got := put.Get("processor_order.#.name").Raw; got != `["Message Filter Chain","Nope"]` {
		t.Errorf("PUT answered %s, want the request body", put.Body)
	}
	want := `["Message Filter Chain","AWS Instance Name Lookup","GeoIP Resolver","Pipeline Processor"]`
	if got := h.Do("GET", "/system/messageprocessors/config", nil, root).Want(t, http.StatusOK); got.Get("processor_order.#.name").Raw != want ||
		got.Get("disabled_processors").Raw != `["org.graylog.plugins.map.geoip.processor.GeoIpProcessor"]` {
		t.Errorf("read back: %s", got.Body)
	}
	// Stored as the cluster configuration class, class names only.
	stored := h.Do("GET", "/system/cluster_config/"+clusterconfig.MessageProcessorsClass, nil, root).Want(t, http.StatusOK)
	if stored.Get("processor_order.0").String() != "org.graylog2.messageprocessors.MessageFilterChainProcessor" {
		t.Errorf("stored: %s", stored.Body)
	}
}

func TestURLWhitelist(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	if got := h.Do("GET", "/system/urlwhitelist", nil, root).Want(t, http.StatusOK); string(got.Body) != `{"entries":[],"disabled":false}` {
		t.Errorf("default: %s", got.Body)
	}
	h.Do("PUT", "/system/urlwhitelist", map[string]any{"entries": []map[string]any{
		{"id": "a", "type": "literal", "value": "https://a.example.org/hook", "title": "a"},
		{"id": "b", "type": "regex", "value": `^https://b\.example\.org/`, "title": "b"},
	}, "disabled": false}, root).Want(t, http.StatusNoContent)
	h.CreateUser("carol", "carolpass1")
	carol := nodetest.Basic("carol", "carolpass1")
	for url, want := range map[string]bool{
		"https://a.example.org/hook": true, "https://a.example.org/hook2": false,
		"https://b.example.org/x": true, "https://c.example.org/": false,
	} {
		got := h.Do("POST", "/system/urlwhitelist/check", map[string]string{"url": url}, carol).Want(t, http.StatusOK)
		if got.Get("is_whitelisted").Bool() != want || got.Get("url").String() != url {
			t.Errorf("check %s: %s, want %v", url, got.Body, want)
		}
	}
	for name, entries := range map[string]any{
		"duplicate ids": []map[string]any{{"id": "a", "type": "literal", "value": "x"}, {"id": "a", "type": "literal", "value": "y"}},
		"bad type":      []map[string]any{{"id": "a", "type": "glob", "value": "x"}},
		"bad regex":     []map[string]any{{"id": "a", "type": "regex", "value": "("}},
	} {
		if r := h.Do("PUT", "/system/urlwhitelist", map[string]any{"entries": entries}, root); r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	gen := h.Do("POST", "/system/urlwhitelist/generate_regex", map[string]string{"url_template": "https://c.example.org/${id}"}, carol).Want(t, http.StatusOK)
	if got := gen.Get("regex").String(); got != `^\Qhttps://c.example.org/\E.*?\Q\E$` {
		t.Errorf("generated regex %s", got)
	}
	h.Do("GET", "/system/urlwhitelist", nil, carol).Want(t, http.StatusForbidden)
	h.Do("PUT", "/system/urlwhitelist", map[string]any{"entries": []any{}, "disabled": true}, root).Want(t, http.StatusNoContent)
	if !h.Do("POST", "/system/urlwhitelist/check", map[string]string{"url": "https://c.example.org/"}, carol).Want(t, http.StatusOK).Get("is_whitelisted").Bool() {
		t.Error("a disabled whitelist permits every URL")
	}
}

func TestGettingStarted(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	if got := h.Do("GET", "/system/gettingstarted", nil, root).Want(t, http.StatusOK); string(got.Body) != `{"show":true,"dismissed_in_versions":[]}` {
		t.Errorf("first start: %s", got.Body)
	}
	h.Do("POST", "/system/gettingstarted/dismiss", nil, root).Want(t, http.StatusNoContent)
	h.Do("POST", "/system/gettingstarted/dismiss", nil, root).Want(t, http.StatusNoContent)
	if got := h.Do("GET", "/system/gettingstarted", nil, root).Want(t, http.StatusOK); string(got.Body) != `{"show":false,"dismissed_in_versions":["4.0"]}` {
		t.Errorf("dismissed: %s", got.Body)
	}
}

func TestDecorators(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	h.Do("GET", "/search/decorators", nil, root).Want(t, http.StatusOK)
	// The five types (TestDecoratorsThroughANode looks at them closer).
	if got := h.Do("GET", "/search/decorators/available", nil, root).Want(t, http.StatusOK); len(got.Get("@keys").Array()) != 5 {
		t.Errorf("available: %s", got.Body)
	}
	d := h.Do("POST", "/search/decorators", map[string]any{
		"type": "org.graylog2.decorators.FormatStringDecorator", "config": map[string]any{"format": "${source}"}, "stream": nil, "order": 1,
	}, root).Want(t, http.StatusOK)
	id := d.Get("id").String()
	if len(id) != 24 || d.Get("config.format").String() != "${source}" || d.Get("stream").Raw != "null" {
		t.Fatalf("created: %s", d.Body)
	}
	h.Do("PUT", "/search/decorators/"+id, map[string]any{"type": "org.graylog2.decorators.FormatStringDecorator", "config": map[string]any{}, "order": 2}, root).Want(t, http.StatusOK)
	h.Do("POST", "/search/decorators", map[string]any{"config": map[string]any{}}, root).Want(t, http.StatusBadRequest)
	h.Restart()
	list := h.Do("GET", "/search/decorators", nil, root).Want(t, http.StatusOK)
	if list.Get("#").Int() != 1 || list.Get("0.id").String() != id || list.Get("0.order").Int() != 2 {
		t.Errorf("listed: %s", list.Body)
	}
	h.Do("DELETE", "/search/decorators/"+id, nil, root).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/search/decorators/"+id, nil, root).Want(t, http.StatusNotFound)
	h.Do("PUT", "/search/decorators/"+id, map[string]any{"type": "x"}, root).Want(t, http.StatusNotFound)
	if got := h.Do("GET", "/search/decorators", nil, root).Want(t, http.StatusOK); string(got.Body) != "[]" {
		t.Errorf("after delete: %s", got.Body)
	}
	createUnprivileged(t, h)
	h.Do("GET", "/search/decorators", nil, nodetest.Basic("nobody", "nobodypass1")).Want(t, http.StatusForbidden)
	// A decorator of a stream also needs the right to edit that stream.
	h.CreateUser("decorator", "decoratorpass1", "Reader")
	h.Do("PUT", "/users/decorator/permissions", map[string]any{"permissions": []string{"decorators:create", "decorators:read"}}, root).Want(t, http.StatusNoContent)
	deco := nodetest.Basic("decorator", "decoratorpass1")
	h.Do("POST", "/search/decorators", map[string]any{"type": "x", "stream": "5f0000000000000000000001", "config": map[string]any{}}, deco).Want(t, http.StatusForbidden)
	h.Do("POST", "/search/decorators", map[string]any{"type": "x", "config": map[string]any{}}, deco).Want(t, http.StatusOK)
}

func TestJVMLocalesPluginsJobs(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	id := h.Node.Info.ID
	for _, path := range []string{"/system/jvm", "/cluster/" + id + "/jvm"} {
		j := h.Do("GET", path, nil, root).Want(t, http.StatusOK)
		used, total := j.Get("used_memory.bytes").Int(), j.Get("total_memory.bytes").Int()
		if used <= 0 || total < used || j.Get("max_memory.bytes").Int() < total ||
			j.Get("used_memory.kilobytes").Int() != used/1024 || j.Get("free_memory.bytes").Int() != total-used ||
			j.Get("node_id").String() != id || j.Get("pid").Type.String() != "String" || !strings.Contains(j.Get("info").String(), "go") {
			t.Errorf("GET %s: %s", path, j.Body)
		}
	}
	h.Do("GET", "/cluster/nope/jvm", nil, root).Want(t, http.StatusNotFound)
	if got := h.Do("GET", "/cluster/"+id+"/plugins", nil, root).Want(t, http.StatusOK); got.Get("total").Int() != 0 || got.Get("plugins").Raw != "[]" {
		t.Errorf("plugins: %s", got.Body)
	}
	if got := h.Do("GET", "/system/locales", nil, root).Want(t, http.StatusOK); got.Get(`locales.#(language_tag=="en-US").display_name`).String() != "English (United States)" {
		t.Errorf("locales: %.200s", got.Body)
	}
	if got := h.Do("GET", "/system/jobs", nil, root).Want(t, http.StatusOK); string(got.Body) != `{"jobs":[]}` {
		t.Errorf("jobs: %s", got.Body)
	}
	if got := h.Do("GET", "/cluster/jobs", nil, root).Want(t, http.StatusOK); got.Get(id+".jobs").Raw != "[]" {
		t.Errorf("cluster jobs: %s", got.Body)
	}
	createUnprivileged(t, h)
	h.Do("GET", "/system/jvm", nil, nodetest.Basic("nobody", "nobodypass1")).Want(t, http.StatusForbidden)
}

// /cluster/inputstates answers each node's list of input states, as the
// inputs page reads them to show a running input as running.
func TestClusterInputStates(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	in, _ := h.CreateInput(nodetest.GELFHTTP)
	got := h.Do("GET", "/cluster/inputstates", nil, root).Want(t, http.StatusOK)
	states := got.Get(h.Node.Info.ID)
	if !states.IsArray() || states.Get(`#(id=="`+in+`").state`).String() != "RUNNING" {
		t.Errorf("cluster input states: %s", got.Body)
	}
}

// The header's in/out counter and the nodes page poll these metrics through
// /cluster/metrics/multiple; the throughput rates move while messages
// arrive.
func TestThroughputMetricsMove(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	names := []string{
		"org.graylog2.throughput.input.1-sec-rate", "org.graylog2.throughput.output.1-sec-rate",
		"org.graylog2.journal.append.1-sec-rate", "org.graylog2.journal.read.1-sec-rate",
		"org.graylog2.journal.segments", "org.graylog2.journal.entries-uncommitted",
		"jvm.memory.heap.used", "jvm.memory.heap.committed", "jvm.memory.heap.max",
	}
	poll := func() map[string]int64 {
		t.Helper()
		r := h.Do("POST", "/cluster/metrics/multiple", map[string]any{"metrics": names}, root).Want(t, http.StatusOK)
		node := r.Get(h.Node.Info.ID)
		if node.Get("total").Int() != int64(len(names)) {
			t.Fatalf("metrics answered: %s", r.Body)
		}
		out := map[string]int64{}
		for _, m := range node.Get("metrics").Array() {
			if m.Get("type").String() != "gauge" {
				t.Errorf("%s is a %s, want a gauge", m.Get("full_name"), m.Get("type"))
			}
			out[m.Get("full_name").String()] = m.Get("metric.value").Int()
		}
		return out
	}
	start := poll()
	if start["jvm.memory.heap.used"] <= 0 || start["jvm.memory.heap.max"] < start["jvm.memory.heap.committed"] {
		t.Errorf("heap: %v", start)
	}
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	const n = 20
	for i := range n {
		resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json",
			strings.NewReader(gelfJSON("web-1", "message "+string(rune('a'+i)), float64(time.Now().Unix()), "")))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	h.WaitProcessed(n)
	h.Clock.Advance(2 * time.Second)
	moved := poll()
	for _, name := range names[:4] {
		if moved[name] != n/2 {
			t.Errorf("%s = %d after %d messages in 2 s, want %d", name, moved[name], n, n/2)
		}
	}
	if moved["org.graylog2.journal.segments"] < 1 {
		t.Errorf("journal segments: %d", moved["org.graylog2.journal.segments"])
	}
	// The same values node-locally, and the rate falls back when nothing
	// arrives.
	h.Clock.Advance(time.Second)
	r := h.Do("POST", "/system/metrics/multiple", map[string]any{"metrics": names[:1]}, root).Want(t, http.StatusOK)
	if got := r.Get("metrics.0.metric.value").Int(); got != 0 {
		t.Errorf("input rate after a quiet second = %d, want 0", got)
	}
}

// /system/cluster/traffic reports the bytes the node received, decoded
// and wrote, per hour or per day.
func TestClusterTraffic(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	empty := h.Do("GET", "/system/cluster/traffic", nil, root).Want(t, http.StatusOK)
	if empty.Get("input").Raw != "{}" || !empty.Get("from").Exists() || !empty.Get("to").Exists() {
		t.Errorf("before any message: %s", empty.Body)
	}
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	body := gelfJSON("web-1", "hello traffic", float64(time.Now().Unix()), "")
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	h.WaitProcessed(1)
	hour := h.Clock.Now().UTC().Truncate(time.Hour).Format("2006-01-02T15:04:05.000Z")
	got := h.Do("GET", "/system/cluster/traffic?days=1", nil, root).Want(t, http.StatusOK)
	// The input's read bytes: the HTTP request with its headers.
	in := got.Get("input").Map()[hour].Int()
	if in < int64(len(body)) || in > int64(len(body))+1024 {
		t.Errorf("input bytes in %s = %d for a body of %d: %s", hour, in, len(body), got.Body)
	}
	if got.Get("decoded").Map()[hour].Int() <= 0 || got.Get("output").Map()[hour].Int() <= 0 {
		t.Errorf("decoded/output: %s", got.Body)
	}
	// Counted once: asking again adds nothing.
	again := h.Do("GET", "/system/cluster/traffic?days=1", nil, root).Want(t, http.StatusOK)
	if again.Get("input").Raw != got.Get("input").Raw {
		t.Errorf("asked again: %s, before %s", again.Get("input").Raw, got.Get("input").Raw)
	}
	day := h.Clock.Now().UTC().Truncate(24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	daily := h.Do("GET", "/system/cluster/traffic?days=1&daily=true", nil, root).Want(t, http.StatusOK)
	if daily.Get("input").Map()[day].Int() != in {
		t.Errorf("daily: %s", daily.Body)
	}
	h.Do("GET", "/system/cluster/traffic?days=0", nil, root).Want(t, http.StatusBadRequest)
	// Buckets past the retention are deleted.
	h.Clock.Advance(40 * 24 * time.Hour)
	if old := h.Do("GET", "/system/cluster/traffic?days=60", nil, root).Want(t, http.StatusOK); old.Get("input").Raw != "{}" {
		t.Errorf("after 40 days: %s", old.Body)
	}
}

// Graylog 4.0 grants a user ownership of what they create; the user page
// lists those entities through /authz/shares/user/{userId}.
func TestSharesOfUser(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	aliceID := h.CreateUser("alice", "alicepass1", "Reader", "Views Manager")
	bobID := h.CreateUser("bob", "bobpass1", "Reader")
	alice := nodetest.Basic("alice", "alicepass1")
	h.Do("PUT", "/users/alice/permissions", map[string]any{"permissions": []string{"streams:create", "streams:edit", "streams:read", "dashboards:create"}}, root).Want(t, http.StatusNoContent)
	stream := h.Do("POST", "/streams", map[string]any{
		"title": "alice's stream", "index_set_id": defaultIndexSet(t, h), "matching_type": "AND", "rules": []any{},
	}, alice).Want(t, http.StatusCreated).Get("stream_id").String()
	view := h.Do("POST", "/views", map[string]any{
		"type": "DASHBOARD", "title": "alice's dashboard", "summary": "", "description": "", "search_id": "5f0000000000000000000001",
		"properties": []any{}, "requires": map[string]any{}, "state": map[string]any{},
	}, alice).Want(t, http.StatusOK).Get("id").String()

	got := h.Do("GET", "/authz/shares/user/"+aliceID, nil, alice).Want(t, http.StatusOK)
	if got.Get("total").Int() != 2 || got.Get("per_page").Int() != 50 || got.Get("page").Int() != 1 {
		t.Fatalf("alice's shares: %s", got.Body)
	}
	for grn, title := range map[string]string{"grn::::stream:" + stream: "alice's stream", "grn::::dashboard:" + view: "alice's dashboard"} {
		e := got.Get(`entities.#(id=="` + grn + `")`)
		if e.Get("title").String() != title || e.Get("owners.0.id").String() != "grn::::user:"+aliceID || e.Get("owners.0.type").String() != "user" {
			t.Errorf("%s: %s", grn, e.Raw)
		}
		if c := got.Get("context.grantee_capabilities").Map()[grn].String(); c != "own" {
			t.Errorf("%s capability %q", grn, c)
		}
	}
	if one := h.Do("GET", "/authz/shares/user/"+aliceID+"?entity_type=stream", nil, root).Want(t, http.StatusOK); one.Get("total").Int() != 1 {
		t.Errorf("streams only: %s", one.Body)
	}
	if none := h.Do("GET", "/authz/shares/user/"+aliceID+"?capability=view", nil, root).Want(t, http.StatusOK); none.Get("total").Int() != 0 {
		t.Errorf("view capability: %s", none.Body)
	}
	if b := h.Do("GET", "/authz/shares/user/"+bobID, nil, root).Want(t, http.StatusOK); b.Get("total").Int() != 0 || b.Get("entities").Raw != "[]" || b.Get("context.grantee_capabilities").Raw != "{}" {
		t.Errorf("bob's shares: %s", b.Body)
	}
	h.Do("GET", "/authz/shares/user/"+aliceID, nil, nodetest.Basic("bob", "bobpass1")).Want(t, http.StatusForbidden)
	// Reading users is not enough: as in Graylog, another user's shares are
	// for whoever may edit that user.
	h.CreateUser("carol", "carolpass1", "Reader", "User Inspector")
	h.Do("GET", "/authz/shares/user/"+aliceID, nil, nodetest.Basic("carol", "carolpass1")).Want(t, http.StatusForbidden)
	h.Do("GET", "/authz/shares/user/5f0000000000000000000009", nil, root).Want(t, http.StatusNotFound)
}

// createUnprivileged creates the user "nobody" with only a role that reads
// streams: users without roles get Reader, which may read the system
// resources, as in Graylog.
func createUnprivileged(t *testing.T, h *nodetest.Harness) {
	t.Helper()
	h.Do("POST", "/roles", map[string]any{"name": "streams only", "permissions": []string{"streams:read"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.CreateUser("nobody", "nobodypass1", "streams only")
}

// The new system routes are documented: the OpenAPI description lists
// them (it is generated from the route table).
func TestSystemRoutesDocumented(t *testing.T) {
	h := nodetest.Start(t)
	doc := h.Do("GET", "/api-browser/openapi.json", nil).Want(t, http.StatusOK)
	for _, p := range []string{
		"/search/decorators", "/search/decorators/available", "/search/decorators/{decoratorId}",
		"/system/cluster_config", "/system/cluster_config/{configClass}", "/system/messageprocessors/config",
		"/system/urlwhitelist", "/system/urlwhitelist/check", "/system/urlwhitelist/generate_regex", "/system/gettingstarted", "/system/gettingstarted/dismiss",
		"/system/locales", "/system/jvm", "/cluster/{nodeId}/jvm", "/cluster/{nodeId}/plugins", "/system/cluster/traffic",
		"/system/jobs", "/cluster/jobs", "/cluster/inputstates", "/authz/shares/user/{userId}",
	} {
		if !doc.Get("paths").Get(strings.ReplaceAll(p, ".", `\.`)).Exists() {
			t.Errorf("%s is not in openapi.json", p)
		}
	}
}

// A deleted input's metrics leave the registry, as Graylog removes an
// input's metric set when the input goes: they were kept for the life of
// the process, so every input created and deleted grew the registry (and
// the gauges held the input's reassembly state) for good, and
// /system/metrics kept listing inputs that no longer exist.
func TestDeletedInputMetricsRemoved(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	names := func() string {
		return h.Do("GET", "/system/metrics/names", nil, root).Want(t, http.StatusOK).Get("names").Raw
	}
	before := h.Do("GET", "/system/metrics/names", nil, root).Get("names.#").Int()
	for _, typ := range []string{nodetest.GELFUDP, nodetest.GELFTCP, nodetest.GELFHTTP} {
		id, _ := h.CreateInput(typ)
		if !strings.Contains(names(), id) {
			t.Fatalf("%s: no metrics of the running input %s", typ, id)
		}
		h.Do("DELETE", "/system/inputs/"+id, nil, root).Want(t, http.StatusNoContent)
		// The node stops the input (and drops its metrics) as it
		// reconciles its inputs with the store, just after the delete.
		poll.Until(t, typ+": the deleted input's metrics gone", func() bool { return strings.Count(names(), id) == 0 })
	}
	poll.Until(t, "as many metrics as before the inputs", func() bool {
		return h.Do("GET", "/system/metrics/names", nil, root).Get("names.#").Int() == before
	})
}

// TestDeletedExtractorAndRuleMetricsRemoved: an extractor's and a pipeline
// rule's metrics go when they are deleted, as an input's do.
func TestDeletedExtractorAndRuleMetricsRemoved(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	listed := func(id string) func() bool {
		return func() bool {
			return strings.Contains(h.Do("GET", "/system/metrics/names", nil, root).Want(t, http.StatusOK).Get("names").Raw, id)
		}
	}
	input, _ := h.CreateInput(nodetest.GELFHTTP)
	ex := h.Do("POST", "/system/inputs/"+input+"/extractors", map[string]any{
		"title": "took", "cut_or_copy": "copy", "source_field": "message", "target_field": "took_ms",
		"extractor_type": "regex", "extractor_config": map[string]any{"regex_value": `took (\d+) ms`},
		"converters": map[string]any{}, "condition_type": "none", "condition_value": "", "order": 0,
	}, root).Want(t, http.StatusCreated).Get("extractor_id").String()
	rule := h.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "r" when true then end`}, root).
		Want(t, http.StatusOK).Get("id").String()
	if ex == "" || rule == "" {
		t.Fatalf("extractor %q, rule %q", ex, rule)
	}
	poll.Until(t, "the extractor's metrics", listed(ex))
	poll.Until(t, "the rule's metrics", listed(rule))
	h.Do("DELETE", "/system/inputs/"+input+"/extractors/"+ex, nil, root).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/system/pipelines/rule/"+rule, nil, root).Want(t, http.StatusNoContent)
	poll.Until(t, "the extractor's metrics gone", func() bool { return !listed(ex)() })
	poll.Until(t, "the rule's metrics gone", func() bool { return !listed(rule)() })
}
