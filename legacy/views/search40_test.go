package views

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

// Each 4.0 widget a legacy widget becomes is run by the search type 4.0's
// interface would derive from it, narrowed to the widget's range, query
// and stream.
func TestSearchTypeOfWidget(t *testing.T) {
	tr := json.RawMessage(`{"type":"relative","range":3600}`)
	tests := []struct {
		typ, config string
		// want are gjson paths of the search type and their raw values.
		want map[string]string
	}{
		{"SEARCH_RESULT_COUNT", `{"query":"a:b","stream_id":"s1"}`, map[string]string{
			"type": `"pivot"`, "row_groups": `[]`, "series": `[{"field":"","id":"count()","type":"count"}]`,
			"query.query_string": `"a:b"`, "streams": `["s1"]`, "timerange.range": `3600`, "rollup": `true`,
		}},
		{"QUICKVALUES", `{"field":"status","limit":5}`, map[string]string{
			"row_groups": `[{"field":"status","limit":5,"type":"values"}]`,
		}},
		{"SEARCH_RESULT_CHART", `{"interval":"hour"}`, map[string]string{
			"row_groups": `[{"field":"timestamp","interval":{"timeunit":"1h","type":"timeunit"},"type":"time"}]`,
		}},
		{"SEARCH_RESULT_CHART", `{"interval":"quarter"}`, map[string]string{
			"row_groups.0.interval.timeunit": `"3M"`,
		}},
		{"SEARCH_RESULT_CHART", `{"interval":"year"}`, map[string]string{
			"row_groups.0.interval.timeunit": `"12M"`,
		}},
		{"SEARCH_RESULT_CHART", `{}`, map[string]string{
			"row_groups.0.interval": `{"scaling":1,"type":"auto"}`,
		}},
		{"FIELD_CHART", `{"field":"took_ms","valuetype":"mean","interval":"minute"}`, map[string]string{
			"series": `[{"field":"took_ms","id":"avg(took_ms)","type":"avg"}]`, "row_groups.0.interval.timeunit": `"1m"`,
		}},
		{"QUICKVALUES_HISTOGRAM", `{"field":"status","interval":"day"}`, map[string]string{
			"column_groups": `[{"field":"status","limit":15,"type":"values"}]`, "row_groups.0.interval.timeunit": `"1d"`,
		}},
		{"STATS_COUNT", `{"field":"took_ms","stats_function":"std_dev"}`, map[string]string{
			"series": `[{"field":"took_ms","id":"stddev(took_ms)","type":"stddev"}]`,
		}},
		{"STACKED_CHART", `{"series":[{"field":"a","statistical_function":"max"},{"field":"b","statistical_function":"total"}]}`, map[string]string{
			"series.#.id": `["max(a)","sum(b)"]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.typ+tt.config, func(t *testing.T) {
			raw, err := canonical(toView(Widget{ID: "w1", Type: tt.typ, Config: json.RawMessage(tt.config)}, tr))
			if err != nil {
				t.Fatal(err)
			}
			st, ok := searchTypeOf(gjson.ParseBytes(raw))
			if !ok {
				t.Fatalf("no search type for %s", raw)
			}
			b, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range tt.want {
				if got := gjson.GetBytes(b, path).Raw; got != want {
					t.Errorf("%s = %s, want %s\n%s", path, got, want, b)
				}
			}
		})
	}
}

// A widget keeps its search type across edits; widgets removed lose
// theirs, widgets 4.0 has no search type for get none.
func TestWidgetMappingKept(t *testing.T) {
	q := newQueryState()
	tr := json.RawMessage(`{"type":"relative","range":300}`)
	for _, id := range []string{"a", "b"} {
		if err := q.put(Widget{ID: id, Type: "SEARCH_RESULT_COUNT", Config: json.RawMessage(`{}`)}, tr); err != nil {
			t.Fatal(err)
		}
	}
	q.widgets = append(q.widgets, json.RawMessage(`{"id":"c","type":"unknown-plugin-widget"}`))
	first, err := q.query("q1", dashboardScope)
	if err != nil {
		t.Fatal(err)
	}
	mapped := gjson.ParseBytes(q.raw["widget_mapping"])
	if len(mapped.Map()) != 2 || mapped.Get("c").Exists() || gjson.GetBytes(first, "search_types.#").Int() != 2 {
		t.Fatalf("mapping %s, query %s", mapped.Raw, first)
	}
	a := mapped.Get("a.0").Str
	q.remove("b")
	second, err := q.query("q1", dashboardScope)
	if err != nil {
		t.Fatal(err)
	}
	mapped = gjson.ParseBytes(q.raw["widget_mapping"])
	if mapped.Get("a.0").Str != a || mapped.Get("b").Exists() || gjson.GetBytes(second, "search_types.0.id").Str != a {
		t.Errorf("after removing b: mapping %s, query %s", mapped.Raw, second)
	}
}

// A saved search's query object names what its view's search looks at.
func TestSavedScope(t *testing.T) {
	tests := []struct {
		query string
		want  scope
	}{
		{`{"query":"a","rangeType":"relative","relative":3600,"streamId":"s1"}`,
			scope{QueryString: "a", TimeRange: json.RawMessage(`{"type":"relative","range":3600}`), Streams: []string{"s1"}}},
		{`{"rangeType":"relative","relative":"0"}`, scope{TimeRange: json.RawMessage(`{"type":"relative","range":0}`)}},
		{`{"rangeType":"absolute","from":"2019-01-01T00:00:00.000Z","to":"2019-01-02T00:00:00.000Z"}`,
			scope{TimeRange: json.RawMessage(`{"type":"absolute","from":"2019-01-01T00:00:00.000Z","to":"2019-01-02T00:00:00.000Z"}`)}},
		{`{"rangeType":"keyword","keyword":"last day"}`, scope{TimeRange: json.RawMessage(`{"type":"keyword","keyword":"last day"}`)}},
		{`{"rangeType":"absolute","from":"yesterday"}`, dashboardScope},
		{`{}`, dashboardScope},
	}
	for _, tt := range tests {
		got := savedScope(json.RawMessage(tt.query))
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(tt.want)
		if string(g) != string(w) {
			t.Errorf("%s: got %s, want %s", tt.query, g, w)
		}
	}
}

// FuzzSavedScope reads any query object a client saved: the scope is
// always one a search executes (a time range 4.0 knows).
func FuzzSavedScope(f *testing.F) {
	for _, s := range []string{`{"query":"a","rangeType":"relative","relative":300,"streamId":"s"}`, `{"rangeType":"keyword","keyword":"x"}`, `[]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		sc := savedScope(json.RawMessage(query))
		switch gjson.GetBytes(sc.TimeRange, "type").Str {
		case "relative", "absolute", "keyword":
		default:
			t.Fatalf("%s: time range %s", query, sc.TimeRange)
		}
	})
}
