package compat

import (
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Deps are what the version changes need of the backend, each through its
// own small interface. A change whose dependency is nil still describes
// itself (for the changelog) but must not be served.
type Deps struct {
	Users Users
	// LegacyViews serves the legacy dashboards and saved searches.
	LegacyViews LegacyViews
	// LegacyLDAP serves the 3.x LDAP settings through the authentication
	// backends.
	LegacyLDAP LegacyLDAP
	// AuthenticationConfig keeps the 3.x realm configuration.
	AuthenticationConfig AuthenticationConfig
	// IndexSets name the default index set of streams old clients create.
	IndexSets IndexSets
	// LegacyAlerts migrates the alert conditions of clients before 3.1.
	LegacyAlerts LegacyAlerts
	// Upstream is set when the backend is an upstream Graylog (gateway
	// mode): it authenticates callers and checks their permissions, so
	// changes that turn a request into another leave their checks to it.
	Upstream bool
}

// All returns every version change loggate applies, oldest release first.
func All(d Deps) []*Change {
	changes := []*Change{OutputIDs(), StreamIndexSet(d.IndexSets), CSRFHeader(), PipelinesPath(), EventDefinitions(d.LegacyAlerts), LegacyViewsAPI(d.LegacyViews), UsersByID(d.Users), LegacyViewsRemoval(d.LegacyViews), LegacyLDAPAPI(d.LegacyLDAP), AuthenticationConfigAPI(d.AuthenticationConfig), CountTotal(), SearchAggregations(d.Upstream)}
	return NewChain("", append(changes, FieldAdditions()...)...).Changes()
}

// Changelog renders the changes as the lines of CHANGELOG.md's API
// compatibility section, newest release first.
func Changelog(changes []*Change) string {
	var b strings.Builder
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		b.WriteString("- **" + c.Release.String() + "** — " + c.Description + "\n")
	}
	return b.String()
}

// Documented returns the routes of changes for the API documentation, each
// with a note saying which releases it is served for: the routes the 4.0
// API lacks are documented by them alone (the documentation leaves out
// those of a shape the 4.0 table has). Routes a change only refuses are
// left out.
func Documented(changes []*Change) []api.Route {
	var out []api.Route
	for _, ch := range changes {
		note := "Served by compatibility for releases ≤ " + ch.Release.Previous().String() + "."
		if ch.Removed {
			note = "Removed in " + ch.Release.String() + "; served by compatibility for releases ≤ " + ch.Release.Previous().String() + "."
		}
		for _, rt := range ch.Routes {
			if ch.Refuses != nil && ch.Refuses(rt) {
				continue
			}
			out = append(out, api.Route{Method: rt.Method, Path: rt.Template.String(), Summary: "(compatibility) " + note, Compat: note})
		}
	}
	return out
}
