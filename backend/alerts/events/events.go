// Package events owns Graylog 4.0's events: the event document as the
// events index set stores it, the listings of event definitions and
// notifications (from a Source), and the event search the alerts page
// shows. A server without the events capability has the empty Source and
// no event store, and answers in the same shapes.
package events

import (
	"context"
	"encoding/json"
)

// Entity is a stored event definition or notification: what listings
// filter, search and sort by, and the document the API shows.
type Entity struct {
	ID, Title, Description string
	Doc                    json.RawMessage
	// Owner is the grantee owning the entity (grn::::user:<id>), "" when
	// none does.
	Owner string
}

// Source gives the stored event definitions and notifications.
type Source interface {
	Definitions(ctx context.Context) ([]Entity, error)
	Notifications(ctx context.Context) ([]Entity, error)
}

// None is the Source of a server without the events capability.
type None struct{}

// Definitions returns no definitions.
func (None) Definitions(context.Context) ([]Entity, error) { return nil, nil }

// Notifications returns no notifications.
func (None) Notifications(context.Context) ([]Entity, error) { return nil, nil }
