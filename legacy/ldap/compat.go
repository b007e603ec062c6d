package ldap

import (
	"context"
	"fmt"

	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// API answers the 3.x LDAP API for the compat chain in the 3.x JSON:
// the shapes are this package's, so the chain sees only bytes.
type API struct{ svc *Service }

var _ compat.LegacyLDAP = API{}

// NewAPI serves the 3.x LDAP API from svc.
func NewAPI(svc *Service) API { return API{svc} }

func (a API) Settings(ctx context.Context) ([]byte, error) {
	s, err := a.svc.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return marshal(s)
}

// SaveSettings decodes leniently: the 3.x web interface sends back what it
// read (system_password_set included), and Graylog 3.x ignored unknown
// properties of this request.
func (a API) SaveSettings(ctx context.Context, body []byte) error {
	var req SettingsRequest
	if err := api.DecodeBytes(body, &req, false); err != nil {
		return err
	}
	return a.svc.Save(ctx, req)
}

func (a API) DeleteSettings(ctx context.Context) error { return a.svc.Delete(ctx) }

func (a API) GroupMapping(ctx context.Context) ([]byte, error) {
	m, err := a.svc.GroupMapping(ctx)
	if err != nil {
		return nil, err
	}
	return marshal(m)
}

func (a API) SaveGroupMapping(ctx context.Context, body []byte) error {
	var m map[string]string
	if err := api.DecodeBytes(body, &m, false); err != nil {
		return err
	}
	return a.svc.SaveGroupMapping(ctx, m)
}

func (a API) Groups(ctx context.Context) ([]byte, error) {
	g, err := a.svc.Groups(ctx)
	if err != nil {
		return nil, err
	}
	return marshal(g)
}

func (a API) Test(ctx context.Context, body []byte) ([]byte, error) {
	var req TestRequest
	if err := api.DecodeBytes(body, &req, false); err != nil {
		return nil, err
	}
	res, err := a.svc.Test(ctx, req)
	if err != nil {
		return nil, err
	}
	return marshal(res)
}

// marshal writes JSON as Jackson does (api.Marshal), wrapping its error.
func marshal(v any) ([]byte, error) {
	b, err := api.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("legacy ldap: %w", err)
	}
	return b, nil
}
