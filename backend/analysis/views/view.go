// Package views owns Graylog 4.0's views: saved searches and dashboards,
// their storage, the default view, and the /views, /dashboards and
// /search/saved resources.
package views

import (
	"encoding/json"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/router/api"
)

// Store collections of the package.
const (
	// Collection holds the views, one document per view, stored as the
	// ViewDTO the API shows.
	Collection = "views"
	// ConfigCollection holds the views' cluster settings: the default view.
	ConfigCollection = "views_config"
)

// Type is a view's type.
type Type string

// The two view types of Graylog 4.0.
const (
	Search    Type = "SEARCH"
	Dashboard Type = "DASHBOARD"
)

// View is Graylog's ViewDTO. Requires and State are kept as the client sent
// them: their content belongs to the web interface and its plugins, and a
// later release may add properties that must survive a round trip.
type View struct {
	ID          string                     `json:"id"`
	Type        Type                       `json:"type"`
	Title       string                     `json:"title"`
	Summary     string                     `json:"summary"`
	Description string                     `json:"description"`
	SearchID    string                     `json:"search_id"`
	Properties  []string                   `json:"properties"`
	Requires    map[string]json.RawMessage `json:"requires"`
	// Owner is the creator's username; Graylog 4.0 grants the creator
	// ownership of the view, which loggate derives from this field.
	Owner     *string  `json:"owner"`
	CreatedAt api.Time `json:"created_at"`
	// State comes last so that listings find every other field of a
	// stored view without scanning past it.
	State map[string]json.RawMessage `json:"state"`
}

// owner returns the owner's username, or "" for a view without one.
func (v View) owner() string {
	if v.Owner == nil {
		return ""
	}
	return *v.Owner
}

// isObjectID reports whether s is a MongoDB ObjectId in hex, the form of
// the ids of views and searches.
func isObjectID(s string) bool {
	_, err := primitive.ObjectIDFromHex(s)
	return err == nil
}
