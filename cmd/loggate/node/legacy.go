package node

import (
	"context"
	"time"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/compat"
	legacyldap "github.com/loggate/loggate/legacy/ldap"
	legacyviews "github.com/loggate/loggate/legacy/views"
)

// legacyLDAP serves the 3.x LDAP API to the compat chain.
func (n *Node) legacyLDAP() compat.LegacyLDAP {
	return legacyldap.NewAPI(n.legacyLDAPService())
}

// legacyLDAPService is the node's one legacy LDAP service, made on first
// use: the compat chain answers with it, the notices watch it.
func (n *Node) legacyLDAPService() *legacyldap.Service {
	n.ldapOnce.Do(func() {
		n.ldap = legacyldap.NewService(n.AuthServices, legacyldap.RoleService(n.Roles), n.Store, n.Levels.Logger("loggate.legacyldap"))
	})
	return n.ldap
}

// legacyViews serves the legacy dashboards and saved searches on the
// node's views; widget values are computed by the node's message search.
func (n *Node) legacyViews() compat.LegacyViews {
	searches := views.NewSearches(n.Store, n.Views, n.Messages.now)
	svc := legacyviews.New(n.Views, n.Store, searches, legacyviews.SearchValues{Search: n.Messages.Search})
	// Views earlier versions stored for legacy clients named no search;
	// the first run gives them one, later runs find nothing to do.
	n.Nodes.Every("legacy views' searches", time.Hour, func(ctx context.Context) error {
		_, err := svc.Repair(ctx)
		return err
	})
	return legacyviews.NewAPI(svc)
}
