// Package cluster serves the /cluster/… variants of node-local resources
// (loggers, metrics): the same answers keyed by node id, or addressed to one
// node. A single node answers for itself; a node id that is not this node's
// is a 404.
package cluster

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/rewrite"
)

// Handler serves the cluster variants.
type Handler struct {
	self  string
	local map[string]api.HandlerFunc // "METHOD path" of the node-local route
}

// NewHandler returns the cluster variants of the given node-local routes.
func NewHandler(nodeID string, local []api.Route) *Handler {
	h := &Handler{self: nodeID, local: map[string]api.HandlerFunc{}}
	for _, r := range local {
		h.local[r.Method+" "+r.Path] = r.Handler
	}
	return h
}

// Routes returns the cluster routes. Each one needs only authentication:
// the node-local handler it reaches checks its own permissions.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/cluster/system/loggers", Summary: "List all loggers of all nodes and their current levels",
			Permission: "loggers:read:{loggerName}", Handler: h.everyNode("GET /system/loggers")},
		{Method: "GET", Path: "/cluster/system/loggers/subsystems", Summary: "List all logger subsystems and their current levels",
			Permission: "loggers:readsubsystem:{subsystem}", Handler: h.everyNode("GET /system/loggers/subsystems")},
		{Method: "PUT", Path: "/cluster/system/loggers/{nodeId}/subsystems/{subsystem}/level/{level}", Summary: "Set the loglevel of a whole subsystem on a node",
			Permission: "loggers:editsubsystem:{subsystem}", Handler: h.oneNode("PUT /system/loggers/subsystems/{subsystem}/level/{level}")},
		{Method: "POST", Path: "/cluster/metrics/multiple", Summary: "Get specific metrics from all nodes in the cluster",
			Permission: "metrics:read:{metricName}", Handler: h.everyNode("POST /system/metrics/multiple")},
		{Method: "POST", Path: "/cluster/{nodeId}/metrics/multiple", Summary: "Get multiple metrics of a node",
			Permission: "metrics:read:{metricName}", Handler: h.oneNode("POST /system/metrics/multiple")},
		{Method: "GET", Path: "/cluster/{nodeId}/metrics/names", Summary: "Get all metrics keys/names of a node",
			Permission: "metrics:allkeys", Handler: h.oneNode("GET /system/metrics/names")},
		{Method: "GET", Path: "/cluster/{nodeId}/metrics/namespace/{namespace}", Summary: "Get all metrics of a namespace of a node",
			Permission: "metrics:read:{metricName}", Handler: h.oneNode("GET /system/metrics/namespace/{namespace}")},
	}
}

// everyNode answers {"<node id>": <the local answer>}.
func (h *Handler) everyNode(local string) api.HandlerFunc {
	fn := h.route(local)
	return func(w http.ResponseWriter, r *http.Request) error {
		rec := rewrite.NewRecorder(w)
		defer rec.Release()
		if err := fn(rec, r); err != nil {
			return err
		}
		body := rec.Body()
		if !json.Valid(body) {
			body = []byte("null")
		}
		out, err := json.Marshal(map[string]json.RawMessage{h.self: body})
		if err != nil {
			return err
		}
		api.WriteRawJSON(w, rec.Status(), out)
		return nil
	}
}

// oneNode passes the request to the local route when it names this node.
func (h *Handler) oneNode(local string) api.HandlerFunc {
	fn := h.route(local)
	return func(w http.ResponseWriter, r *http.Request) error {
		vars := mux.Vars(r)
		if id := vars["nodeId"]; id != h.self {
			return api.Errorf(api.NotFound, "Node %s not found", id)
		}
		return fn(w, r) // the local route reads the same path values
	}
}

func (h *Handler) route(local string) api.HandlerFunc {
	fn, ok := h.local[local]
	if !ok {
		panic("cluster: no node-local route " + local)
	}
	return fn
}
