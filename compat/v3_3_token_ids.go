package compat

import (
	"context"

	"github.com/loggate/loggate/rewrite"
)

// TokenIDs is the 3.3 change that gave access tokens an id (and encrypted
// them at rest). Clients older than 3.3 see token records without id, as
// 2.x/3.0–3.2 sent them; deleting by token value still works for them.
func TokenIDs() *Change {
	return &Change{
		Release:     MustRelease("3.3"),
		Description: "Access token records carry an `id`; older clients get `{name, token, last_access}` without it.",
		Routes: []Route{
			R("GET /users/{user}/tokens"),
			R("POST /users/{user}/tokens/{name}"),
		},
		Response: func(_ context.Context, x *Exchange, body []byte) ([]byte, error) {
			if x.Req.Method == "GET" {
				return rewrite.DeleteField(body, "tokens.#", "id")
			}
			return rewrite.DeleteField(body, "", "id")
		},
	}
}
