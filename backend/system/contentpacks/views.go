package contentpacks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// The view entity types: dashboards (version 2, Graylog 4.0's views; the
// version 1 of 3.x dashboards is DashboardV1) and saved searches.
var (
	DashboardV2 = ModelType{Name: "dashboard", Version: "2"}
	SearchV1    = ModelType{Name: "search", Version: "1"}
)

// Views is what content packs need of the dashboards and saved searches.
type Views interface {
	Get(ctx context.Context, id string) (views.View, error)
	Create(ctx context.Context, v views.View, owner string) (views.View, error)
	Delete(ctx context.Context, id string) (views.View, error)
	Owned(ctx context.Context) ([]views.Owned, error)
}

// ViewSearches is what content packs need of the searches views show.
type ViewSearches interface {
	Get(ctx context.Context, id string) (views.ViewSearch, error)
	Save(ctx context.Context, s views.ViewSearch, owner string) (views.ViewSearch, error)
	DeleteUnlessShown(ctx context.Context, id string) error
}

// viewFacade is Graylog's ViewFacade, as its DashboardFacade (typ
// DASHBOARD) or SearchFacade (typ SEARCH).
type viewFacade struct {
	v   Views
	s   ViewSearches
	mt  ModelType
	typ views.Type
}

// viewData is Graylog's ViewEntity: the view with its search, whose
// stream ids are the ids of pack entities.
type viewData struct {
	Type        views.Type                 `json:"type"`
	Title       *ValueRef                  `json:"title"`
	Summary     *ValueRef                  `json:"summary"`
	Description *ValueRef                  `json:"description"`
	Search      *searchData                `json:"search"`
	Properties  []string                   `json:"properties"`
	Requires    map[string]json.RawMessage `json:"requires"`
	State       map[string]json.RawMessage `json:"state"`
	Owner       *string                    `json:"owner"`
	CreatedAt   json.RawMessage            `json:"created_at"`
}

// searchData is Graylog's SearchEntity: queries (QueryEntity, with their
// SearchTypeEntity list) as the search has them, but for stream ids.
type searchData struct {
	Queries    []json.RawMessage          `json:"queries"`
	Parameters []json.RawMessage          `json:"parameters"`
	Requires   map[string]json.RawMessage `json:"requires"`
	Owner      *string                    `json:"owner"`
	CreatedAt  json.RawMessage            `json:"created_at"`
}

// existing finds nothing: Graylog always creates a view.
func (f viewFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil
}

// create stores the search, then the view showing it, both owned by the
// installing user (Graylog's ViewFacade.decode saves the view with the
// user as owner), checked as POST /views/search and POST /views check
// them.
func (f viewFacade) create(ctx context.Context, data json.RawMessage, p install, user string) (native, error) {
	var d viewData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	switch d.Type {
	case "":
		d.Type = f.typ
	case f.typ:
	default:
		// A dashboard created under the name of a saved search would
		// escape the permission creating a dashboard needs.
		return native{}, fmt.Errorf("a %s entity holds a view of type %s, not %s", f.mt.Name, d.Type, f.typ)
	}
	if d.Search == nil {
		return native{}, errors.New("the view has no search")
	}
	title, err := p.str(d.Title, "title", "")
	if err != nil {
		return native{}, err
	}
	summary, err := p.str(d.Summary, "summary", "")
	if err != nil {
		return native{}, err
	}
	desc, err := p.str(d.Description, "description", "")
	if err != nil {
		return native{}, err
	}
	stream := p.stream
	queries := make([]json.RawMessage, len(d.Search.Queries))
	for i, q := range d.Search.Queries {
		if queries[i], err = mapQuery(q, stream); err != nil {
			return native{}, err
		}
	}
	state := make(map[string]json.RawMessage, len(d.State))
	for q, st := range d.State {
		if state[q], err = mapWidgets(st, stream, false); err != nil {
			return native{}, err
		}
	}
	body, err := json.Marshal(map[string]any{
		"queries": queries, "parameters": nonNil(d.Search.Parameters), "requires": d.Search.Requires,
	})
	if err != nil {
		return native{}, err
	}
	search, err := views.ParseSearch(body)
	if err != nil {
		return native{}, fmt.Errorf("search: %w", err)
	}
	if body, err = json.Marshal(map[string]any{
		"type": d.Type, "title": title, "summary": summary, "description": desc, "search_id": search.ID,
		"properties": nonNil(d.Properties), "requires": d.Requires, "state": state,
	}); err != nil {
		return native{}, err
	}
	view, err := views.ParseView(body)
	if err != nil {
		return native{}, err
	}
	return f.store(ctx, view, search, user)
}

func nonNil[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// view returns a stored view of the facade's type: another type is none.
func (f viewFacade) view(ctx context.Context, id string) (views.View, error) {
	v, err := f.v.Get(ctx, id)
	if err == nil && v.Type != f.typ || errors.Is(err, store.ErrNotFound) {
		return views.View{}, api.Errorf(api.NotFound, "Couldn't find %s %s", f.mt.Name, id)
	}
	return v, err
}

func (f viewFacade) exists(ctx context.Context, id string) bool {
	_, err := f.view(ctx, id)
	return err == nil
}

// remove deletes the view, then its search unless another view shows it.
func (f viewFacade) remove(ctx context.Context, id string) error {
	v, err := f.view(ctx, id)
	if err != nil {
		return err
	}
	if _, err := f.v.Delete(ctx, id); err != nil {
		return err
	}
	return f.s.DeleteUnlessShown(ctx, v.SearchID)
}

func (f viewFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.v.Owned(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, v := range all {
		if v.Type == f.typ {
			out = append(out, Excerpt{ID: v.ID, Type: f.mt, Title: v.Title})
		}
	}
	return out, nil
}

// readable is who may read a view: its owner and the holders of its read
// permissions, as GET /views/{id} decides. A view missing is judged by the
// permissions alone, as the views' handlers judge it.
func (f viewFacade) readable(ctx context.Context, p *auth.Principal, id string) bool {
	v, err := f.view(ctx, id)
	if err != nil {
		return views.Readable(p, id, f.typ, "")
	}
	return views.Readable(p, v.ID, v.Type, str(v.Owner))
}

// dependencies are the streams the view's search reads (Graylog's
// resolveNativeEntity): its queries' stream filters and its search types'
// streams.
func (f viewFacade) dependencies(ctx context.Context, id string) ([]Descriptor, error) {
	_, s, err := f.withSearch(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Descriptor
	for _, st := range views.UsedStreams(s) {
		out = append(out, Descriptor{ID: st, Type: StreamV1})
	}
	return out, nil
}

func (f viewFacade) withSearch(ctx context.Context, id string) (views.View, views.ViewSearch, error) {
	v, err := f.view(ctx, id)
	if err != nil {
		return v, views.ViewSearch{}, err
	}
	s, err := f.s.Get(ctx, v.SearchID)
	if errors.Is(err, store.ErrNotFound) {
		return v, s, api.Errorf(api.Invalid, "Search is missing in view %s", v.SearchID)
	}
	return v, s, err
}

// export is the view with its search, masking nothing; its streams are
// the entity ids of the streams exported with it. A widget's stream not
// exported is left out, as Graylog's WidgetDTO leaves it.
func (f viewFacade) export(ctx context.Context, id string, ids exportIDs) (any, error) {
	v, s, err := f.withSearch(ctx, id)
	if err != nil {
		return nil, err
	}
	stream := func(id string) (string, bool) {
		eid, ok := ids[Descriptor{ID: id, Type: StreamV1}]
		return eid, ok
	}
	sd := &searchData{Queries: make([]json.RawMessage, len(s.Queries)), Parameters: nonNil(s.Parameters), Requires: s.Requires, Owner: s.Owner}
	for i, q := range s.Queries {
		if sd.Queries[i], err = mapQuery(q, stream); err != nil {
			return nil, err
		}
	}
	if sd.CreatedAt, err = json.Marshal(s.CreatedAt); err != nil {
		return nil, err
	}
	d := viewData{
		Type: v.Type, Title: ref(v.Title), Summary: ref(v.Summary), Description: ref(v.Description), Search: sd,
		Properties: nonNil(v.Properties), Requires: v.Requires, State: map[string]json.RawMessage{}, Owner: v.Owner,
	}
	if d.Requires == nil {
		d.Requires = map[string]json.RawMessage{}
	}
	if sd.Requires == nil {
		sd.Requires = map[string]json.RawMessage{}
	}
	for q, st := range v.State {
		if d.State[q], err = mapWidgets(st, stream, true); err != nil {
			return nil, err
		}
	}
	if d.CreatedAt, err = json.Marshal(v.CreatedAt); err != nil {
		return nil, err
	}
	return d, nil
}

// decodeTree decodes JSON into maps and slices, numbers kept exact.
func decodeTree(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid entity data: %w", err)
	}
	return v, nil
}

// mapStreamList maps the stream ids of a "streams" list in place; drop
// leaves out those m does not know, else they are an error.
func mapStreamList(obj map[string]any, m func(string) (string, bool), drop bool, what string) error {
	l, ok := obj["streams"].([]any)
	if !ok {
		return nil
	}
	out := make([]any, 0, len(l))
	for _, e := range l {
		id, ok := e.(string)
		if !ok {
			return fmt.Errorf("%s: the streams are stream ids", what)
		}
		mapped, ok := m(id)
		switch {
		case ok:
			out = append(out, mapped)
		case !drop:
			return fmt.Errorf("missing stream %s for the %s", id, what)
		}
	}
	obj["streams"] = out
	return nil
}

// mapFilter maps the ids of the stream filters of a filter tree in place.
func mapFilter(f any, m func(string) (string, bool)) error {
	obj, ok := f.(map[string]any)
	if !ok {
		return nil
	}
	if obj["type"] == "stream" {
		if id, ok := obj["id"].(string); ok {
			mapped, ok := m(id)
			if !ok {
				return fmt.Errorf("missing stream %s for the query's filter", id)
			}
			obj["id"] = mapped
		}
	}
	subs, _ := obj["filters"].([]any)
	for _, sub := range subs {
		if err := mapFilter(sub, m); err != nil {
			return err
		}
	}
	return nil
}

// mapQuery maps the streams of a query: its filter's and its search
// types'.
func mapQuery(raw json.RawMessage, m func(string) (string, bool)) (json.RawMessage, error) {
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, err
	}
	q, ok := tree.(map[string]any)
	if !ok {
		return raw, nil // left to the search's own checks
	}
	if err := mapFilter(q["filter"], m); err != nil {
		return nil, err
	}
	sts, _ := q["search_types"].([]any)
	for _, st := range sts {
		if obj, ok := st.(map[string]any); ok {
			if err := mapStreamList(obj, m, false, "search type"); err != nil {
				return nil, err
			}
		}
	}
	return json.Marshal(q)
}

// mapWidgets maps the streams of the widgets of a view state entry.
func mapWidgets(raw json.RawMessage, m func(string) (string, bool), drop bool) (json.RawMessage, error) {
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, err
	}
	st, ok := tree.(map[string]any)
	if !ok {
		return raw, nil // left to the view's own checks
	}
	ws, _ := st["widgets"].([]any)
	for _, w := range ws {
		if obj, ok := w.(map[string]any); ok {
			if err := mapStreamList(obj, m, drop, "widget"); err != nil {
				return nil, err
			}
		}
	}
	return json.Marshal(st)
}
