package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Searches is what the service needs of the 4.0 search store
// (*views.Searches): Graylog 4.0's interface opens a view by loading the
// search its search_id names and executing it, so every view this package
// writes names a stored search that runs its widgets.
type Searches interface {
	Get(ctx context.Context, id string) (views.ViewSearch, error)
	Save(ctx context.Context, s views.ViewSearch, owner string) (views.ViewSearch, error)
	Delete(ctx context.Context, id string) error
}

// scope is what a query of a view's search looks at: a dashboard's
// queries look at the last five minutes of every stream (each widget
// narrows them with its own range, query and stream), a saved search's at
// what the search saved.
type scope struct {
	QueryString string
	TimeRange   json.RawMessage
	Streams     []string
}

// Repair gives the views that stand for legacy dashboards and saved
// searches, stored by loggate versions that wrote no search for them, the
// search they name (and a saved search its widgets), and returns how many
// it repaired. It runs as a node job, so it needs no caller.
func (s *Service) Repair(ctx context.Context) (int, error) {
	var todo []views.View
	for _, typ := range []views.Type{views.Dashboard, views.Search} {
		err := s.eachView(ctx, typ, func(v views.View) error {
			if v.Summary != DashboardSummary && v.Summary != SavedSearchSummary {
				return nil // a 4.0 client's view names its own search
			}
			_, err := s.searches.Get(ctx, v.SearchID)
			if errors.Is(err, store.ErrNotFound) {
				todo = append(todo, v)
				return nil
			}
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("repair legacy views: %w", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range todo {
		if v.Type == views.Search {
			if err := addSavedSearchWidgets(&v); err != nil {
				return n, err
			}
		}
		if err := s.writeSearch(ctx, &v, ownerOf(v)); err != nil {
			return n, err
		}
		_, err := s.views.Update(ctx, v.ID, v)
		switch {
		case errors.Is(err, store.ErrNotFound): // deleted meanwhile
			if err := s.deleteSearch(ctx, v); err != nil {
				return n, err
			}
		case err != nil:
			return n, fmt.Errorf("repair view %s: %w", v.ID, err)
		default:
			n++
		}
	}
	return n, nil
}

// addSavedSearchWidgets gives every state entry of a saved search's view
// the widgets of a saved search, showing its selected fields.
func addSavedSearchWidgets(v *views.View) error {
	state := maps.Clone(v.State)
	for id, raw := range v.State {
		q, err := decodeState(raw)
		if err != nil {
			return err
		}
		var fields []string
		_ = json.Unmarshal(q.raw["selected_fields"], &fields) // null: the default fields
		if err := savedSearchWidgets(q, fields); err != nil {
			return err
		}
		if state[id], err = q.encode(); err != nil {
			return err
		}
	}
	v.State = state
	return nil
}

// deleteSearch deletes the search of a view deleted, unless another view
// shows it too.
func (s *Service) deleteSearch(ctx context.Context, v views.View) error {
	shown := false
	err := s.list.List(ctx, views.Collection, func(_ string, doc []byte) error {
		shown = shown || gjson.GetBytes(doc, "search_id").Str == v.SearchID
		return nil
	})
	if err != nil {
		return fmt.Errorf("list views: %w", err)
	}
	if shown {
		return nil
	}
	return s.searches.Delete(ctx, v.SearchID)
}

// dashboardScope is the query Graylog's migration gave every dashboard.
var dashboardScope = scope{TimeRange: json.RawMessage(`{"type":"relative","range":300}`)}

// writeSearch stores the search v names, made from its widgets, and
// records in each state entry which search type runs which widget
// (widget_mapping). It changes v.State, so it runs before v is stored: the
// search is stored first, so that a view never names a missing search.
func (s *Service) writeSearch(ctx context.Context, v *views.View, owner string) error {
	// A view may name a search of someone else's that its owner may read
	// (the 4.0 API allows it): that one is left as it is, and the view
	// gets a search of its own.
	switch old, err := s.searches.Get(ctx, v.SearchID); {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return fmt.Errorf("view %s: %w", v.ID, err)
	case old.Owner == nil || *old.Owner != owner:
		v.SearchID = primitive.NewObjectID().Hex()
	}
	search, err := searchOf(v)
	if err != nil {
		return err
	}
	if _, err := s.searches.Save(ctx, search, owner); err != nil {
		return fmt.Errorf("view %s: %w", v.ID, err)
	}
	return nil
}

// searchOf returns the search v names (v.SearchID), made from its widgets,
// and records in each state entry which search type runs which widget
// (widget_mapping).
func searchOf(v *views.View) (views.ViewSearch, error) {
	search := views.ViewSearch{
		ID: v.SearchID, Queries: []json.RawMessage{}, Parameters: []json.RawMessage{}, Requires: map[string]json.RawMessage{},
	}
	state := maps.Clone(v.State)
	for _, queryID := range slices.Sorted(maps.Keys(v.State)) {
		q, err := decodeState(v.State[queryID])
		if err != nil {
			return views.ViewSearch{}, err
		}
		sc := dashboardScope
		if v.Type == views.Search {
			sc = savedScope(q.raw[searchKey])
		}
		query, err := q.query(queryID, sc)
		if err != nil {
			return views.ViewSearch{}, err
		}
		if state[queryID], err = q.encode(); err != nil {
			return views.ViewSearch{}, err
		}
		search.Queries = append(search.Queries, query)
	}
	v.State = state
	return search, nil
}

// searchQuery is a 4.0 search's query.
type searchQuery struct {
	ID          string          `json:"id"`
	Query       query           `json:"query"`
	TimeRange   json.RawMessage `json:"timerange"`
	Filter      any             `json:"filter"`
	SearchTypes []searchType    `json:"search_types"`
}

// searchType is a 4.0 search type (pivot or messages) in the form the web
// interface writes it, narrowed to its widget's range, query and streams.
type searchType map[string]any

// query returns the 4.0 query of the state entry queryID, one search type
// per widget, and sets the state's widget_mapping to them. A widget keeps
// the search type id it was mapped to, so that a 4.0 client's references
// stay valid across legacy edits.
func (q *queryState) query(queryID string, sc scope) (json.RawMessage, error) {
	mapping := map[string][]string{}
	_ = json.Unmarshal(q.raw["widget_mapping"], &mapping) // null or absent: none yet
	next := map[string][]string{}
	out := searchQuery{
		ID: queryID, Query: query{Type: "elasticsearch", QueryString: sc.QueryString}, TimeRange: sc.TimeRange,
		SearchTypes: []searchType{},
	}
	if len(sc.Streams) > 0 {
		fs := make([]map[string]string, 0, len(sc.Streams))
		for _, id := range sc.Streams {
			fs = append(fs, map[string]string{"type": "stream", "id": id})
		}
		out.Filter = map[string]any{"type": "or", "filters": fs}
	}
	for _, raw := range q.widgets {
		w := gjson.ParseBytes(raw)
		st, ok := searchTypeOf(w)
		if !ok {
			continue
		}
		ids := mapping[w.Get("id").Str]
		if len(ids) == 0 {
			ids = []string{newUUID()}
		}
		next[w.Get("id").Str] = ids[:1]
		st["id"] = ids[0]
		out.SearchTypes = append(out.SearchTypes, st)
	}
	b, err := api.Marshal(next)
	if err != nil {
		return nil, fmt.Errorf("encode widget mapping: %w", err)
	}
	q.raw["widget_mapping"] = b
	enc, err := api.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode search query: %w", err)
	}
	return enc, nil
}

// searchTypeOf is the search type that runs a 4.0 widget, as 4.0's
// interface derives it: a pivot for an aggregation, a message list for a
// messages widget. Other widgets have none.
func searchTypeOf(w gjson.Result) (searchType, bool) {
	c := w.Get("config")
	var st searchType
	switch w.Get("type").Str {
	case "aggregation":
		series := []map[string]string{}
		c.Get("series").ForEach(func(_, s gjson.Result) bool {
			fn := s.Get("function").Str
			name, field := splitSeries(fn)
			series = append(series, map[string]string{"type": name, "id": fn, "field": field})
			return true
		})
		rollup := c.Get("rollup")
		st = searchType{
			"type": "pivot", "name": "chart", "row_groups": groups(c.Get("row_pivots")),
			"column_groups": groups(c.Get("column_pivots")), "series": series, "sort": []any{},
			"rollup": !rollup.Exists() || rollup.Bool(),
		}
	case "messages":
		st = searchType{
			"type": "messages", "name": nil, "limit": 150, "offset": 0, "decorators": []any{},
			"sort": []map[string]string{{"field": "timestamp", "order": "DESC"}},
		}
	default:
		return nil, false
	}
	st["filter"] = nil
	st["timerange"], st["query"], st["streams"] = nil, nil, []string{}
	if tr := w.Get("timerange"); tr.IsObject() {
		st["timerange"] = json.RawMessage(tr.Raw)
	}
	if qs := w.Get("query"); qs.IsObject() {
		st["query"] = json.RawMessage(qs.Raw)
	}
	if ss := w.Get("streams"); ss.IsArray() {
		streams := []string{}
		for _, s := range ss.Array() {
			streams = append(streams, s.Str)
		}
		st["streams"] = streams
	}
	return st, true
}

// groups converts a widget's pivots to a search type's groups (Graylog's
// BucketSpec): the interval and limit move out of config, and a time unit
// interval is written as 4.0's search types write it ("1h").
func groups(pivots gjson.Result) []map[string]any {
	out := []map[string]any{}
	pivots.ForEach(func(_, p gjson.Result) bool {
		g := map[string]any{"type": p.Get("type").Str, "field": p.Get("field").Str}
		switch p.Get("type").Str {
		case "time":
			g["interval"] = searchInterval(p.Get("config.interval"))
		case "values":
			limit := p.Get("config.limit").Int()
			if limit <= 0 {
				limit = 15
			}
			g["limit"] = limit
		}
		out = append(out, g)
		return true
	})
	return out
}

// unitLetters are the units of a search type's time unit interval, by the
// names widgets give them; a year is twelve months.
var unitLetters = map[string]string{
	"seconds": "s", "minutes": "m", "hours": "h", "days": "d", "weeks": "w", "months": "M",
}

func searchInterval(iv gjson.Result) map[string]any {
	if iv.Get("type").Str == "timeunit" {
		n, unit := iv.Get("value").Int(), iv.Get("unit").Str
		if n <= 0 {
			n = 1
		}
		if unit == "years" {
			n, unit = 12*n, "months"
		}
		if letter, ok := unitLetters[unit]; ok {
			return map[string]any{"type": "timeunit", "timeunit": fmt.Sprintf("%d%s", n, letter)}
		}
	}
	scaling := iv.Get("scaling").Float()
	if scaling <= 0 {
		scaling = 1
	}
	return map[string]any{"type": "auto", "scaling": scaling}
}

// savedScope is what a legacy saved search's query object (the 3.x search
// page's state: query, rangeType with relative, from/to or keyword, and
// streamId) looks at. A range it cannot read is the last five minutes, the
// search page's default.
func savedScope(legacyQuery json.RawMessage) scope {
	lq := gjson.ParseBytes(legacyQuery)
	sc := scope{QueryString: lq.Get("query").Str, TimeRange: dashboardScope.TimeRange}
	if id := lq.Get("streamId").Str; id != "" {
		sc.Streams = []string{id}
	}
	flat, _ := api.Marshal(map[string]any{
		"range_type": lq.Get("rangeType").Str, "range": json.RawMessage(orNull(lq.Get("relative").Raw)),
		"from": lq.Get("from").Value(), "to": lq.Get("to").Value(), "keyword": lq.Get("keyword").Value(),
	})
	if tr, ok := timerange(gjson.ParseBytes(flat)); ok {
		sc.TimeRange = tr
	}
	return sc
}

func orNull(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "null"
	}
	return raw
}

// savedSearchWidgets are the widgets Graylog's migration gave a saved
// search: the message count over time and the message list with the
// fields the search showed.
func savedSearchWidgets(q *queryState, fields []string) error {
	if len(q.widgets) > 0 {
		// Made by a 4.0 client, or already there: the message lists show
		// the fields the search now shows.
		for i, w := range q.widgets {
			if fields == nil || gjson.GetBytes(w, "type").Str != "messages" {
				continue
			}
			b, err := sjson.SetBytes(w, "config.fields", fields)
			if err != nil {
				return fmt.Errorf("encode widget: %w", err)
			}
			q.widgets[i] = b
		}
		return nil
	}
	chart := viewWidget{
		ID: newUUID(), Type: "aggregation", Streams: []string{}, Query: query{Type: "elasticsearch"},
		Config: aggregation{
			RowPivots: []pivot{timePivot("")}, ColumnPivots: []pivot{}, Series: []series{seriesOf("count", "")},
			Sort: []any{}, Visualization: "bar", Rollup: true,
		},
	}
	if fields == nil {
		fields = []string{"timestamp", "source"}
	}
	list := map[string]any{
		"id": newUUID(), "type": "messages", "filter": nil, "timerange": nil, "query": nil, "streams": []string{},
		"config": map[string]any{
			"fields": fields, "show_message_row": true, "decorators": []any{},
			"sort": []map[string]string{{"type": "pivot", "field": "timestamp", "direction": "Descending"}},
		},
	}
	for _, w := range []any{chart, list} {
		b, err := api.Marshal(w)
		if err != nil {
			return fmt.Errorf("encode widget: %w", err)
		}
		q.widgets = append(q.widgets, b)
	}
	if q.titles["widget"] == nil {
		q.titles["widget"] = map[string]json.RawMessage{}
	}
	q.titles["widget"][chart.ID] = json.RawMessage(`"Message Count"`)
	q.titles["widget"][list["id"].(string)] = json.RawMessage(`"All Messages"`)
	q.positions[chart.ID] = json.RawMessage(`{"col":1,"row":1,"height":2,"width":"Infinity"}`)
	q.positions[list["id"].(string)] = json.RawMessage(`{"col":1,"row":3,"height":6,"width":"Infinity"}`)
	return nil
}
