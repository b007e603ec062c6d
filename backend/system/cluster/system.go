package cluster

import (
	"encoding/json"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/rewrite"
	"github.com/loggate/loggate/router/api"
)

// SystemRoutes returns the cluster variants of the node-local system
// resources the web interface's nodes, inputs and overview pages read: the
// runtime (/system/jvm), plugins, jobs and input states. The handler must
// have been given those local routes.
func (h *Handler) SystemRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/cluster/{nodeId}/jvm", Summary: "Get JVM information of the given node",
			Permission: "jvmstats:read:{nodeId}", Handler: h.oneNode("GET /system/jvm")},
		{Method: "GET", Path: "/cluster/{nodeId}/plugins", Summary: "List all installed plugins on the given node",
			Handler: h.oneNode("GET /system/plugins")},
		{Method: "GET", Path: "/cluster/jobs", Summary: "List currently running jobs of every node",
			Handler: h.everyNode("GET /system/jobs")},
		{Method: "GET", Path: "/cluster/inputstates", Summary: "Get all input states of every node",
			Permission: "inputs:read", Handler: h.everyNodeField("GET /system/inputstates", "states")},
	}
}

// everyNodeField is everyNode answering, for each node, one field of its
// answer: Graylog's cluster input states are each node's list of states,
// not its InputStatesList.
func (h *Handler) everyNodeField(local, field string) api.HandlerFunc {
	all := h.everyNode(local)
	return func(w http.ResponseWriter, r *http.Request) error {
		rec := rewrite.NewRecorder(w)
		defer rec.Release()
		if err := all(rec, r); err != nil {
			return err
		}
		var per map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body(), &per); err != nil {
			return err
		}
		for id, v := range per {
			if f := gjson.GetBytes(v, field); f.Exists() {
				per[id] = json.RawMessage(f.Raw)
			} else {
				per[id] = json.RawMessage("null")
			}
		}
		api.WriteJSON(w, rec.Status(), per)
		return nil
	}
}
