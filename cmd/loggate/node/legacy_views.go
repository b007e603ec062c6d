package node

import (
	"context"
	"fmt"

	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/legacyviews"
	"github.com/loggate/loggate/compat"
)

// legacyViews answers the legacy dashboards and saved searches for the
// compat chain from the legacy views service, decoding and encoding the
// legacy JSON.
type legacyViews struct{ svc *legacyviews.Service }

// legacyViews builds the legacy dashboards and saved searches on the
// node's views; widget values are computed by the node's message search.
func (n *Node) legacyViews() compat.LegacyViews {
	return legacyViews{legacyviews.New(n.Views, n.Store, legacyviews.SearchValues{Search: n.Messages.Search})}
}

// encodeLegacy encodes a legacy response body.
func encodeLegacy(v any, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	b, err := api.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode legacy response: %w", err)
	}
	return b, nil
}

func (l legacyViews) Dashboards(ctx context.Context) ([]byte, error) {
	return encodeLegacy(l.svc.Dashboards(ctx))
}

func (l legacyViews) Dashboard(ctx context.Context, id string) ([]byte, error) {
	return encodeLegacy(l.svc.Dashboard(ctx, id))
}

func (l legacyViews) CreateDashboard(ctx context.Context, body []byte) (string, error) {
	req, err := legacyviews.ParseDashboard(body, true)
	if err != nil {
		return "", err
	}
	return l.svc.CreateDashboard(ctx, req)
}

func (l legacyViews) UpdateDashboard(ctx context.Context, id string, body []byte) error {
	req, err := legacyviews.ParseDashboard(body, false)
	if err != nil {
		return err
	}
	return l.svc.UpdateDashboard(ctx, id, req)
}

func (l legacyViews) DeleteDashboard(ctx context.Context, id string) error {
	return l.svc.DeleteDashboard(ctx, id)
}

func (l legacyViews) SetPositions(ctx context.Context, id string, body []byte) error {
	ps, err := legacyviews.ParsePositions(body)
	if err != nil {
		return err
	}
	return l.svc.SetPositions(ctx, id, ps)
}

func (l legacyViews) AddWidget(ctx context.Context, id string, body []byte) (string, error) {
	req, err := legacyviews.ParseWidget(body)
	if err != nil {
		return "", err
	}
	return l.svc.AddWidget(ctx, id, req)
}

func (l legacyViews) Widget(ctx context.Context, id, widgetID string) ([]byte, error) {
	return encodeLegacy(l.svc.Widget(ctx, id, widgetID))
}

func (l legacyViews) UpdateWidget(ctx context.Context, id, widgetID string, body []byte) error {
	req, err := legacyviews.ParseWidget(body)
	if err != nil {
		return err
	}
	return l.svc.UpdateWidget(ctx, id, widgetID, req)
}

func (l legacyViews) DeleteWidget(ctx context.Context, id, widgetID string) error {
	return l.svc.DeleteWidget(ctx, id, widgetID)
}

func (l legacyViews) SetWidgetDescription(ctx context.Context, id, widgetID string, body []byte) error {
	d, err := legacyviews.ParseDescription(body)
	if err != nil {
		return err
	}
	return l.svc.SetWidgetDescription(ctx, id, widgetID, d)
}

func (l legacyViews) SetWidgetCacheTime(ctx context.Context, id, widgetID string, body []byte) error {
	n, err := legacyviews.ParseCacheTime(body)
	if err != nil {
		return err
	}
	return l.svc.SetWidgetCacheTime(ctx, id, widgetID, n)
}

func (l legacyViews) WidgetValue(ctx context.Context, id, widgetID string) ([]byte, error) {
	return l.svc.WidgetValue(ctx, id, widgetID)
}

func (l legacyViews) SavedSearches(ctx context.Context) ([]byte, error) {
	return encodeLegacy(l.svc.SavedSearches(ctx))
}

func (l legacyViews) SavedSearch(ctx context.Context, id string) ([]byte, error) {
	return encodeLegacy(l.svc.SavedSearch(ctx, id))
}

func (l legacyViews) CreateSavedSearch(ctx context.Context, body []byte) (string, error) {
	req, err := legacyviews.ParseSavedSearch(body)
	if err != nil {
		return "", err
	}
	return l.svc.CreateSavedSearch(ctx, req)
}

func (l legacyViews) UpdateSavedSearch(ctx context.Context, id string, body []byte) ([]byte, error) {
	req, err := legacyviews.ParseSavedSearch(body)
	if err != nil {
		return nil, err
	}
	return encodeLegacy(l.svc.UpdateSavedSearch(ctx, id, req))
}

func (l legacyViews) DeleteSavedSearch(ctx context.Context, id string) error {
	return l.svc.DeleteSavedSearch(ctx, id)
}
