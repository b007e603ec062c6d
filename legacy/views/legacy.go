// Package legacyviews keeps the dashboards of Graylog 2.x–3.1 and the saved
// searches of Graylog 3.1 and older working for old clients. Both are stored
// as 4.0 views, as Graylog 3.2's migrations converted them: a legacy
// dashboard is a DASHBOARD view with the dashboard's id, a saved search a
// SEARCH view. The 4.0 views API therefore shows what old clients write, and
// old clients read what 4.0 clients write.
package views

import (
	"encoding/json"

	"github.com/loggate/loggate/router/api"
)

// Dashboard is a legacy dashboard as Graylog 2.x–3.1 showed it
// (DashboardImpl.asMap).
type Dashboard struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// CreatedAt is the creation time of the view that stores the dashboard.
	CreatedAt api.Time `json:"created_at"`
	// CreatorUserID is the creator's username (Graylog's naming), null for
	// a view without an owner.
	CreatorUserID *string             `json:"creator_user_id"`
	Widgets       []Widget            `json:"widgets"`
	Positions     map[string]Position `json:"positions"`
}

// Widget is a legacy dashboard widget (DashboardWidget.getPersistedFields).
type Widget struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Description string `json:"description"`
	// CacheTime is how many seconds the widget's value is cached.
	CacheTime     int    `json:"cache_time"`
	CreatorUserID string `json:"creator_user_id"`
	// Config is the widget type's configuration with its timerange, kept
	// as the client wrote it.
	Config json.RawMessage `json:"config"`
}

// Position is where a widget sits on a legacy dashboard's grid.
type Position struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	Col    int `json:"col"`
	Row    int `json:"row"`
}

// SavedSearch is a legacy saved search (SavedSearchImpl.asMap).
type SavedSearch struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Query is the search page's free-form state: query string, range
	// type, fields, …, kept as the client wrote it.
	Query         json.RawMessage `json:"query"`
	CreatedAt     api.Time        `json:"created_at"`
	CreatorUserID *string         `json:"creator_user_id"`
}

// DashboardList is the body of GET /dashboards.
type DashboardList struct {
	Total      int         `json:"total"`
	Dashboards []Dashboard `json:"dashboards"`
}

// SavedSearchList is the body of GET /search/saved.
type SavedSearchList struct {
	Total    int           `json:"total"`
	Searches []SavedSearch `json:"searches"`
}
