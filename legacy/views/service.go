package views

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Views is what the service needs of the 4.0 views service
// (*views.Service).
type Views interface {
	Get(ctx context.Context, id string) (views.View, error)
	Create(ctx context.Context, v views.View, owner string) (views.View, error)
	Update(ctx context.Context, id string, v views.View) (views.View, error)
	Delete(ctx context.Context, id string) (views.View, error)
}

// Lister lists a store collection (store.Store): the views service has no
// listing of whole views, and legacy lists show every dashboard in full.
type Lister interface {
	List(ctx context.Context, coll string, fn func(id string, doc []byte) error) error
}

// WidgetValues computes a widget's value (its count, chart, …) by running
// its search.
type WidgetValues interface {
	Value(ctx context.Context, w Widget) (json.RawMessage, error)
}

// Summaries of the views that stand for what old clients create. Graylog's
// migration wrote "This dashboard was migrated automatically." on the
// dashboards it converted; these were never migrated, so they say where
// they come from.
const (
	DashboardSummary   = "This dashboard was created through the legacy dashboards API."
	SavedSearchSummary = "This search was created through the legacy saved searches API."
)

// Service speaks Graylog's legacy dashboards and saved searches on top of
// the 4.0 views. It checks 3.x's permissions itself (dashboards:read:<id>,
// dashboards:create, dashboards:edit:<id>, savedsearches:read:<id>,
// savedsearches:create, savedsearches:edit:<id>); as in 4.0, a view's owner
// and view:* permissions also pass.
type Service struct {
	views    Views
	list     Lister
	searches Searches
	values   WidgetValues

	// mu serialises this node's read-modify-write of views: the views
	// service replaces whole views, and two widgets added at once must
	// not lose one.
	mu sync.Mutex
}

// New returns the service; the views it writes name searches it keeps in
// searches. values may be nil while the server has no message search:
// widget values then answer 503.
func New(v Views, list Lister, searches Searches, values WidgetValues) *Service {
	return &Service{views: v, list: list, searches: searches, values: values}
}

// Dashboards returns the legacy dashboards the caller may read: the
// DASHBOARD views, oldest first.
func (s *Service) Dashboards(ctx context.Context) (DashboardList, error) {
	ds, err := readable(ctx, s, views.Dashboard, canReadDashboard, dashboardOf)
	return DashboardList{Dashboards: ds, Total: len(ds)}, err
}

// readable returns the views of typ the caller may read (can), oldest
// first, in their legacy form (conv).
func readable[T any](ctx context.Context, s *Service, typ views.Type, can func(*auth.Principal, views.View) bool,
	conv func(views.View) (T, error)) ([]T, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return []T{}, auth.Unauthenticated()
	}
	out := []T{}
	err := s.eachView(ctx, typ, func(v views.View) error {
		if !can(p, v) {
			return nil
		}
		t, err := conv(v)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// Dashboard returns one legacy dashboard.
func (s *Service) Dashboard(ctx context.Context, id string) (Dashboard, error) {
	v, err := s.dashboard(ctx, id, canReadDashboard, "dashboards:read:")
	if err != nil {
		return Dashboard{}, err
	}
	return dashboardOf(v)
}

// CreateDashboard stores a new dashboard as a DASHBOARD view owned by the
// caller and returns its id.
func (s *Service) CreateDashboard(ctx context.Context, req DashboardRequest) (string, error) {
	p := auth.FromContext(ctx)
	if err := auth.Require(ctx, "dashboards:create"); err != nil {
		return "", err
	}
	if req.Title == nil {
		return "", api.Invalidf("title", "must not be blank")
	}
	state, err := newQueryState().encode()
	if err != nil {
		return "", err
	}
	v := views.View{
		Type: views.Dashboard, Title: *req.Title, Summary: DashboardSummary, Description: deref(req.Description),
		SearchID: primitive.NewObjectID().Hex(), Properties: []string{}, Requires: map[string]json.RawMessage{},
		State: map[string]json.RawMessage{newUUID(): state},
	}
	return s.create(ctx, v, p.Username)
}

// create stores a new view with its search and returns its id.
func (s *Service) create(ctx context.Context, v views.View, owner string) (string, error) {
	if err := s.writeSearch(ctx, &v, owner); err != nil {
		return "", err
	}
	created, err := s.views.Create(ctx, v, owner)
	if err != nil {
		return "", err
	}
	return created.ID, nil
}

// UpdateDashboard changes a dashboard's title and description.
func (s *Service) UpdateDashboard(ctx context.Context, id string, req DashboardRequest) error {
	return s.edit(ctx, id, func(v *views.View, _ *queryState) error {
		if req.Title != nil {
			v.Title = *req.Title
		}
		if req.Description != nil {
			v.Description = *req.Description
		}
		return nil
	})
}

// DeleteDashboard deletes a dashboard, which needs dashboards:edit:<id> in
// 3.x (or, as for any view in 4.0, view:delete:<id>).
func (s *Service) DeleteDashboard(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.dashboard(ctx, id, canDeleteDashboard, "dashboards:edit:")
	if err != nil {
		return err
	}
	return s.delete(ctx, v, dashboardNotFound)
}

// delete deletes a view and its search.
func (s *Service) delete(ctx context.Context, v views.View, notFound func(string) error) error {
	_, err := s.views.Delete(ctx, v.ID)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(v.ID)
	}
	if err != nil {
		return err
	}
	return s.deleteSearch(ctx, v)
}

// SetPositions replaces the positions of a dashboard's widgets.
func (s *Service) SetPositions(ctx context.Context, id string, positions []PositionUpdate) error {
	return s.edit(ctx, id, func(_ *views.View, q *queryState) error {
		q.positions = make(map[string]json.RawMessage, len(positions))
		for _, p := range positions {
			b, err := api.Marshal(viewPosition{Col: p.Col, Row: p.Row, Height: p.Height, Width: p.Width})
			if err != nil {
				return fmt.Errorf("encode position: %w", err)
			}
			q.positions[p.ID] = b
		}
		return nil
	})
}

// viewPosition is a 4.0 WidgetPositionDTO.
type viewPosition struct {
	Col    int `json:"col"`
	Row    int `json:"row"`
	Height int `json:"height"`
	Width  int `json:"width"`
}

// dashboard loads a DASHBOARD view for an action allowed decides. As in
// Graylog, the permission is checked before the lookup: a caller without
// it gets 403 whether or not the dashboard exists.
func (s *Service) dashboard(ctx context.Context, id string, allowed func(*auth.Principal, views.View) bool, perm string) (views.View, error) {
	return s.load(ctx, id, views.Dashboard, dashboardNotFound, allowed, perm)
}

// load loads a view of type typ for an action allowed decides; a missing
// view, or one of another type, is notFound to a caller holding perm+id
// and 403 to anyone else.
func (s *Service) load(ctx context.Context, id string, typ views.Type, notFound func(string) error,
	allowed func(*auth.Principal, views.View) bool, perm string) (views.View, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return views.View{}, auth.Unauthenticated()
	}
	v, err := s.views.Get(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && v.Type != typ:
		if p.Permits(perm + id) {
			return views.View{}, notFound(id)
		}
		return views.View{}, notAuthorized(id)
	case err != nil:
		return views.View{}, err
	case !allowed(p, v):
		return views.View{}, notAuthorized(id)
	}
	return v, nil
}

// edit changes a dashboard the caller may edit, in its first query's state
// (a new one for a view that has none).
func (s *Service) edit(ctx context.Context, id string, change func(v *views.View, q *queryState) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.dashboard(ctx, id, canEditDashboard, "dashboards:edit:")
	if err != nil {
		return err
	}
	queryID, q, err := firstQuery(v)
	if err != nil {
		return err
	}
	if err := change(&v, q); err != nil {
		return err
	}
	return s.save(ctx, v, queryID, q)
}

func (s *Service) save(ctx context.Context, v views.View, queryID string, q *queryState) error {
	raw, err := q.encode()
	if err != nil {
		return err
	}
	v.State = maps.Clone(v.State)
	if v.State == nil {
		v.State = map[string]json.RawMessage{}
	}
	v.State[queryID] = raw
	if err := s.writeSearch(ctx, &v, ownerOf(v)); err != nil {
		return err
	}
	_, err = s.views.Update(ctx, v.ID, v)
	if errors.Is(err, store.ErrNotFound) {
		return dashboardNotFound(v.ID) // deleted meanwhile
	}
	return err
}

// firstQuery opens the state of a view's first query in id order.
func firstQuery(v views.View) (string, *queryState, error) {
	if len(v.State) == 0 {
		return newUUID(), newQueryState(), nil
	}
	id := slices.Min(slices.Collect(maps.Keys(v.State)))
	q, err := decodeState(v.State[id])
	return id, q, err
}

// dashboardOf is the legacy form of a DASHBOARD view: the widgets and
// positions of all its queries, in query id order.
func dashboardOf(v views.View) (Dashboard, error) {
	owner := ownerOf(v)
	d := Dashboard{
		ID: v.ID, Title: v.Title, Description: v.Description, CreatedAt: v.CreatedAt, CreatorUserID: v.Owner,
		Widgets: []Widget{}, Positions: map[string]Position{},
	}
	for _, queryID := range slices.Sorted(maps.Keys(v.State)) {
		q, err := decodeState(v.State[queryID])
		if err != nil {
			return Dashboard{}, fmt.Errorf("dashboard %s: %w", v.ID, err)
		}
		for i := range q.widgets {
			d.Widgets = append(d.Widgets, q.widget(i, owner))
		}
		for id, raw := range q.positions {
			var p viewPosition
			// 4.0 widths may be "Infinity"; the legacy grid has no such
			// width, and the widget then keeps its default size.
			_ = json.Unmarshal(raw, &p)
			d.Positions[id] = Position{Width: p.Width, Height: p.Height, Col: p.Col, Row: p.Row}
		}
	}
	return d, nil
}

// eachView calls fn with every view of a type, in id order.
func (s *Service) eachView(ctx context.Context, typ views.Type, fn func(views.View) error) error {
	err := s.list.List(ctx, views.Collection, func(_ string, doc []byte) error {
		var v views.View
		if err := json.Unmarshal(doc, &v); err != nil {
			return fmt.Errorf("decode view: %w", err)
		}
		if v.Type != typ {
			return nil
		}
		return fn(v)
	})
	if err != nil {
		return fmt.Errorf("list views: %w", err)
	}
	return nil
}

func dashboardNotFound(id string) error {
	return api.Errorf(api.NotFound, "Couldn't find dashboard with ID %s", id)
}

func notAuthorized(id string) error {
	return api.Errorf(api.Forbidden, "Not authorized to access resource id %s", id)
}

func ownerOf(v views.View) string {
	return deref(v.Owner)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// newUUID returns a random (version 4) UUID: legacy widget ids and view
// query ids are UUIDs in Graylog.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
