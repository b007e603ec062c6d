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
// runtime (/system/jvm, its thread and process buffer dumps), plugins,
// jobs and input states. The handler must
// have been given those local routes.
func (h *Handler) SystemRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/cluster/{nodeId}/jvm", Summary: "Get JVM information of the given node",
			Permission: "jvmstats:read:{nodeId}", Handler: h.oneNode("GET /system/jvm")},
		{Method: "GET", Path: "/cluster/{nodeId}/threaddump", Summary: "Get a thread dump of the given node (loggate: its goroutines)",
			Permission: "threads:dump", Handler: h.oneNode("GET /system/threaddump")},
		{Method: "GET", Path: "/cluster/processbufferdump", Summary: "Get a process buffer dump of all cluster nodes",
			Permission: "processbuffer:dump", Handler: h.everyNode("GET /system/processbufferdump")},
		{Method: "GET", Path: "/cluster/{nodeId}/processbufferdump", Summary: "Get a process buffer dump of the given node",
			Permission: "processbuffer:dump", Handler: h.oneNode("GET /system/processbufferdump")},
		{Method: "GET", Path: "/cluster/{nodeId}/plugins", Summary: "List all installed plugins on the given node",
			Handler: h.oneNode("GET /system/plugins")},
		{Method: "GET", Path: "/cluster/jobs", Summary: "List currently running jobs of every node",
			Handler: h.everyNode("GET /system/jobs")},
		{Method: "GET", Path: "/cluster/inputstates", Summary: "Get all input states of every node",
			Permission: "inputs:read", Handler: h.everyNodeField("GET /system/inputstates", "states")},
		// The inputs page's Start and Stop: each node's answer ({"id": …}),
		// null for a node that failed.
		{Method: "PUT", Path: "/cluster/inputstates/{inputId}", Summary: "Start or restart specified input in all nodes",
			Permission: "inputs:changestate:{inputId}", PathChecked: true, Handler: h.everyNode("PUT /system/inputstates/{inputId}")},
		{Method: "DELETE", Path: "/cluster/inputstates/{inputId}", Summary: "Stop specified input in all nodes",
			Permission: "inputs:changestate:{inputId}", PathChecked: true, Handler: h.everyNode("DELETE /system/inputstates/{inputId}")},
		// The nodes page's actions, on the node they name; its own
		// handler checks processing:changestate:<its id>.
		{Method: "POST", Path: "/cluster/{nodeId}/processing/pause", Summary: "Pause message processing on node",
			Handler: h.oneNode("PUT /system/processing/pause")},
		{Method: "POST", Path: "/cluster/{nodeId}/processing/resume", Summary: "Resume message processing on node",
			Handler: h.oneNode("PUT /system/processing/resume")},
		{Method: "PUT", Path: "/cluster/{nodeId}/lbstatus/override/{status}", Summary: "Override load balancer status of a node",
			Permission: "lbstatus:change", Handler: h.oneNode("PUT /system/lbstatus/override/{status}")},
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
