package overview

import (
	"net/http"

	"github.com/loggate/loggate/router/api"
)

// JobsRoutes returns GET /system/jobs. Graylog lists its system jobs there
// (index range rebuilds, index set deletions, …); loggate does such work
// in its background loops rather than as jobs a client can watch or
// cancel, so the list is honestly empty.
func JobsRoutes() []api.Route {
	return []api.Route{{
		Method: "GET", Path: "/system/jobs", Summary: "List currently running jobs (loggate runs none)",
		Handler: func(w http.ResponseWriter, _ *http.Request) error {
			api.WriteJSON(w, http.StatusOK, map[string]any{"jobs": []any{}})
			return nil
		},
	}}
}
