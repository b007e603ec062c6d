package views

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// request is the ViewDTO as a client sends it. Pointers tell a missing or
// null property from an empty one. id, owner and created_at are read because
// clients send back the DTO they were given, but the server decides them.
type request struct {
	ID          *string                    `json:"id"`
	Type        *string                    `json:"type"`
	Title       *string                    `json:"title"`
	Summary     *string                    `json:"summary"`
	Description *string                    `json:"description"`
	SearchID    *string                    `json:"search_id"`
	Properties  []*string                  `json:"properties"`
	Requires    map[string]json.RawMessage `json:"requires"`
	State       map[string]json.RawMessage `json:"state"`
	Owner       *string                    `json:"owner"`
	CreatedAt   *api.Time                  `json:"created_at"`
}

// decodeView reads and validates a ViewDTO body. Unknown top-level
// properties are refused, as Graylog's ViewDTO refuses them; every failure is
// a 400.
func decodeView(body []byte) (View, error) {
	var req request
	if err := api.DecodeBytes(body, &req, true); err != nil {
		return View{}, err
	}
	return req.view()
}

// view validates the request and returns the view it describes, collecting
// every failure so that a client sees them all at once.
func (req *request) view() (View, error) {
	verr := &api.ValidationError{}
	v := View{
		Summary:     deref(req.Summary),
		Description: deref(req.Description),
		Properties:  []string{},
		Requires:    map[string]json.RawMessage{},
		State:       map[string]json.RawMessage{},
	}
	switch {
	case req.Type == nil:
		verr.Add("type", "Missing view type; use SEARCH or DASHBOARD")
	case *req.Type == string(Search) || *req.Type == string(Dashboard):
		v.Type = Type(*req.Type)
	default:
		verr.Add("type", "Invalid view type %q; use SEARCH or DASHBOARD", *req.Type)
	}
	if v.Title = deref(req.Title); strings.TrimSpace(v.Title) == "" {
		verr.Add("title", "must not be blank")
	}
	if v.SearchID = deref(req.SearchID); strings.TrimSpace(v.SearchID) == "" {
		verr.Add("search_id", "must not be empty; give the id of the search the view shows")
	}
	// A set, as Graylog's ImmutableSet: duplicates collapse, order stays.
	seen := make(map[string]bool, len(req.Properties))
	for _, p := range req.Properties {
		switch {
		case p == nil:
			verr.Add("properties", "must not contain null")
		case !seen[*p]:
			seen[*p] = true
			v.Properties = append(v.Properties, *p)
		}
	}
	// Sorted, so that failures are listed in a stable order.
	for _, name := range slices.Sorted(maps.Keys(req.Requires)) {
		raw := req.Requires[name]
		if !isObject(raw) {
			verr.Add("requires", "Requirement %q must be an object describing the plugin", name)
			continue
		}
		v.Requires[name] = raw
	}
	for _, queryID := range slices.Sorted(maps.Keys(req.State)) {
		if raw := req.State[queryID]; checkState(verr, queryID, raw) {
			v.State[queryID] = completeWidgets(raw)
		}
	}
	if err := verr.Err(); err != nil {
		return View{}, err
	}
	return v, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// isObject reports whether raw, a valid JSON value, is an object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// ParseView reads and validates a ViewDTO as POST /views does, for views
// created from elsewhere (content packs): the id, owner and created_at it
// names are ignored.
func ParseView(body []byte) (View, error) { return decodeView(body) }
