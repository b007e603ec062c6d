package views

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// defaultID is the id of the document of ConfigCollection that names the
// default view (Graylog keeps it in its cluster configuration).
const defaultID = "default"

// Service stores views. Errors of missing views wrap store.ErrNotFound.
type Service struct {
	st  store.Store
	now func() time.Time
}

// NewService returns the view service on st; now stamps created_at.
func NewService(st store.Store, now func() time.Time) *Service {
	return &Service{st: st, now: now}
}

// Get returns a view by id.
func (s *Service) Get(ctx context.Context, id string) (View, error) {
	doc, err := s.st.Get(ctx, Collection, id)
	if err != nil {
		return View{}, fmt.Errorf("view %s: %w", id, err)
	}
	return decode(doc)
}

// Create stores a new view owned by owner, with the current time as
// created_at, under v's id or, when it has none, a new one; the owner and
// created_at of v are ignored. A view of that id existing already is
// store.ErrConflict: Graylog would replace it, which would hand the view of
// one user to another.
func (s *Service) Create(ctx context.Context, v View, owner string) (View, error) {
	if v.ID == "" {
		v.ID = primitive.NewObjectID().Hex()
	}
	v.Owner = nil
	if owner != "" {
		v.Owner = &owner
	}
	// Milliseconds, as the JSON has them, so the view returned now equals
	// the view read back later.
	v.CreatedAt = api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}
	doc, err := api.Marshal(v)
	if err != nil {
		return View{}, fmt.Errorf("encode view: %w", err)
	}
	if err := s.st.Insert(ctx, Collection, v.ID, doc); err != nil {
		return View{}, fmt.Errorf("create view %s: %w", v.ID, err)
	}
	return v, nil
}

// Update replaces the view with that id by v. The owner and created_at stay
// those of the stored view: ownership grants rights, so a client must not
// be able to hand it over by editing.
func (s *Service) Update(ctx context.Context, id string, v View) (View, error) {
	var out View
	err := s.st.Update(ctx, Collection, id, func(doc []byte) ([]byte, error) {
		old, err := decode(doc)
		if err != nil {
			return nil, err
		}
		out = v
		out.ID, out.Owner, out.CreatedAt = id, old.Owner, old.CreatedAt
		return api.Marshal(out)
	})
	if err != nil {
		return View{}, fmt.Errorf("update view %s: %w", id, err)
	}
	return out, nil
}

// Delete removes a view and returns it as it was.
func (s *Service) Delete(ctx context.Context, id string) (View, error) {
	v, err := s.Get(ctx, id)
	if err != nil {
		return View{}, err
	}
	if err := s.st.Delete(ctx, Collection, id); err != nil {
		return View{}, fmt.Errorf("delete view %s: %w", id, err)
	}
	return v, nil
}

// defaultDoc is the stored default view setting.
type defaultDoc struct {
	DefaultViewID string `json:"default_view_id"`
}

// SetDefault makes the view with that id the default view.
func (s *Service) SetDefault(ctx context.Context, id string) error {
	doc, err := api.Marshal(defaultDoc{DefaultViewID: id})
	if err != nil {
		return fmt.Errorf("encode default view: %w", err)
	}
	if err := s.st.Put(ctx, ConfigCollection, defaultID, doc); err != nil {
		return fmt.Errorf("set default view: %w", err)
	}
	return nil
}

// Default returns the default view. The error wraps store.ErrNotFound when
// none was set or the one set was deleted since.
func (s *Service) Default(ctx context.Context) (View, error) {
	doc, err := s.st.Get(ctx, ConfigCollection, defaultID)
	if err != nil {
		return View{}, fmt.Errorf("default view: %w", err)
	}
	var d defaultDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return View{}, fmt.Errorf("decode default view setting: %w", err)
	}
	return s.Get(ctx, d.DefaultViewID)
}

// Counts returns the number of dashboards and of saved searches, for the
// cluster statistics (dashboard_count).
func (s *Service) Counts(ctx context.Context) (dashboards, searches int, err error) {
	err = s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		switch Type(gjson.GetBytes(doc, "type").Str) {
		case Dashboard:
			dashboards++
		case Search:
			searches++
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("count views: %w", err)
	}
	return dashboards, searches, nil
}

// summary is what a listing needs of a stored view to filter and sort it,
// read without decoding the view's state; doc is the stored ViewDTO itself.
type summary struct {
	id, title, description, owner, createdAt string
	typ                                      Type
	doc                                      json.RawMessage
}

// summaries returns the stored views of one type ("" for all), in id order.
func (s *Service) summaries(ctx context.Context, typ Type) ([]summary, error) {
	var out []summary
	err := s.st.List(ctx, Collection, func(id string, doc []byte) error {
		sum := summaryOf(id, doc)
		if typ == "" || sum.typ == typ {
			out = append(out, sum)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list views: %w", err)
	}
	return out, nil
}

// summaryOf reads the summary of a stored view.
func summaryOf(id string, doc []byte) summary {
	f := gjson.GetManyBytes(doc, "type", "title", "description", "owner", "created_at")
	return summary{
		id: id, typ: Type(f[0].Str), title: f[1].Str, description: f[2].Str, owner: f[3].Str, createdAt: f[4].Str, doc: doc,
	}
}

func decode(doc []byte) (View, error) {
	var v View
	if err := json.Unmarshal(doc, &v); err != nil {
		return View{}, fmt.Errorf("decode view: %w", err)
	}
	// Views stored before widgets were completed on write.
	for q, raw := range v.State {
		v.State[q] = completeWidgets(raw)
	}
	return v, nil
}
