package views

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Legacy widgets become the 4.0 aggregation widgets Graylog's migration
// would make of them, and 4.0 widgets without an original come back as the
// closest legacy type.
func TestWidgetConversion(t *testing.T) {
	tests := []struct {
		typ, config string
		// want are gjson paths of the 4.0 widget and their raw values.
		want map[string]string
		// back is the legacy type the 4.0 widget converts back to.
		back string
	}{
		{"SEARCH_RESULT_COUNT", `{"query":"a:b"}`, map[string]string{
			"config.visualization": `"numeric"`, "config.series.0.function": `"count()"`, "config.row_pivots": `[]`, "query.query_string": `"a:b"`, "streams": `[]`,
		}, "SEARCH_RESULT_COUNT"},
		{"STREAM_SEARCH_RESULT_COUNT", `{"stream_id":"s1"}`, map[string]string{
			"config.visualization": `"numeric"`, "streams": `["s1"]`,
		}, "STREAM_SEARCH_RESULT_COUNT"},
		{"STATS_COUNT", `{"field":"took_ms","stats_function":"mean"}`, map[string]string{
			"config.series.0.function": `"avg(took_ms)"`, "config.visualization": `"numeric"`,
		}, "STATS_COUNT"},
		{"STATS_COUNT", `{"field":"user","stats_function":"cardinality"}`, map[string]string{
			"config.series.0.function": `"card(user)"`,
		}, "STATS_COUNT"},
		{"QUICKVALUES", `{"field":"status","limit":5,"show_pie_chart":true}`, map[string]string{
			"config.row_pivots.0.field": `"status"`, "config.row_pivots.0.type": `"values"`, "config.row_pivots.0.config.limit": `5`, "config.visualization": `"pie"`,
		}, "QUICKVALUES"},
		{"QUICKVALUES", `{"field":"status"}`, map[string]string{
			"config.row_pivots.0.config.limit": `15`, "config.visualization": `"table"`,
		}, "QUICKVALUES"},
		{"QUICKVALUES_HISTOGRAM", `{"field":"status","interval":"hour"}`, map[string]string{
			"config.row_pivots.0.type": `"time"`, "config.row_pivots.0.config.interval.unit": `"hours"`, "config.column_pivots.0.field": `"status"`,
		}, "SEARCH_RESULT_CHART"},
		{"SEARCH_RESULT_CHART", `{"interval":"quarter"}`, map[string]string{
			"config.row_pivots.0.config.interval.unit": `"months"`, "config.row_pivots.0.config.interval.value": `3`, "config.visualization": `"bar"`,
		}, "SEARCH_RESULT_CHART"},
		{"FIELD_CHART", `{"field":"took_ms","valuetype":"total","renderer":"scatterplot","interval":"day"}`, map[string]string{
			"config.series.0.function": `"sum(took_ms)"`, "config.visualization": `"scatter"`, "config.row_pivots.0.config.interval.unit": `"days"`,
		}, "FIELD_CHART"},
		{"FIELD_CHART", `{"field":"took_ms","valuetype":"max","interval":"fortnight"}`, map[string]string{
			"config.visualization": `"line"`, "config.row_pivots.0.config.interval.type": `"auto"`,
		}, "FIELD_CHART"},
		{"STACKED_CHART", `{"series":[{"field":"a","statistical_function":"mean"},{"field":"b","statistical_function":"max"}]}`, map[string]string{
			"config.series.#": `2`, "config.series.1.function": `"max(b)"`, "config.visualization": `"bar"`,
		}, "FIELD_CHART"},
		{MapWidget, `{"field":"client_geo","stream_id":"s1"}`, map[string]string{
			"config.visualization": `"map"`, "config.row_pivots.0.type": `"values"`, "config.row_pivots.0.field": `"client_geo"`,
			"config.row_pivots.0.config.limit": `15`, "config.series.0.function": `"count()"`, "streams": `["s1"]`,
		}, "QUICKVALUES"},
	}
	tr := json.RawMessage(`{"type":"relative","range":300}`)
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.config, func(t *testing.T) {
			b, err := json.Marshal(toView(Widget{ID: "w", Type: tt.typ, Config: json.RawMessage(tt.config)}, tr))
			if err != nil {
				t.Fatal(err)
			}
			got := gjson.ParseBytes(b)
			if got.Get("type").Str != "aggregation" || got.Get("id").Str != "w" || got.Get("timerange").Raw != string(tr) {
				t.Errorf("widget %s", b)
			}
			for path, want := range tt.want {
				if v := got.Get(path).Raw; v != want {
					t.Errorf("%s = %s, want %s in %s", path, v, want, b)
				}
			}
			back := fromView(got, "jane")
			if back.Type != tt.back || back.CreatorUserID != "jane" || back.CacheTime != defaultCacheTime {
				t.Errorf("back: %+v, want type %s", back, tt.back)
			}
			if gjson.GetBytes(back.Config, "timerange").Raw != string(tr) {
				t.Errorf("back config %s", back.Config)
			}
		})
	}
}

// Back conversion of what only 4.0 has.
func TestFromView(t *testing.T) {
	tests := []struct {
		widget, wantType string
		want             map[string]string
	}{
		{`{"id":"m","type":"messages","query":{"query_string":"x"}}`, "MESSAGES", map[string]string{
			"query": `"x"`, "timerange": `{"type":"relative","range":300}`,
		}},
		{`{"id":"a","type":"aggregation","timerange":{"type":"keyword","keyword":"today"},"config":{"row_pivots":[{"type":"values","field":"f"}],"visualization":"bar"}}`, "QUICKVALUES", map[string]string{
			"field": `"f"`, "show_pie_chart": `false`, "timerange.keyword": `"today"`,
		}},
		{`{"id":"a","type":"aggregation","config":{"row_pivots":[{"type":"time","config":{"interval":{"type":"auto"}}}],"series":[{"function":"avg(x)"}],"visualization":"area"}}`, "FIELD_CHART", map[string]string{
			"valuetype": `"mean"`, "renderer": `"area"`, "interval": `"minute"`,
		}},
		{`{"id":"a","type":"aggregation","streams":["s"],"config":{"series":[{"function":"card(user)"}]}}`, "STATS_COUNT", map[string]string{
			"stats_function": `"cardinality"`, "field": `"user"`, "stream_id": `"s"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.wantType, func(t *testing.T) {
			w := fromView(gjson.Parse(tt.widget), "")
			if w.Type != tt.wantType {
				t.Errorf("type %s, want %s", w.Type, tt.wantType)
			}
			for path, want := range tt.want {
				if v := gjson.GetBytes(w.Config, path).Raw; v != want {
					t.Errorf("%s = %s, want %s in %s", path, v, want, w.Config)
				}
			}
		})
	}
}

// A legacy widget reads back exactly as written until a 4.0 client changes
// the widget it stands for; then the 4.0 widget wins, with the legacy cache
// time and creator kept.
func TestQueryStateOriginals(t *testing.T) {
	q := newQueryState()
	w := Widget{ID: "w", Type: "STATS_COUNT", Description: "Mean", CacheTime: 42, CreatorUserID: "jane",
		Config: json.RawMessage(`{"field":"took_ms","stats_function":"mean","timerange":{"type":"relative","range":60},"trend":true}`)}
	if err := q.put(w, json.RawMessage(`{"type":"relative","range":60}`)); err != nil {
		t.Fatal(err)
	}
	raw, err := q.encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err = decodeState(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := q.widget(0, "owner")
	if got.Type != w.Type || string(got.Config) != string(w.Config) || got.CacheTime != 42 || got.CreatorUserID != "jane" || got.Description != "Mean" {
		t.Fatalf("read back %+v", got)
	}
	// Reordered keys are no change.
	var m map[string]any
	if err := json.Unmarshal(q.widgets[0], &m); err != nil {
		t.Fatal(err)
	}
	reordered, _ := json.Marshal(m)
	q.widgets[0] = reordered
	if got := q.widget(0, "owner"); string(got.Config) != string(w.Config) {
		t.Errorf("after reordering: %s", got.Config)
	}
	// A 4.0 client changes the series and the title.
	q.widgets[0] = json.RawMessage(strings.Replace(string(q.widgets[0]), "avg(took_ms)", "max(took_ms)", 1))
	q.titles["widget"]["w"] = json.RawMessage(`"Slowest"`)
	got = q.widget(0, "owner")
	if got.Type != "STATS_COUNT" || gjson.GetBytes(got.Config, "stats_function").Str != "max" || got.CacheTime != 42 || got.CreatorUserID != "jane" || got.Description != "Slowest" {
		t.Errorf("after a 4.0 edit: %+v %s", got, got.Config)
	}
	q.remove("w")
	if len(q.widgets) != 0 || len(q.legacy) != 0 || len(q.titles["widget"]) != 0 {
		t.Errorf("after remove: %+v", q)
	}
}
