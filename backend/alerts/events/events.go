// Package events owns Graylog 4.0's events API: event definitions, event
// notifications and the event search the alerts page shows. loggate does
// not create events yet: the definitions and notifications come from a
// Source, which is empty until the events capability exists, and the event
// search finds nothing, in the shapes Graylog 4.0 answers.
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
