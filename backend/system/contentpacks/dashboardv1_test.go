package contentpacks_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/system/contentpacks"
)

func bref(b bool) string { return fmt.Sprintf(`{"@type":"boolean","@value":%t}`, b) }

// Time ranges and positions of 3.x content pack widgets.
var (
	relative = func(s int) string { return `{"type":` + sref("relative") + `,"range":` + iref(s) + `}` }
	absolute = `{"type":` + sref("absolute") + `,"from":` + sref("2019-01-01T00:00:00.000Z") + `,"to":` + sref("2019-01-02T00:00:00.000Z") + `}`
	keyword  = `{"type":` + sref("keyword") + `,"keyword":` + sref("last week") + `}`
	position = func(col, row, w, h int) string {
		return `{"width":` + iref(w) + `,"height":` + iref(h) + `,"row":` + iref(row) + `,"col":` + iref(col) + `}`
	}
)

// widgetV1 is a DashboardWidgetEntity as Graylog 3.x's content packs
// export one: its configuration keeps the 3.x client's own timerange,
// often without its range.
func widgetV1(id, typ, desc, timeRange, config, pos string) string {
	return `{"id":` + sref(id) + `,"description":` + sref(desc) + `,"type":` + sref(typ) + `,"cache_time":` + iref(10) +
		`,"time_range":` + timeRange + `,"configuration":{"timerange":{"type":` + sref("relative") + `}` + config + `},"position":` + pos + `}`
}

// dashboardV1 is a dashboard (version 1) entity of a 3.x pack: its title
// a parameter, a trend count, a count of the pack's stream (e2), quick
// values as a pie, a field chart of a query parameter, a stacked chart
// without a position, and a map of the pack's stream.
func dashboardV1(id string, widgets ...string) string {
	if widgets == nil {
		widgets = []string{
			widgetV1("w-count", "SEARCH_RESULT_COUNT", "All messages", relative(86400),
				`,"query":`+sref("")+`,"trend":`+bref(true)+`,"lower_is_better":`+bref(false), position(1, 1, 2, 1)),
			widgetV1("w-stream", "STREAM_SEARCH_RESULT_COUNT", "Web messages", relative(3600),
				`,"query":`+sref("level:3")+`,"stream_id":`+sref("e2")+`,"trend":`+bref(false)+`,"lower_is_better":`+bref(true), position(3, 1, 2, 1)),
			widgetV1("w-qv", "QUICKVALUES", "Top sources", absolute,
				`,"field":`+sref("source")+`,"show_pie_chart":`+bref(true)+`,"show_data_table":`+bref(true)+`,"limit":`+iref(5)+`,"sort_order":`+sref("desc")+`,"stacked_fields":`+sref(""), position(1, 2, 4, 3)),
			widgetV1("w-field", "FIELD_CHART", "Took", keyword,
				`,"field":`+sref("took_ms")+`,"valuetype":`+sref("mean")+`,"renderer":`+sref("line")+`,"interpolation":`+sref("linear")+`,"interval":`+sref("hour")+`,"query":{"@type":"parameter","@value":"SRC"}`, position(1, 5, 4, 2)),
			widgetV1("w-stack", "STACKED_CHART", "Lines", relative(300),
				`,"renderer":`+sref("bar")+`,"interpolation":`+sref("linear")+`,"interval":`+sref("day")+`,"series":[{"query":`+sref("")+`,"field":`+sref("lines")+`,"statistical_function":`+sref("sum")+`}]`, "null"),
			widgetV1("w-map", "org.graylog.plugins.map.widget.strategy.MapWidgetStrategy", "Clients", relative(1800),
				`,"field":`+sref("client_geo")+`,"stream_id":`+sref("e2")+`,"query":`+sref(""), position(5, 1, 4, 3)),
		}
	}
	data := `{"title":{"@type":"parameter","@value":"TITLE"},"description":` + sref("Web servers at a glance") + `,"widgets":[` + strings.Join(widgets, ",") + `]}`
	return `{"v":"1","type":{"name":"dashboard","version":"1"},"id":"` + id + `","data":` + data + `,"constraints":[{"type":"server-version","version":">=3.0.0"}]}`
}

const v1Params = `{"parameters":{"TITLE":{"@type":"string","@value":"Web"},"OFF":{"@type":"boolean","@value":false},"SRC":{"@type":"string","@value":"source:web"}}}`

// TestDashboardV1Install: a 3.x dashboard installs as a 4.0 dashboard
// owned by the installer, each widget converted as the legacy dashboards
// convert it, over the pack's stream, where its position puts it; the
// catalog lists and exports it once, as a dashboard of version 2;
// uninstalling deletes the view and its search.
func TestDashboardV1Install(t *testing.T) {
	e := newEnv(t)
	e.want(e.do("POST", "/system/content_packs", pack("v1", 1, params3, dashboardV1("d1")+","+streamEntity(sref("web")))), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/v1/1/installations", v1Params), 200, &in)
	ids := map[string]string{}
	for _, d := range in.Entities {
		ids[d.ContentPackEnID] = d.ID
		if d.ContentPackEnID == "d1" && (d.Type != contentpacks.DashboardV1 || d.Title != "Web") {
			t.Errorf("installed %+v", d)
		}
	}
	stream := ids["e2"]
	v, s := e.viewOf(ids["d1"])
	if v.Type != views.Dashboard || v.Title != "Web" || v.Description != "Web servers at a glance" || v.Summary != "Converted Dashboard" ||
		str(v.Owner) != "user" || str(s.Owner) != "user" || len(v.State) != 1 || len(s.Queries) != 1 {
		t.Fatalf("view %+v, search %+v", v, s)
	}
	var state gjson.Result
	for _, raw := range v.State {
		state = gjson.ParseBytes(raw)
	}
	query := gjson.ParseBytes(s.Queries[0])
	if n := len(state.Get("widgets").Array()); n != 6 || len(query.Get("search_types").Array()) != 6 {
		t.Fatalf("%d widgets, search %s", n, query.Raw)
	}
	byTitle := map[string]gjson.Result{}
	for _, w := range state.Get("widgets").Array() {
		byTitle[state.Get("titles.widget."+w.Get("id").Str).Str] = w
	}
	for _, c := range []struct {
		title, vis, series, pivot, query, timerange string
		streams                                     []string
		pos                                         string // the position, "" for none
	}{
		{"All messages", "numeric", "count()", "", "", `{"range":86400,"type":"relative"}`, nil, `{"col":1,"height":1,"row":1,"width":2}`},
		{"Web messages", "numeric", "count()", "", "level:3", `{"range":3600,"type":"relative"}`, []string{stream}, `{"col":3,"height":1,"row":1,"width":2}`},
		{"Top sources", "pie", "count()", "values", "", `{"from":"2019-01-01T00:00:00.000Z","to":"2019-01-02T00:00:00.000Z","type":"absolute"}`, nil, `{"col":1,"height":3,"row":2,"width":4}`},
		{"Took", "line", "avg(took_ms)", "time", "source:web", `{"keyword":"last week","type":"keyword"}`, nil, `{"col":1,"height":2,"row":5,"width":4}`},
		{"Lines", "bar", "sum(lines)", "time", "", `{"range":300,"type":"relative"}`, nil, ""},
		{"Clients", "map", "count()", "values", "", `{"range":1800,"type":"relative"}`, []string{stream}, `{"col":5,"height":3,"row":1,"width":4}`},
	} {
		w, ok := byTitle[c.title]
		if !ok {
			t.Errorf("%s: no widget so titled in %s", c.title, state.Get("titles").Raw)
			continue
		}
		id := w.Get("id").Str
		var streamIDs []string
		for _, st := range w.Get("streams").Array() {
			streamIDs = append(streamIDs, st.Str)
		}
		if w.Get("type").Str != "aggregation" || w.Get("config.visualization").Str != c.vis || w.Get("config.series.0.function").Str != c.series ||
			w.Get("config.row_pivots.0.type").Str != c.pivot || w.Get("query.query_string").Str != c.query ||
			w.Get("timerange").Raw != c.timerange || !slices.Equal(streamIDs, c.streams) {
			t.Errorf("%s: widget %s", c.title, w.Raw)
		}
		if strings.HasPrefix(id, "w-") {
			t.Errorf("%s: the widget kept the pack's id %s", c.title, id)
		}
		if got := state.Get("positions." + id); !sameJSON(got.Raw, c.pos) {
			t.Errorf("%s: position %s, want %s", c.title, got, c.pos)
		}
		// The widget's search type runs it, narrowed to its stream.
		stID := state.Get("widget_mapping." + id + ".0").Str
		st := query.Get(`search_types.#(id=="` + stID + `")`)
		if !st.Exists() || st.Get("type").Str != "pivot" || st.Get("streams").Raw != orEmpty(c.streams) {
			t.Errorf("%s: search type %q: %s", c.title, stID, st.Raw)
		}
		// The legacy original, as 3.x clients read it: the pack's
		// configuration resolved, its time range the widget's, its stream
		// the installed one, its creator the installer.
		o := state.Get("legacy_widgets." + id + ".widget")
		if o.Get("creator_user_id").Str != "user" || o.Get("cache_time").Int() != 10 || o.Get("config.timerange").Raw != c.timerange ||
			o.Get("config.stream_id").Str != strings.Join(c.streams, "") {
			t.Errorf("%s: legacy original %s", c.title, o.Raw)
		}
	}

	// The catalog lists the dashboard once, of version 2, and exports it
	// so, with its stream.
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", ""), 200, &cat)
	var listed []contentpacks.Excerpt
	for _, x := range cat.Entities {
		if x.ID == ids["d1"] {
			listed = append(listed, x)
		}
	}
	if len(listed) != 1 || listed[0].Type != contentpacks.DashboardV2 || listed[0].Title != "Web" {
		t.Errorf("catalog lists the dashboard as %+v", listed)
	}
	for _, c := range []struct {
		version string
		code    int
		msg     string
	}{
		{"2", 200, `"version":"2"`},
		{"1", 400, "dashboard version 1 is installed but not exported by loggate: export version 2"},
	} {
		w := e.do("POST", "/system/catalog", `{"entities":[{"id":"`+ids["d1"]+`","type":{"name":"dashboard","version":"`+c.version+`"}}]}`)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("export as version %s: %d %s", c.version, w.Code, w.Body)
		}
		if c.code == 200 {
			exp := gjson.Get(w.Body.String(), `entities.#(type.name=="dashboard")`)
			streamEntityID := gjson.Get(w.Body.String(), `entities.#(type.name=="stream").id`).Str
			if exp.Get("type.version").Str != "2" || exp.Get("data.summary.@value").Str != "Converted Dashboard" ||
				!strings.Contains(exp.Get("data.state").Raw, `"streams":["`+streamEntityID+`"]`) {
				t.Errorf("exported %s", w.Body)
			}
		}
	}

	// Uninstalling deletes the view and its search.
	e.wantUninstalled("v1", in.ID, 2, ids["d1"])
}

// sameJSON reports whether two JSON texts hold the same value ("" none).
func sameJSON(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func orEmpty(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

// TestDashboardV1Refused: a dashboard or widget Graylog refuses, or a
// widget of a stream the pack lacks, is a 400 naming the entity, and
// nothing of the pack stays.
func TestDashboardV1Refused(t *testing.T) {
	e := newEnv(t)
	count := func(tr, config, pos string) string {
		return widgetV1("w", "SEARCH_RESULT_COUNT", "c", tr, config, pos)
	}
	dash := func(widgets ...string) string { return dashboardV1("d", widgets...) }
	cases := []refusal{
		// Graylog's DashboardWidgetConverter throws on a type it does not
		// know: the whole installation fails, as here.
		{"unknown widget type", dash(widgetV1("w", "WORLD_CLOCK", "c", relative(300), "", "null")), "widget 0: No such widget type."},
		{"widget of a stream not in the pack", dash(count(relative(300), `,"stream_id":`+sref("e9"), "null")), "widget 0: missing stream e9 for the widget"},
		{"no time range", dash(strings.Replace(count(relative(300), "", "null"), `"time_range":`+relative(300)+`,`, "", 1)), "widget 0: time_range must not be null"},
		{"unknown time range", dash(count(`{"type":`+sref("sometime")+`}`, "", "null")), "widget 0: time_range: unknown type"},
		{"invalid absolute range", dash(count(`{"type":`+sref("absolute")+`,"from":`+sref("yesterday")+`,"to":`+sref("today")+`}`, "", "null")), "widget 0: Invalid timerange parameters provided."},
		{"range not an integer", dash(count(`{"type":`+sref("relative")+`,"range":`+sref("300")+`}`, "", "null")), "widget 0: time_range.range: expected a value of type integer"},
		{"negative position", dash(count(relative(300), "", position(-1, 1, 2, 2))), "widget 0: position.col must be greater than or equal to 0"},
		{"negative cache time", dash(strings.Replace(count(relative(300), "", "null"), `"cache_time":`+iref(10), `"cache_time":`+iref(-5), 1)), "widget 0: Validation failed! cache_time: must be greater than or equal to 0"},
		{"missing parameter", dash(count(relative(300), `,"query":{"@type":"parameter","@value":"NOPE"}`, "null")), "widget 0: configuration: query: missing parameter NOPE"},
		{"second widget", dash(count(relative(300), "", "null"), widgetV1("w2", "", "c", relative(300), "", "null")), "widget 1: Validation failed! type: must not be blank"},
		{"blank title", strings.Replace(dash(), `{"@type":"parameter","@value":"TITLE"}`, sref(" "), 1), "entity d (dashboard): Validation failed! title: must not be blank"},
		{"no widgets", strings.Replace(dash(count(relative(300), "", "null")), `"widgets":[`+count(relative(300), "", "null")+`]`, `"widgets":null`, 1), "no widgets list"},
	}
	e.wantRefused(v1Params, "entity d (dashboard)", cases)
}

// TestDashboardV1Permissions: as for a dashboard of version 2, installing
// needs dashboards:create and to read the streams the widgets read.
func TestDashboardV1Permissions(t *testing.T) {
	e := newEnv(t)
	def := streams.DefaultStreamID
	w := widgetV1("w", "STREAM_SEARCH_RESULT_COUNT", "c", relative(300), `,"stream_id":`+sref(def), "null")
	e.want(e.do("POST", "/system/content_packs", pack("d", 1, params3, dashboardV1("d", w))), 201, nil)
	cases := []struct {
		name  string
		perms []string
		code  int
		msg   string
	}{
		{"without dashboards:create", []string{"contentpack:*", "streams:read"}, 403, "create the dashboard entities"},
		{"without its stream", []string{"contentpack:*", "dashboards:create"}, 403, "Missing stream permissions: " + def},
		{"allowed", []string{"contentpack:*", "dashboards:create", "streams:read:" + def}, 200, ""},
	}
	for _, c := range cases {
		before, _ := e.stored()
		w := e.do("POST", "/system/content_packs/d/1/installations", v1Params, c.perms...)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, w.Code, w.Body, c.code, c.msg)
		}
		if after, _ := e.stored(); (c.code == 200) != (after == before+1) {
			t.Errorf("%s: %d views before, %d after", c.name, before, after)
		}
	}
}
