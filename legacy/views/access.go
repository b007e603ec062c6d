package views

import (
	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
)

// owns stands in for 4.0's ownership grant, as the views API does: the
// creator of a view may do anything with it.
func owns(p *auth.Principal, v views.View) bool {
	return p != nil && p.Username != "" && v.Owner != nil && *v.Owner == p.Username
}

func canReadDashboard(p *auth.Principal, v views.View) bool {
	return owns(p, v) || p.Permits("dashboards:read:"+v.ID) || p.Permits("view:read:"+v.ID)
}

func canEditDashboard(p *auth.Principal, v views.View) bool {
	return owns(p, v) || p.Permits("dashboards:edit:"+v.ID) || p.Permits("view:edit:"+v.ID)
}

func canDeleteDashboard(p *auth.Principal, v views.View) bool {
	return owns(p, v) || p.Permits("dashboards:edit:"+v.ID) || p.Permits("view:delete:"+v.ID)
}

func canReadSearch(p *auth.Principal, v views.View) bool {
	return owns(p, v) || p.Permits("savedsearches:read:"+v.ID) || p.Permits("view:read:"+v.ID)
}

func canEditSearch(p *auth.Principal, v views.View) bool {
	return owns(p, v) || p.Permits("savedsearches:edit:"+v.ID) || p.Permits("view:edit:"+v.ID)
}

func canDeleteSearch(p *auth.Principal, v views.View) bool {
	return owns(p, v) || p.Permits("savedsearches:edit:"+v.ID) || p.Permits("view:delete:"+v.ID)
}
