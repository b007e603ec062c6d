package overview

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/nodes"
	"github.com/loggate/loggate/router/api"
)

// Registry is the cluster's node registry (nodes.Registry): the live nodes
// and the lease holder.
type Registry interface {
	Live(ctx context.Context) ([]nodes.Info, error)
	LiveSet(ctx context.Context) (*nodes.LiveSet, error)
	Get(ctx context.Context, id string) (nodes.Info, error)
	Leader(ctx context.Context) (string, error)
}

// Handler serves /, /cluster and /system.
type Handler struct {
	node *Node
	now  func() time.Time
	reg  Registry
	// answer is GET /cluster's last answer: built once per live set, not
	// per request.
	answer atomic.Pointer[clusterAnswer]
}

// NewHandler returns the system resources. Without SetRegistry it answers
// for this node alone.
func NewHandler(node *Node, now func() time.Time) *Handler { return &Handler{node: node, now: now} }

// SetRegistry makes /cluster and /system/cluster/… answer for every live
// node of the cluster.
func (h *Handler) SetRegistry(reg Registry) *Handler {
	h.reg = reg
	return h
}

// Routes returns the routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/", Summary: "A few details about the Graylog node", Public: true, Handler: h.hello},
		{Method: "GET", Path: "/cluster", Summary: "Get system overview of all Graylog nodes", Handler: h.cluster},
		{Method: "GET", Path: "/system", Summary: "Get system overview", Permission: "system:read:{nodeId}", Handler: api.JSON(h.system)},
		{Method: "GET", Path: "/system/cluster/nodes", Summary: "List all active nodes in this cluster", Handler: api.JSON(h.nodes)},
		{Method: "GET", Path: "/system/cluster/node", Summary: "Information about this node", Handler: h.thisNode},
		{Method: "GET", Path: "/system/cluster/nodes/{nodeId}", Summary: "Information about a node", Handler: h.nodeByID},
		{Method: "GET", Path: "/system/lbstatus", Summary: "Get status of this Graylog node for load balancers", Public: true, Handler: h.lbStatus},
		{Method: "PUT", Path: "/system/lbstatus/override/{status}", Summary: "Override load balancer status of this Graylog node", Permission: "lbstatus:change", Handler: h.lbOverride},
		// loggate: the same without "override", to drain a node before maintenance.
		{Method: "PUT", Path: "/system/lbstatus/{status}", Summary: "Set the load balancer status of this node (alive, dead, throttled; loggate alias of /override)", Permission: "lbstatus:change", Handler: h.lbOverride},
		{Method: "PUT", Path: "/system/processing/pause", Summary: "Pauses message processing on this node", Permission: "processing:changestate:{nodeId}", Handler: h.pause},
		{Method: "PUT", Path: "/system/processing/resume", Summary: "Resumes message processing on this node", Permission: "processing:changestate:{nodeId}", Handler: h.resume},
		{Method: "GET", Path: "/system/plugins", Summary: "List all installed plugins on this node", Handler: api.JSON(h.plugins)},
	}
}

func (h *Handler) hello(w http.ResponseWriter, r *http.Request) error {
	api.WriteJSON(w, http.StatusOK, map[string]string{
		"cluster_id": h.node.ClusterID, "node_id": h.node.ID, "version": Version(), "tagline": Tagline,
	})
	return nil
}

// cluster answers every live node's /system. Graylog asks each node for it
// with the caller's credentials and lists a node that refuses (403) with
// null, so a caller without system:read on a node sees only its id.
func (h *Handler) cluster(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	visible := func(nodeID string, rec Record) *Record {
		if !p.Permits("system:read:" + nodeID) {
			return nil
		}
		return &rec
	}
	if h.reg == nil {
		api.WriteJSON(w, http.StatusOK, map[string]*Record{h.node.ID: visible(h.node.ID, h.node.Record())})
		return nil
	}
	set, err := h.reg.LiveSet(r.Context())
	if err != nil {
		return err
	}
	a := h.answer.Load()
	if a == nil || a.set != set {
		a = newClusterAnswer(set)
		h.answer.Store(a)
	}
	body, err := a.body(p)
	if err != nil {
		return err
	}
	api.WriteRawJSON(w, http.StatusOK, body)
	return nil
}

// clusterAnswer is GET /cluster's answer for one live set: the registry
// hands out the same *nodes.LiveSet until a node's document or liveness
// changes, and the answer differs between callers only in which records
// their permissions show, so the body is encoded once per set of visible
// nodes rather than per request.
type clusterAnswer struct {
	set   *nodes.LiveSet
	perms []string // system:read:<node id>, by node
	// bodies maps a mask of the visible nodes (bit i: set.Nodes[i]) to the
	// encoded answer; copied on write.
	bodies atomic.Pointer[map[uint64][]byte]
}

// maxAnswers bounds the encoded variants kept for one live set.
const maxAnswers = 16

func newClusterAnswer(set *nodes.LiveSet) *clusterAnswer {
	a := &clusterAnswer{set: set, perms: make([]string, len(set.Nodes))}
	for i, in := range set.Nodes {
		a.perms[i] = "system:read:" + in.NodeID
	}
	return a
}

// body returns the answer p may see. Permissions are checked on every
// call; only the encoding is kept.
func (a *clusterAnswer) body(p *auth.Principal) ([]byte, error) {
	var mask uint64
	for i, perm := range a.perms {
		if p.Permits(perm) && i < 64 {
			mask |= 1 << i
		}
	}
	cacheable := len(a.perms) <= 64
	var bodies map[uint64][]byte
	if m := a.bodies.Load(); m != nil {
		bodies = *m
	}
	if b, ok := bodies[mask]; ok && cacheable {
		return b, nil
	}
	out := make(map[string]*Record, len(a.set.Nodes))
	for i, in := range a.set.Nodes {
		out[in.NodeID] = nil
		if p.Permits(a.perms[i]) {
			rec := recordOf(in)
			out[in.NodeID] = &rec
		}
	}
	b, err := api.Marshal(out)
	if err != nil || !cacheable || len(bodies) >= maxAnswers {
		return b, err
	}
	next := make(map[uint64][]byte, len(bodies)+1)
	maps.Copy(next, bodies)
	next[mask] = b
	a.bodies.Store(&next) // a concurrent store may win: both are right
	return b, nil
}

func (h *Handler) system(r *http.Request) (any, error) {
	if err := auth.Require(r.Context(), "system:read:"+h.node.ID); err != nil {
		return nil, err
	}
	return h.node.Record(), nil
}

// nodeSummary is Graylog's NodeSummary.
type nodeSummary struct {
	ClusterID        string `json:"cluster_id"`
	NodeID           string `json:"node_id"`
	Type             string `json:"type"`
	IsMaster         bool   `json:"is_master"`
	TransportAddress string `json:"transport_address"`
	LastSeen         string `json:"last_seen"`
	ShortNodeID      string `json:"short_node_id"`
	Hostname         string `json:"hostname"`
}

func (h *Handler) summary() nodeSummary {
	return summaryOf(nodes.Info{
		NodeID: h.node.ID, ClusterID: h.node.ClusterID, TransportAddress: h.node.PublishURI,
		Hostname: h.node.Hostname, LastSeen: h.now(),
	}, true)
}

func (h *Handler) nodes(r *http.Request) (any, error) {
	if h.reg == nil {
		return map[string]any{"nodes": []nodeSummary{h.summary()}, "total": 1}, nil
	}
	live, err := h.reg.Live(r.Context())
	if err != nil {
		return nil, err
	}
	leader, err := h.reg.Leader(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]nodeSummary, len(live))
	for i, in := range live {
		out[i] = summaryOf(in, in.NodeID == leader)
	}
	return map[string]any{"nodes": out, "total": len(out)}, nil
}

func (h *Handler) thisNode(w http.ResponseWriter, r *http.Request) error {
	return h.writeNode(w, r, h.node.ID)
}

func (h *Handler) nodeByID(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "nodeId")
	if h.reg == nil && id != h.node.ID {
		return api.Errorf(api.NotFound, "Node %s not found", id)
	}
	return h.writeNode(w, r, id)
}

func (h *Handler) writeNode(w http.ResponseWriter, r *http.Request, id string) error {
	if h.reg == nil {
		api.WriteJSON(w, http.StatusOK, h.summary())
		return nil
	}
	in, err := h.reg.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Node %s not found", id)
	}
	if err != nil {
		return err
	}
	leader, err := h.reg.Leader(r.Context())
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, summaryOf(in, id == leader))
	return nil
}

func summaryOf(in nodes.Info, master bool) nodeSummary {
	short := in.NodeID
	if len(short) > 8 {
		short = short[:8]
	}
	return nodeSummary{
		ClusterID: in.ClusterID, NodeID: in.NodeID, Type: "server", IsMaster: master,
		TransportAddress: in.TransportAddress, LastSeen: in.LastSeen.UTC().Format(timeLayout),
		ShortNodeID: short, Hostname: in.Hostname,
	}
}

const timeLayout = "2006-01-02T15:04:05.000Z"

// recordOf is another node's record as its heartbeat last wrote it.
func recordOf(in nodes.Info) Record {
	return Record{
		Facility: in.Facility, Codename: in.Codename, NodeID: in.NodeID, ClusterID: in.ClusterID,
		Version: in.Version, StartedAt: in.StartedAt.UTC().Format(timeLayout), Hostname: in.Hostname,
		Lifecycle: in.Lifecycle, LBStatus: in.LBStatus, Timezone: in.Timezone,
		OperatingSystem: in.OperatingSystem, IsProcessing: in.IsProcessing,
	}
}

// lbStatus answers load balancers in plain text: ALIVE 200, THROTTLED 429,
// DEAD 503.
func (h *Handler) lbStatus(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/plain")
	lb := h.node.LBStatus()
	w.WriteHeader(lbCodes[lb])
	_, _ = w.Write([]byte(strings.ToUpper(lb)))
	return nil
}

var lbCodes = map[string]int{"alive": http.StatusOK, "throttled": http.StatusTooManyRequests, "dead": http.StatusServiceUnavailable}

// lbOverride lets an operator drain a node before maintenance.
func (h *Handler) lbOverride(w http.ResponseWriter, r *http.Request) error {
	s := strings.ToLower(api.Var(r, "status"))
	if _, ok := lbCodes[s]; !ok {
		return api.Errorf(api.Invalid, "Invalid load balancer status %q; use alive, dead or throttled", api.Var(r, "status"))
	}
	h.node.SetLBStatus(s)
	api.NoContent(w)
	return nil
}

func (h *Handler) pause(w http.ResponseWriter, r *http.Request) error {
	return h.setProcessing(w, r, false)
}

func (h *Handler) resume(w http.ResponseWriter, r *http.Request) error {
	return h.setProcessing(w, r, true)
}

func (h *Handler) setProcessing(w http.ResponseWriter, r *http.Request, on bool) error {
	if err := auth.Require(r.Context(), "processing:changestate:"+h.node.ID); err != nil {
		return err
	}
	h.node.SetProcessing(on)
	api.NoContent(w)
	return nil
}

// plugins lists installed plugins: loggate has none; Graylog's own backend
// tests read the list.
func (h *Handler) plugins(r *http.Request) (any, error) {
	return map[string]any{"plugins": []any{}, "total": 0}, nil
}
