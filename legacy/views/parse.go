package views

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/router/api"
)

// Request bodies are decoded leniently: Graylog 2.x and 3.x ignored
// properties they did not know, and old web interfaces send back what they
// read (an id, created_at) with their edits.
const strict = false

// DashboardRequest is the body of POST and PUT /dashboards[/{id}]
// (CreateDashboardRequest, UpdateDashboardRequest). A nil field is left as
// it is on update.
type DashboardRequest struct {
	Title       *string `json:"title"`
	Description *string `json:"description"`
}

// ParseDashboard reads a dashboard body. Creating needs a title; an update
// may leave it out but not blank it.
func ParseDashboard(body []byte, create bool) (DashboardRequest, error) {
	var req DashboardRequest
	if err := api.DecodeBytes(body, &req, strict); err != nil {
		return DashboardRequest{}, err
	}
	if (create || req.Title != nil) && (req.Title == nil || strings.TrimSpace(*req.Title) == "") {
		return DashboardRequest{}, api.Invalidf("title", "must not be blank")
	}
	return req, nil
}

// WidgetTypes are the widget types of Graylog 3.0 (WidgetStrategyBindings)
// and the world map of its bundled map plugin.
var WidgetTypes = []string{
	"FIELD_CHART", "QUICKVALUES", "QUICKVALUES_HISTOGRAM", "SEARCH_RESULT_CHART",
	"SEARCH_RESULT_COUNT", "STACKED_CHART", "STATS_COUNT", "STREAM_SEARCH_RESULT_COUNT",
	MapWidget,
}

// MapWidget is the type of the world map widget of Graylog 3.x's map
// plugin.
const MapWidget = "org.graylog.plugins.map.widget.strategy.MapWidgetStrategy"

// WidgetRequest is the body of POST and PUT …/widgets[/{widgetId}]
// (AddWidgetRequest, UpdateWidgetRequest), checked.
type WidgetRequest struct {
	Description string
	Type        string
	CacheTime   int
	Config      json.RawMessage
	// timerange is the config's time range in the 4.0 form.
	timerange json.RawMessage
}

type widgetBody struct {
	Description *string         `json:"description"`
	Type        *string         `json:"type"`
	CacheTime   *int            `json:"cache_time"`
	Config      json.RawMessage `json:"config"`
}

// ParseWidget reads a widget body. An unknown type and a configuration
// without a usable time range are refused with Graylog's messages.
func ParseWidget(body []byte) (WidgetRequest, error) {
	var b widgetBody
	if err := api.DecodeBytes(body, &b, strict); err != nil {
		return WidgetRequest{}, err
	}
	verr := &api.ValidationError{}
	if b.Type == nil || strings.TrimSpace(*b.Type) == "" {
		verr.Add("type", "must not be blank")
	}
	if b.CacheTime != nil && *b.CacheTime < 0 {
		verr.Add("cache_time", "must be greater than or equal to 0")
	}
	cfg := bytes.TrimSpace(b.Config)
	if len(cfg) == 0 || bytes.Equal(cfg, []byte("null")) {
		verr.Add("config", "must not be null")
	} else if cfg[0] != '{' {
		verr.Add("config", "must be an object")
	}
	if err := verr.Err(); err != nil {
		return WidgetRequest{}, err
	}
	req := WidgetRequest{Type: *b.Type, Config: cfg}
	if b.Description != nil {
		req.Description = *b.Description
	}
	if b.CacheTime != nil {
		req.CacheTime = *b.CacheTime
	}
	if !knownType(req.Type) {
		return WidgetRequest{}, api.Errorf(api.Invalid, "No such widget type.")
	}
	tr, ok := timerange(gjson.ParseBytes(cfg))
	if !ok {
		return WidgetRequest{}, api.Errorf(api.Invalid, "Invalid timerange parameters provided.")
	}
	req.timerange = tr
	return req, nil
}

func knownType(t string) bool {
	for _, known := range WidgetTypes {
		if strings.EqualFold(t, known) {
			return true
		}
	}
	return false
}

// timerange returns a widget configuration's time range in the form 4.0
// views use ({"type":"relative","range":300}, …): from config.timerange, or
// from the flat range_type/range/from/to/keyword keys of older clients.
func timerange(cfg gjson.Result) (json.RawMessage, bool) {
	tr := cfg.Get("timerange")
	typ := tr.Get("type").Str
	if !tr.IsObject() {
		tr, typ = cfg, cfg.Get("range_type").Str
	}
	var out any
	switch typ {
	case "relative":
		n, ok := seconds(tr.Get("range"))
		if !ok {
			return nil, false
		}
		out = struct {
			Type  string `json:"type"`
			Range int64  `json:"range"`
		}{typ, n}
	case "absolute":
		from, to := tr.Get("from"), tr.Get("to")
		if !validTime(from) || !validTime(to) {
			return nil, false
		}
		out = struct {
			Type string `json:"type"`
			From string `json:"from"`
			To   string `json:"to"`
		}{typ, from.Str, to.Str}
	case "keyword":
		kw := tr.Get("keyword")
		if kw.Type != gjson.String || strings.TrimSpace(kw.Str) == "" {
			return nil, false
		}
		out = struct {
			Type    string `json:"type"`
			Keyword string `json:"keyword"`
		}{typ, kw.Str}
	default:
		return nil, false
	}
	b, err := api.Marshal(out)
	return b, err == nil
}

// seconds reads a relative range, a whole number of seconds that old
// clients sent as a number or a string.
func seconds(v gjson.Result) (int64, bool) {
	var s string
	switch v.Type {
	case gjson.Number:
		s = v.Raw
	case gjson.String:
		s = v.Str
	default:
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0
}

func validTime(v gjson.Result) bool {
	if v.Type != gjson.String {
		return false
	}
	var t api.Time
	return t.UnmarshalJSON([]byte(strconv.Quote(v.Str))) == nil && !t.IsZero()
}

// PositionUpdate is one entry of PUT /dashboards/{id}/positions.
type PositionUpdate struct {
	ID string `json:"id"`
	Position
}

// ParsePositions reads {"positions":[{"id","col","row","height","width"}]}.
func ParsePositions(body []byte) ([]PositionUpdate, error) {
	var b struct {
		Positions *[]PositionUpdate `json:"positions"`
	}
	if err := api.DecodeBytes(body, &b, strict); err != nil {
		return nil, err
	}
	if b.Positions == nil {
		return nil, api.Invalidf("positions", "must not be null")
	}
	verr := &api.ValidationError{}
	for i, p := range *b.Positions {
		if strings.TrimSpace(p.ID) == "" {
			verr.Add("positions", "entry %d: id must not be blank", i)
		}
	}
	if err := verr.Err(); err != nil {
		return nil, err
	}
	return *b.Positions, nil
}

// ParseDescription reads {"description": "…"} of PUT …/description.
func ParseDescription(body []byte) (string, error) {
	var b struct {
		Description *string `json:"description"`
	}
	if err := api.DecodeBytes(body, &b, strict); err != nil {
		return "", err
	}
	if b.Description == nil {
		return "", api.Invalidf("description", "must not be null")
	}
	return *b.Description, nil
}

// ParseCacheTime reads {"cache_time": n} of PUT …/cachetime.
func ParseCacheTime(body []byte) (int, error) {
	var b struct {
		CacheTime *int `json:"cache_time"`
	}
	if err := api.DecodeBytes(body, &b, strict); err != nil {
		return 0, err
	}
	switch {
	case b.CacheTime == nil:
		return 0, api.Invalidf("cache_time", "must not be null")
	case *b.CacheTime < 0:
		return 0, api.Invalidf("cache_time", "must be greater than or equal to 0")
	}
	return *b.CacheTime, nil
}

// SavedSearchRequest is the body of POST and PUT /search/saved[/{id}]
// (CreateSavedSearchRequest).
type SavedSearchRequest struct {
	Title string
	Query json.RawMessage
}

// ParseSavedSearch reads a saved search body: a title and the query object.
func ParseSavedSearch(body []byte) (SavedSearchRequest, error) {
	var b struct {
		Title *string         `json:"title"`
		Query json.RawMessage `json:"query"`
	}
	if err := api.DecodeBytes(body, &b, strict); err != nil {
		return SavedSearchRequest{}, err
	}
	verr := &api.ValidationError{}
	if b.Title == nil || strings.TrimSpace(*b.Title) == "" {
		verr.Add("title", "must not be blank")
	}
	q := bytes.TrimSpace(b.Query)
	if len(q) == 0 || q[0] != '{' {
		verr.Add("query", "must be an object")
	}
	if err := verr.Err(); err != nil {
		return SavedSearchRequest{}, err
	}
	return SavedSearchRequest{Title: *b.Title, Query: q}, nil
}
