package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Peers finds the other nodes of the cluster (nodes.Registry).
type Peers interface {
	// Address returns a live node's transport address (publish URI), or
	// store.ErrNotFound for an unknown or dead node.
	Address(ctx context.Context, id string) (string, error)
	// LiveIDs returns the ids of the live nodes.
	LiveIDs(ctx context.Context) ([]string, error)
}

// DefaultTimeout bounds a request forwarded to another node.
const DefaultTimeout = 5 * time.Second

// SetPeers makes the handler reach other nodes over HTTP with client
// (nil: one that follows no redirects), each request bounded by timeout
// (DefaultTimeout when 0).
func (h *Handler) SetPeers(p Peers, client *http.Client, timeout time.Duration) *Handler {
	if client == nil {
		// A redirect (a node cleaning a path with "..") must not carry the
		// caller's credentials elsewhere; the caller gets it as is.
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	h.peers, h.client, h.timeout = p, client, timeout
	return h
}

// headers passed on to the other node: the caller's credentials and what
// the router demands of a request.
var forwarded = []string{"Authorization", "X-Requested-By", "Content-Type", "Accept", "X-Graylog-No-Session-Extension"}

// errTimeout marks a node that did not answer in time (504).
var errTimeout = errors.New("node did not answer in time")

// forward sends the request to the node-local route local (a mux path
// template, filled from the request's path values) of node id, and returns
// the answer's status, content type and body.
func (h *Handler) forward(r *http.Request, id, method, local string, body []byte) (int, string, []byte, error) {
	addr, err := h.peers.Address(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return 0, "", nil, api.Errorf(api.NotFound, "Node %s not found", id)
	}
	if err != nil {
		return 0, "", nil, err
	}
	u, err := url.Parse(strings.TrimSuffix(addr, "/") + "/api" + fill(local, api.Vars(r)))
	if err != nil {
		return 0, "", nil, api.Errorf(api.Unavailable, "Node %s has an invalid transport address: %v", id, err)
	}
	u.RawQuery = r.URL.RawQuery
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return 0, "", nil, fmt.Errorf("forward to node %s: %w", id, err)
	}
	for _, k := range forwarded {
		if v := r.Header.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, "", nil, unreachable(id, ctx, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", nil, unreachable(id, ctx, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), out, nil
}

// unreachable classifies a failed forward: 504 when the node was too slow,
// 503 when it could not be reached.
func unreachable(id string, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("node %s: %w: %w", id, errTimeout, err)
	}
	return api.Wrap(api.Unavailable, fmt.Sprintf("Node %s is not reachable", id), err)
}

// fill substitutes {name} in a mux path template with the path values.
func fill(tmpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		name, _, _ := strings.Cut(tmpl[i+1:j], ":")
		b.WriteString(url.PathEscape(vars[name]))
		tmpl = tmpl[j+1:]
	}
}

// writeTimeout answers 504 in Graylog's error shape; api has no code for
// it because only forwarding produces it.
func writeTimeout(w http.ResponseWriter, id string) {
	body, _ := api.Marshal(map[string]string{"type": "ApiError", "message": "Node " + id + " did not answer in time"})
	api.WriteRawJSON(w, http.StatusGatewayTimeout, body)
}
