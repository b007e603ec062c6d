package events

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// searchRequest is Graylog's EventsSearchParameters; every property is
// optional.
type searchRequest struct {
	Page          *int            `json:"page"`
	PerPage       *int            `json:"per_page"`
	TimeRange     json.RawMessage `json:"timerange"`
	Query         *string         `json:"query"`
	Filter        *searchFilter   `json:"filter"`
	SortBy        *string         `json:"sort_by"`
	SortDirection *string         `json:"sort_direction"`
}

type searchFilter struct {
	Alerts           *string  `json:"alerts"`
	EventDefinitions []string `json:"event_definitions"`
}

// searchParameters echoes the request with Graylog's defaults filled in.
type searchParameters struct {
	Page          int             `json:"page"`
	PerPage       int             `json:"per_page"`
	TimeRange     json.RawMessage `json:"timerange"`
	Query         string          `json:"query"`
	Filter        searchFilter    `json:"filter"`
	SortBy        string          `json:"sort_by"`
	SortDirection string          `json:"sort_direction"`
}

// searchResponse is Graylog's EventsSearchResult.
type searchResponse struct {
	Events      []json.RawMessage `json:"events"`
	UsedIndices []string          `json:"used_indices"`
	Parameters  searchParameters  `json:"parameters"`
	TotalEvents int64             `json:"total_events"`
	Duration    int64             `json:"duration"`
	Context     searchContext     `json:"context"`
}

type searchContext struct {
	EventDefinitions map[string]any `json:"event_definitions"`
	Streams          map[string]any `json:"streams"`
}

// defaultRange is the last hour, Graylog's default of an event search.
var defaultRange = json.RawMessage(`{"type":"relative","range":3600}`)

func (h *Handler) search(w http.ResponseWriter, r *http.Request) error {
	if auth.FromContext(r.Context()) == nil {
		return auth.Unauthenticated()
	}
	started := h.now()
	var req searchRequest
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	params, err := req.parameters()
	if err != nil {
		return err
	}
	out := searchResponse{Events: []json.RawMessage{}, UsedIndices: []string{}, Parameters: params,
		Context: searchContext{EventDefinitions: map[string]any{}, Streams: map[string]any{}}}
	if h.events != nil {
		if out, err = h.find(r.Context(), params); err != nil {
			return err
		}
	}
	out.Duration = h.now().Sub(started).Milliseconds()
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

func errInvalidRange(err error) error {
	return api.Errorf(api.Invalid, "Invalid timerange: %v", err)
}

// parameters validates the request and fills in Graylog's defaults.
func (req searchRequest) parameters() (searchParameters, error) {
	p := searchParameters{Page: 1, PerPage: 10, TimeRange: defaultRange, SortBy: "timestamp", SortDirection: "desc",
		Filter: searchFilter{EventDefinitions: []string{}}}
	alerts := "include"
	if req.Page != nil {
		p.Page = *req.Page
	}
	if req.PerPage != nil {
		p.PerPage = *req.PerPage
	}
	if p.Page < 1 || p.PerPage < 1 {
		return p, api.Errorf(api.Invalid, "page and per_page must be greater than 0")
	}
	// Graylog's are Java ints: larger values are refused as it reads them.
	if p.Page > api.MaxInt32 || p.PerPage > api.MaxInt32 {
		return p, api.Errorf(api.Invalid, "page and per_page must be at most %d", api.MaxInt32)
	}
	if len(req.TimeRange) > 0 && string(req.TimeRange) != "null" {
		p.TimeRange = req.TimeRange
	}
	if req.Query != nil {
		p.Query = *req.Query
	}
	if req.SortBy != nil && *req.SortBy != "" {
		p.SortBy = *req.SortBy
	}
	if req.SortDirection != nil {
		switch d := strings.ToLower(*req.SortDirection); d {
		case "asc", "desc":
			p.SortDirection = d
		default:
			return p, api.Errorf(api.Invalid, "Invalid sort_direction %q; use asc or desc", *req.SortDirection)
		}
	}
	if f := req.Filter; f != nil {
		if f.Alerts != nil {
			alerts = strings.ToLower(*f.Alerts)
		}
		if f.EventDefinitions != nil {
			p.Filter.EventDefinitions = f.EventDefinitions
		}
	}
	switch alerts {
	case "include", "exclude", "only":
	default:
		return p, api.Errorf(api.Invalid, "Invalid filter.alerts %q; use include, exclude or only", alerts)
	}
	p.Filter.Alerts = &alerts
	return p, nil
}
