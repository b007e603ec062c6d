package views

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/router/api"
)

// The conversion of legacy widgets to 4.0 aggregation widgets follows
// Graylog's V20191125144500_MigrateDashboardsToViews where the mapping is
// obvious: counts become numeric aggregations, quick values a values pivot,
// charts a time pivot. What 4.0 has no place for (cache_time, the widget's
// creator, the exact legacy configuration) is kept beside the state; see
// queryState.

// pivot, series and aggregation are the parts of a 4.0 aggregation widget's
// configuration (AggregationConfigDTO) the conversion fills.
type pivot struct {
	Field  string         `json:"field"`
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
}

type series struct {
	Config   map[string]any `json:"config"`
	Function string         `json:"function"`
}

type aggregation struct {
	RowPivots           []pivot  `json:"row_pivots"`
	ColumnPivots        []pivot  `json:"column_pivots"`
	Series              []series `json:"series"`
	Sort                []any    `json:"sort"`
	Visualization       string   `json:"visualization"`
	VisualizationConfig any      `json:"visualization_config"`
	FormattingSettings  any      `json:"formatting_settings"`
	Rollup              bool     `json:"rollup"`
	EventAnnotation     bool     `json:"event_annotation"`
}

// viewWidget is a 4.0 WidgetDTO.
type viewWidget struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Filter    *string         `json:"filter"`
	Config    aggregation     `json:"config"`
	Timerange json.RawMessage `json:"timerange"`
	Query     query           `json:"query"`
	Streams   []string        `json:"streams"`
}

type query struct {
	Type        string `json:"type"`
	QueryString string `json:"query_string"`
}

// seriesOf is the 4.0 series of a legacy statistic (statsSeries names
// them) of field.
func seriesOf(fn, field string) series {
	if f, ok := statsSeries[fn]; ok {
		fn = f
	}
	if fn == "" || fn == "count" && field == "" {
		return series{Config: map[string]any{"name": nil}, Function: "count()"}
	}
	return series{Config: map[string]any{"name": nil}, Function: fn + "(" + field + ")"}
}

var timeUnits = map[string]string{
	"minute": "minutes", "hour": "hours", "day": "days", "week": "weeks",
	"month": "months", "quarter": "months", "year": "years",
}

func timePivot(interval string) pivot {
	iv := map[string]any{"type": "auto", "scaling": 1.0}
	if unit, ok := timeUnits[interval]; ok {
		value := 1
		if interval == "quarter" {
			value = 3
		}
		iv = map[string]any{"type": "timeunit", "value": value, "unit": unit}
	}
	return pivot{Field: "timestamp", Type: "time", Config: map[string]any{"interval": iv}}
}

func valuesPivot(field string, limit int64) pivot {
	if limit <= 0 {
		limit = 15
	}
	return pivot{Field: field, Type: "values", Config: map[string]any{"limit": limit}}
}

var visualizations = map[string]string{"line": "line", "bar": "bar", "area": "area", "scatterplot": "scatter"}

func visualization(renderer, def string) string {
	if v, ok := visualizations[renderer]; ok {
		return v
	}
	return def
}

// toView converts a legacy widget to the 4.0 widget that stands for it; tr
// is its time range in 4.0 form.
func toView(w Widget, tr json.RawMessage) viewWidget {
	cfg := gjson.ParseBytes(w.Config)
	agg := aggregation{
		RowPivots: []pivot{}, ColumnPivots: []pivot{}, Sort: []any{},
		Series: []series{seriesOf("count", "")}, Visualization: "numeric", Rollup: true,
	}
	field := cfg.Get("field").Str
	switch strings.ToUpper(w.Type) {
	case "STATS_COUNT":
		agg.Series = []series{seriesOf(cfg.Get("stats_function").Str, field)}
	case "QUICKVALUES":
		agg.RowPivots = []pivot{valuesPivot(field, cfg.Get("limit").Int())}
		agg.Visualization = "table"
		if cfg.Get("show_pie_chart").Bool() {
			agg.Visualization = "pie"
		}
	case "QUICKVALUES_HISTOGRAM":
		agg.RowPivots = []pivot{timePivot(cfg.Get("interval").Str)}
		agg.ColumnPivots = []pivot{valuesPivot(field, cfg.Get("limit").Int())}
		agg.Visualization = "bar"
	case "SEARCH_RESULT_CHART":
		agg.RowPivots = []pivot{timePivot(cfg.Get("interval").Str)}
		agg.Visualization = "bar"
	case "FIELD_CHART":
		agg.RowPivots = []pivot{timePivot(cfg.Get("interval").Str)}
		agg.Series = []series{seriesOf(cfg.Get("valuetype").Str, field)}
		agg.Visualization = visualization(cfg.Get("renderer").Str, "line")
	case "STACKED_CHART":
		agg.RowPivots = []pivot{timePivot(cfg.Get("interval").Str)}
		agg.Series = agg.Series[:0]
		cfg.Get("series").ForEach(func(_, s gjson.Result) bool {
			agg.Series = append(agg.Series, seriesOf(s.Get("statistical_function").Str, s.Get("field").Str))
			return true
		})
		if len(agg.Series) == 0 {
			agg.Series = []series{seriesOf("count", "")}
		}
		agg.Visualization = visualization(cfg.Get("renderer").Str, "bar")
	case strings.ToUpper(MapWidget):
		// The counts of a geo field's values, as Graylog 4.0's content
		// packs convert a map (DashboardWidgetConverter.createMapWidget).
		agg.RowPivots = []pivot{valuesPivot(field, 0)}
		agg.Visualization = "map"
	}
	streams := []string{}
	if s := cfg.Get("stream_id").Str; s != "" {
		streams = append(streams, s)
	}
	return viewWidget{
		ID: w.ID, Type: "aggregation", Config: agg, Timerange: tr,
		Query:   query{Type: "elasticsearch", QueryString: cfg.Get("query").Str},
		Streams: streams,
	}
}

// Series functions of 4.0 and the legacy names of STATS_COUNT's
// stats_function and FIELD_CHART's valuetype.
var (
	toStats     = map[string]string{"avg": "mean", "card": "cardinality", "stddev": "std_dev", "sumofsquares": "sum_of_squares"}
	toValueType = map[string]string{"avg": "mean", "sum": "total", "card": "cardinality", "stddev": "std_dev", "sumofsquares": "sum_of_squares"}
)

// fromView converts a 4.0 widget that has no legacy original (a 4.0 client
// made it) to the legacy widget closest to it. Widgets of types 2.x had no
// counterpart for keep their 4.0 type, upper-cased as legacy types are.
func fromView(w gjson.Result, owner string) Widget {
	tr := w.Get("timerange")
	cfg := map[string]any{"query": w.Get("query.query_string").Str}
	if tr.IsObject() {
		cfg["timerange"] = json.RawMessage(tr.Raw)
	} else {
		cfg["timerange"] = json.RawMessage(`{"type":"relative","range":300}`)
	}
	streams := w.Get("streams").Array()
	if len(streams) > 0 {
		cfg["stream_id"] = streams[0].Str
	}
	typ := strings.ToUpper(w.Get("type").Str)
	if w.Get("type").Str == "aggregation" {
		c := w.Get("config")
		fn, field := splitSeries(c.Get("series.0.function").Str)
		row := c.Get("row_pivots.0")
		switch {
		case !row.Exists() && fn == "count" && field == "":
			typ = "SEARCH_RESULT_COUNT"
			if len(streams) > 0 {
				typ = "STREAM_SEARCH_RESULT_COUNT"
			}
		case !row.Exists():
			typ = "STATS_COUNT"
			cfg["field"], cfg["stats_function"] = field, rename(toStats, fn)
		case row.Get("type").Str == "values":
			typ = "QUICKVALUES"
			cfg["field"] = row.Get("field").Str
			cfg["show_pie_chart"] = c.Get("visualization").Str == "pie"
			cfg["show_data_table"] = true
		case row.Get("type").Str == "time" && fn == "count" && field == "":
			typ = "SEARCH_RESULT_CHART"
			cfg["interval"] = interval(row)
		case row.Get("type").Str == "time":
			typ = "FIELD_CHART"
			cfg["interval"] = interval(row)
			cfg["field"], cfg["valuetype"] = field, rename(toValueType, fn)
			cfg["renderer"] = "line"
			for legacy, v := range visualizations {
				if v == c.Get("visualization").Str {
					cfg["renderer"] = legacy
				}
			}
		}
	}
	b, _ := api.Marshal(cfg) // a map of strings, bools and valid raw JSON
	return Widget{ID: w.Get("id").Str, Type: typ, CacheTime: defaultCacheTime, CreatorUserID: owner, Config: b}
}

// defaultCacheTime is the cache time Graylog's web interface gave widgets.
const defaultCacheTime = 10

func rename(m map[string]string, fn string) string {
	if legacy, ok := m[fn]; ok {
		return legacy
	}
	return fn
}

// splitSeries splits "avg(took_ms)" into avg and took_ms.
func splitSeries(fn string) (name, field string) {
	name, rest, ok := strings.Cut(fn, "(")
	if !ok {
		return fn, ""
	}
	return name, strings.TrimSuffix(rest, ")")
}

// interval names a time pivot's interval as legacy charts did; an automatic
// interval becomes minute, the web interface's default.
func interval(row gjson.Result) string {
	iv := row.Get("config.interval")
	unit := iv.Get("unit").Str
	if iv.Get("type").Str != "timeunit" {
		return "minute"
	}
	if unit == "months" && iv.Get("value").Int() == 3 {
		return "quarter"
	}
	for legacy, u := range timeUnits {
		if u == unit && legacy != "quarter" {
			return legacy
		}
	}
	return "minute"
}
