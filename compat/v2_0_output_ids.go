package compat

import (
	"context"

	"github.com/loggate/loggate/rewrite"
)

// OutputIDs is the 2.0 change of the key of the output records embedded in
// stream responses, from _id to id (the 2.0 upgrade notes, "REST API
// Changes"). The /system/outputs resources said id already in 1.3 and keep
// it for every client.
func OutputIDs() *Change {
	// Where the output records sit in each response.
	paths := map[string]string{
		"/streams":                               "streams.#.outputs.#",
		"/streams/enabled":                       "streams.#.outputs.#",
		"/streams/{streamId}":                    "outputs.#",
		"/streams/{streamId}/outputs":            "outputs.#",
		"/streams/{streamId}/outputs/{outputId}": "",
	}
	return &Change{
		Release:     MustRelease("2.0"),
		Description: "Output records embedded in `/streams` responses (`GET /streams`, `/streams/enabled`, `/streams/{id}`, `/streams/{id}/outputs[/{outputId}]`, `PUT /streams/{id}`) carry `id`; clients older than 2.0 get `_id`.",
		Routes: []Route{
			R("GET /streams"),
			R("GET /streams/enabled"),
			R("GET /streams/{streamId}"),
			R("PUT /streams/{streamId}"),
			R("GET /streams/{streamId}/outputs"),
			R("GET /streams/{streamId}/outputs/{outputId}"),
		},
		Response: func(_ context.Context, x *Exchange, body []byte) ([]byte, error) {
			return rewrite.RenameField(body, paths[x.Route.Template.String()], "id", "_id")
		},
	}
}
