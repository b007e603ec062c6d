package node

import (
	"context"
	"fmt"

	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/legacyldap"
	"github.com/loggate/loggate/compat"
)

// legacyLDAP answers the 3.x LDAP API for the compat chain from the
// legacy LDAP service, decoding and encoding the 3.x JSON.
type legacyLDAP struct{ svc *legacyldap.Service }

// legacyLDAP builds the 3.x LDAP API's service on the node's backends,
// roles and store.
func (n *Node) legacyLDAP() compat.LegacyLDAP {
	return legacyLDAP{n.legacyLDAPService()}
}

// legacyLDAPService is the node's one legacy LDAP service, made on first
// use: the compat chain answers with it, the notices watch it.
func (n *Node) legacyLDAPService() *legacyldap.Service {
	n.ldapOnce.Do(func() {
		n.ldap = legacyldap.NewService(n.AuthServices, legacyldap.RoleService(n.Roles), n.Store, n.Levels.Logger("loggate.legacyldap"))
	})
	return n.ldap
}

func (l legacyLDAP) Settings(ctx context.Context) ([]byte, error) {
	s, err := l.svc.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return marshal(s)
}

// SaveSettings decodes leniently: the 3.x web interface sends back what it
// read (system_password_set included), and Graylog 3.x ignored unknown
// properties of this request.
func (l legacyLDAP) SaveSettings(ctx context.Context, body []byte) error {
	var req legacyldap.SettingsRequest
	if err := api.DecodeBytes(body, &req, false); err != nil {
		return err
	}
	return l.svc.Save(ctx, req)
}

func (l legacyLDAP) DeleteSettings(ctx context.Context) error { return l.svc.Delete(ctx) }

func (l legacyLDAP) GroupMapping(ctx context.Context) ([]byte, error) {
	m, err := l.svc.GroupMapping(ctx)
	if err != nil {
		return nil, err
	}
	return marshal(m)
}

func (l legacyLDAP) SaveGroupMapping(ctx context.Context, body []byte) error {
	var m map[string]string
	if err := api.DecodeBytes(body, &m, false); err != nil {
		return err
	}
	return l.svc.SaveGroupMapping(ctx, m)
}

func (l legacyLDAP) Groups(ctx context.Context) ([]byte, error) {
	g, err := l.svc.Groups(ctx)
	if err != nil {
		return nil, err
	}
	return marshal(g)
}

func (l legacyLDAP) Test(ctx context.Context, body []byte) ([]byte, error) {
	var req legacyldap.TestRequest
	if err := api.DecodeBytes(body, &req, false); err != nil {
		return nil, err
	}
	res, err := l.svc.Test(ctx, req)
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
