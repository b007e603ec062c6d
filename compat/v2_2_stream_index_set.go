package compat

import (
	"context"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/rewrite"
	"github.com/loggate/loggate/router/api"
)

// IndexSets answers which index set new streams go to when a client does
// not say.
type IndexSets interface {
	DefaultID(ctx context.Context) (string, error)
}

// StreamIndexSet is the 2.2 change that gave streams an index set: clients
// older than 2.2 create and clone streams without index_set_id, which 4.0
// requires; they get the default index set, as streams of 2.1 and before
// all wrote to the one index.
func StreamIndexSet(sets IndexSets) *Change {
	return &Change{
		Release:     MustRelease("2.2"),
		Description: "Streams belong to an index set: `POST /streams` and `POST /streams/{id}/clone` need `index_set_id`; clients older than 2.2 get the default index set.",
		Routes:      []Route{R("POST /streams"), R("POST /streams/{streamId}/clone")},
		Request: func(ctx context.Context, x *Exchange) error {
			if sets == nil {
				return nil
			}
			body, err := x.Body()
			if err != nil || !gjson.ValidBytes(body) || gjson.GetBytes(body, "index_set_id").String() != "" {
				// The backend answers malformed bodies itself.
				return nil
			}
			id, err := sets.DefaultID(ctx)
			if err != nil {
				return api.Wrap(api.Unavailable, "Cannot find the default index set", err)
			}
			raw, err := api.Marshal(id)
			if err != nil {
				return err
			}
			if body, err = rewrite.SetField(body, "", "index_set_id", raw); err != nil {
				return nil
			}
			x.SetBody(body)
			return nil
		},
	}
}
