package views

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/router/api"
)

// AddWidget adds a widget to a dashboard and returns its new id. The
// caller becomes its creator.
func (s *Service) AddWidget(ctx context.Context, id string, req WidgetRequest) (string, error) {
	w := Widget{ID: newUUID(), Type: req.Type, Description: req.Description, CacheTime: req.CacheTime, Config: req.Config}
	err := s.edit(ctx, id, func(_ *views.View, q *queryState) error {
		// edit has checked that there is a caller.
		w.CreatorUserID = auth.FromContext(ctx).Username
		return q.put(w, req.timerange)
	})
	if err != nil {
		return "", err
	}
	return w.ID, nil
}

// Widget returns one widget of a dashboard.
func (s *Service) Widget(ctx context.Context, id, widgetID string) (Widget, error) {
	d, err := s.Dashboard(ctx, id)
	if err != nil {
		return Widget{}, err
	}
	for _, w := range d.Widgets {
		if w.ID == widgetID {
			return w, nil
		}
	}
	return Widget{}, widgetNotFound(id, widgetID)
}

// WidgetValue computes a widget's value; without a message search it is a
// 503.
func (s *Service) WidgetValue(ctx context.Context, id, widgetID string) (json.RawMessage, error) {
	w, err := s.Widget(ctx, id, widgetID)
	if err != nil {
		return nil, err
	}
	if s.values == nil {
		return nil, api.Errorf(api.Unavailable, "Widget values need the message search, which this server does not have yet")
	}
	return s.values.Value(ctx, w)
}

// UpdateWidget replaces a widget's type, description, cache time and
// configuration; its id and creator stay.
func (s *Service) UpdateWidget(ctx context.Context, id, widgetID string, req WidgetRequest) error {
	return s.editWidget(ctx, id, widgetID, func(q *queryState, w Widget) error {
		w.Type, w.Description, w.CacheTime, w.Config = req.Type, req.Description, req.CacheTime, req.Config
		return q.put(w, req.timerange)
	})
}

// SetWidgetDescription changes a widget's description, which 4.0 shows as
// the widget's title.
func (s *Service) SetWidgetDescription(ctx context.Context, id, widgetID, description string) error {
	return s.editWidget(ctx, id, widgetID, func(q *queryState, w Widget) error {
		w.Description = description
		q.keep(w)
		return nil
	})
}

// SetWidgetCacheTime changes how long a widget's value is cached.
func (s *Service) SetWidgetCacheTime(ctx context.Context, id, widgetID string, seconds int) error {
	return s.editWidget(ctx, id, widgetID, func(q *queryState, w Widget) error {
		w.CacheTime = seconds
		q.keep(w)
		return nil
	})
}

// DeleteWidget removes a widget, its title and its position.
func (s *Service) DeleteWidget(ctx context.Context, id, widgetID string) error {
	return s.editWidget(ctx, id, widgetID, func(q *queryState, w Widget) error {
		q.remove(w.ID)
		return nil
	})
}

// editWidget changes the widget of a dashboard the caller may edit, in the
// query that holds it; change gets the widget's legacy form.
func (s *Service) editWidget(ctx context.Context, id, widgetID string, change func(q *queryState, w Widget) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.dashboard(ctx, id, canEditDashboard, "dashboards:edit:")
	if err != nil {
		return err
	}
	owner := ownerOf(v)
	for _, queryID := range slices.Sorted(maps.Keys(v.State)) {
		q, err := decodeState(v.State[queryID])
		if err != nil {
			return err
		}
		if i := q.index(widgetID); i >= 0 {
			if err := change(q, q.widget(i, owner)); err != nil {
				return err
			}
			return s.save(ctx, v, queryID, q)
		}
	}
	return widgetNotFound(id, widgetID)
}

// keep records w as the legacy form of its 4.0 widget as that stands now,
// for changes 4.0 has no place for (the cache time) or keeps elsewhere
// (the description, the widget's title).
func (q *queryState) keep(w Widget) {
	if i := q.index(w.ID); i >= 0 {
		raw := q.widgets[i]
		if b, err := canonical(raw); err == nil {
			raw = b
			q.widgets[i] = b // so that reading it back needs no parsing
		}
		q.legacy[w.ID] = original{Widget: w, As: digest(raw)}
	}
	title, _ := api.Marshal(w.Description)
	if q.titles["widget"] == nil {
		q.titles["widget"] = map[string]json.RawMessage{}
	}
	q.titles["widget"][w.ID] = title
}

func widgetNotFound(id, widgetID string) error {
	return api.Errorf(api.NotFound, "Widget %s on dashboard %s not found.", widgetID, id)
}
