// Package cluster serves the /cluster/… variants of node-local resources
// (loggers, metrics): the same answers keyed by node id, or addressed to one
// node. This node answers for itself; with Peers, other live nodes are
// reached over HTTP at their transport address with the caller's
// credentials; unknown or dead nodes are a 404.
package cluster

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loggate/loggate/rewrite"
	"github.com/loggate/loggate/router/api"
)

// Handler serves the cluster variants.
type Handler struct {
	self  string
	local map[string]api.HandlerFunc // "METHOD path" of the node-local route

	peers   Peers // nil: this node alone
	client  *http.Client
	timeout time.Duration
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
		{Method: "GET", Path: "/cluster/{nodeId}/journal", Summary: "Get message journal information of a given node",
			Permission: "journal:read", Handler: h.oneNode("GET /system/journal")},
		{Method: "GET", Path: "/cluster/{nodeId}/metrics/names", Summary: "Get all metrics keys/names of a node",
			Permission: "metrics:allkeys", Handler: h.oneNode("GET /system/metrics/names")},
		{Method: "GET", Path: "/cluster/{nodeId}/metrics/namespace/{namespace}", Summary: "Get all metrics of a namespace of a node",
			Permission: "metrics:read:{metricName}", Handler: h.oneNode("GET /system/metrics/namespace/{namespace}")},
	}
}

// everyNode answers {"<node id>": <the answer of that node>} for every live
// node. Like Graylog's stripCallResult, a node that fails to answer is
// listed with null.
func (h *Handler) everyNode(local string) api.HandlerFunc {
	fn := h.route(local)
	method, path, _ := strings.Cut(local, " ")
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(r)
		if err != nil {
			return err
		}
		status, self, err := h.answerLocally(w, fn, r, body)
		if err != nil {
			return err
		}
		out := map[string]json.RawMessage{h.self: self}
		if h.peers != nil {
			ids, err := h.peers.LiveIDs(r.Context())
			if err != nil {
				return err
			}
			for _, id := range ids {
				if id == h.self {
					continue
				}
				st, _, b, err := h.forward(r, id, method, path, body)
				if err != nil || st >= 300 || !json.Valid(b) {
					api.Logger(r.Context()).Warn("node did not answer a cluster request", "node", id, "status", st, "error", err)
					out[id] = json.RawMessage("null")
					continue
				}
				out[id] = b
			}
		}
		buf, err := api.Marshal(out)
		if err != nil {
			return err
		}
		api.WriteRawJSON(w, status, buf)
		return nil
	}
}

// answerLocally runs the node-local handler on a copy of the request.
func (h *Handler) answerLocally(w http.ResponseWriter, fn api.HandlerFunc, r *http.Request, body []byte) (int, json.RawMessage, error) {
	rec := rewrite.NewRecorder(w)
	defer rec.Release()
	lr := r.Clone(r.Context())
	lr.Body = io.NopCloser(strings.NewReader(string(body)))
	if err := fn(rec, lr); err != nil {
		return 0, nil, err
	}
	b := rec.Body()
	if !json.Valid(b) {
		return rec.Status(), json.RawMessage("null"), nil
	}
	return rec.Status(), append(json.RawMessage(nil), b...), nil
}

// oneNode passes the request to the local route when it names this node,
// else forwards it to the named node.
func (h *Handler) oneNode(local string) api.HandlerFunc {
	fn := h.route(local)
	method, path, _ := strings.Cut(local, " ")
	return func(w http.ResponseWriter, r *http.Request) error {
		id := api.Var(r, "nodeId")
		if id == h.self {
			return fn(w, r) // the local route reads the same path values
		}
		if h.peers == nil {
			return api.Errorf(api.NotFound, "Node %s not found", id)
		}
		body, err := readBody(r)
		if err != nil {
			return err
		}
		status, ctype, out, err := h.forward(r, id, method, path, body)
		if errors.Is(err, errTimeout) {
			writeTimeout(w, id)
			return nil
		}
		if err != nil {
			return err
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		_, _ = w.Write(out)
		return nil
	}
}

// readBody reads the request body once, so that it can be sent to several
// nodes; nil when there is none.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, api.Wrap(api.Invalid, "Unreadable request body", err)
	}
	return b, nil
}

func (h *Handler) route(local string) api.HandlerFunc {
	fn, ok := h.local[local]
	if !ok {
		panic("cluster: no node-local route " + local)
	}
	return fn
}
