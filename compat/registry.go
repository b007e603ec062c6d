package compat

import (
	"strings"
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
	// IndexSets name the default index set of streams old clients create.
	IndexSets IndexSets
}

// All returns every version change loggate applies, oldest release first.
func All(d Deps) []*Change {
	changes := []*Change{OutputIDs(), StreamIndexSet(d.IndexSets), CSRFHeader(), LegacyViewsAPI(d.LegacyViews), UsersByID(d.Users), LegacyViewsRemoval(d.LegacyViews), LegacyLDAPAPI(d.LegacyLDAP), CountTotal(), SearchAggregations()}
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
