package journal

import (
	"net/http"

	"github.com/loggate/loggate/router/api"
)

// Routes returns GET /system/journal for this node's journal; the cluster
// handler adds its /cluster/{nodeId}/journal variant.
func (j *Journal) Routes() []api.Route {
	return []api.Route{{
		Method: "GET", Path: "/system/journal", Summary: "Get current state of the journal on this node",
		Permission: "journal:read",
		Handler: func(w http.ResponseWriter, _ *http.Request) error {
			api.WriteJSON(w, http.StatusOK, j.Stats())
			return nil
		},
	}}
}
