package views

import (
	"context"
	"fmt"

	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// API answers the legacy dashboards and saved searches for the compat
// chain in their legacy JSON: the shapes are this package's, so the chain
// sees only bytes.
type API struct{ svc *Service }

var _ compat.LegacyViews = API{}

// NewAPI serves the legacy dashboards and saved searches from svc.
func NewAPI(svc *Service) API { return API{svc} }

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

func (a API) Dashboards(ctx context.Context) ([]byte, error) {
	return encodeLegacy(a.svc.Dashboards(ctx))
}

func (a API) Dashboard(ctx context.Context, id string) ([]byte, error) {
	return encodeLegacy(a.svc.Dashboard(ctx, id))
}

func (a API) CreateDashboard(ctx context.Context, body []byte) (string, error) {
	req, err := ParseDashboard(body, true)
	if err != nil {
		return "", err
	}
	return a.svc.CreateDashboard(ctx, req)
}

func (a API) UpdateDashboard(ctx context.Context, id string, body []byte) error {
	req, err := ParseDashboard(body, false)
	if err != nil {
		return err
	}
	return a.svc.UpdateDashboard(ctx, id, req)
}

func (a API) DeleteDashboard(ctx context.Context, id string) error {
	return a.svc.DeleteDashboard(ctx, id)
}

func (a API) SetPositions(ctx context.Context, id string, body []byte) error {
	ps, err := ParsePositions(body)
	if err != nil {
		return err
	}
	return a.svc.SetPositions(ctx, id, ps)
}

func (a API) AddWidget(ctx context.Context, id string, body []byte) (string, error) {
	req, err := ParseWidget(body)
	if err != nil {
		return "", err
	}
	return a.svc.AddWidget(ctx, id, req)
}

func (a API) Widget(ctx context.Context, id, widgetID string) ([]byte, error) {
	return encodeLegacy(a.svc.Widget(ctx, id, widgetID))
}

func (a API) UpdateWidget(ctx context.Context, id, widgetID string, body []byte) error {
	req, err := ParseWidget(body)
	if err != nil {
		return err
	}
	return a.svc.UpdateWidget(ctx, id, widgetID, req)
}

func (a API) DeleteWidget(ctx context.Context, id, widgetID string) error {
	return a.svc.DeleteWidget(ctx, id, widgetID)
}

func (a API) SetWidgetDescription(ctx context.Context, id, widgetID string, body []byte) error {
	d, err := ParseDescription(body)
	if err != nil {
		return err
	}
	return a.svc.SetWidgetDescription(ctx, id, widgetID, d)
}

func (a API) SetWidgetCacheTime(ctx context.Context, id, widgetID string, body []byte) error {
	n, err := ParseCacheTime(body)
	if err != nil {
		return err
	}
	return a.svc.SetWidgetCacheTime(ctx, id, widgetID, n)
}

func (a API) WidgetValue(ctx context.Context, id, widgetID string) ([]byte, error) {
	return a.svc.WidgetValue(ctx, id, widgetID)
}

func (a API) SavedSearches(ctx context.Context) ([]byte, error) {
	return encodeLegacy(a.svc.SavedSearches(ctx))
}

func (a API) SavedSearch(ctx context.Context, id string) ([]byte, error) {
	return encodeLegacy(a.svc.SavedSearch(ctx, id))
}

func (a API) CreateSavedSearch(ctx context.Context, body []byte) (string, error) {
	req, err := ParseSavedSearch(body)
	if err != nil {
		return "", err
	}
	return a.svc.CreateSavedSearch(ctx, req)
}

func (a API) UpdateSavedSearch(ctx context.Context, id string, body []byte) ([]byte, error) {
	req, err := ParseSavedSearch(body)
	if err != nil {
		return nil, err
	}
	return encodeLegacy(a.svc.UpdateSavedSearch(ctx, id, req))
}

func (a API) DeleteSavedSearch(ctx context.Context, id string) error {
	return a.svc.DeleteSavedSearch(ctx, id)
}
