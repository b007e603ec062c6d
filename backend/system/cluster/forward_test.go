package cluster

import (
	"context"
	"encoding/json"
	"github.com/loggate/loggate/router/api"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/routertest"
)

// peers is a fixed table of node addresses.
type peers map[string]string

func (p peers) Address(_ context.Context, id string) (string, error) {
	if a, ok := p[id]; ok {
		return a, nil
	}
	return "", store.ErrNotFound
}

func (p peers) LiveIDs(context.Context) ([]string, error) {
	ids := make([]string, 0, len(p))
	for id := range p {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

func TestForward(t *testing.T) {
	var got *http.Request
	var gotBody string
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, gotBody = r, string(b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"remote":true}`))
	}))
	defer remote.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	local := localRoutes()
	h := NewHandler("self", local).SetPeers(peers{
		"self": "http://unused/", "other": remote.URL + "/", "slow": slow.URL, "gone": closed.URL,
	}, nil, 100*time.Millisecond)
	srv := routertest.Handler(h.Routes())

	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string // in the response body
		wantPath                 string // of the forwarded request
	}{
		{"forwarded", "GET", "/cluster/other/metrics/namespace/a%20b?x=1", "", 200, `"remote":true`, "/api/system/metrics/namespace/a%20b"},
		{"forwarded with body", "POST", "/cluster/other/metrics/multiple", `{"metrics":["m"]}`, 200, `"remote":true`, "/api/system/metrics/multiple"},
		{"forwarded put", "PUT", "/cluster/system/loggers/other/subsystems/indexer/level/debug", "", 200, `"remote":true`, "/api/system/loggers/subsystems/indexer/level/debug"},
		{"self answers locally", "GET", "/cluster/self/metrics/names", "", 200, `"names"`, ""},
		{"unknown node", "GET", "/cluster/nope/metrics/names", "", 404, "Node nope not found", ""},
		{"node too slow", "GET", "/cluster/slow/metrics/names", "", 504, "Node slow did not answer in time", ""},
		{"node unreachable", "GET", "/cluster/gone/metrics/names", "", 503, "Node gone is not reachable", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, gotBody = nil, ""
			var rd io.Reader
			if tc.body != "" {
				rd = strings.NewReader(tc.body)
			}
			r := httptest.NewRequest(tc.method, tc.path, rd)
			r.Header.Set("Authorization", "Basic dXNlcjpwdw==")
			if tc.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			r = r.WithContext(auth.WithPrincipal(r.Context(), routertest.Principal(t, "*")))
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
				t.Fatalf("%d %s, want %d with %q", w.Code, w.Body, tc.status, tc.want)
			}
			if tc.wantPath == "" {
				return
			}
			if got == nil {
				t.Fatal("nothing forwarded")
			}
			if got.URL.EscapedPath() != tc.wantPath || got.Method != tc.method {
				t.Errorf("forwarded %s %s, want %s", got.Method, got.URL.EscapedPath(), tc.wantPath)
			}
			if got.Header.Get("Authorization") != "Basic dXNlcjpwdw==" {
				t.Errorf("credentials not forwarded: %q", got.Header.Get("Authorization"))
			}
			if gotBody != tc.body {
				t.Errorf("body %q, want %q", gotBody, tc.body)
			}
			if strings.Contains(tc.path, "?") && got.URL.RawQuery != "x=1" {
				t.Errorf("query %q", got.URL.RawQuery)
			}
		})
	}
}

// Cluster-wide listings hold every live node's answer, keyed by node id;
// null for a node that failed.
func TestEveryNode(t *testing.T) {
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"subsystems":{"indexer":{"level":"debug"}}}`))
	}))
	defer remote.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer broken.Close()
	local := localRoutes()
	h := NewHandler("self", local).SetPeers(peers{"self": "", "other": remote.URL, "broken": broken.URL}, nil, time.Second)
	r := httptest.NewRequest("GET", "/cluster/system/loggers/subsystems", nil)
	r = r.WithContext(auth.WithPrincipal(r.Context(), routertest.Principal(t, "*")))
	w := httptest.NewRecorder()
	routertest.Handler(h.Routes()).ServeHTTP(w, r)
	var out map[string]struct {
		Subsystems map[string]struct{ Level string } `json:"subsystems"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != 200 {
		t.Fatalf("%d %s: %v", w.Code, w.Body, err)
	}
	if !strings.Contains(w.Body.String(), `"broken":null`) {
		t.Errorf("failed node not null: %s", w.Body)
	}
	if len(out) != 3 || out["other"].Subsystems["indexer"].Level != "debug" || out["self"].Subsystems["indexer"].Level != "info" {
		t.Errorf("answers %s", w.Body)
	}
}

func TestFill(t *testing.T) {
	vars := map[string]string{"a": "x/y", "b": "z"}
	for tmpl, want := range map[string]string{
		"/p":            "/p",
		"/p/{a}/q/{b}":  "/p/x%2Fy/q/z",
		"/p/{b:[a-z]+}": "/p/z",
		"/p/{missing}":  "/p/",
		"/p/}{":         "/p/}{",
	} {
		if got := fill(tmpl, vars); got != want {
			t.Errorf("fill(%q) = %q, want %q", tmpl, got, want)
		}
	}
}

// Path values from the client must not change the forwarded path's shape:
// no extra segments, no query, no fragment.
func FuzzFill(f *testing.F) {
	for _, s := range []string{"node", "../../users", "a?b=c#d", "%2F", "", "{x}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out := fill("/system/metrics/namespace/{namespace}/x", map[string]string{"namespace": v})
		u, err := url.Parse("http://h" + out)
		if err != nil {
			t.Fatalf("fill(%q) = %q: %v", v, out, err)
		}
		if u.RawQuery != "" || u.Fragment != "" || strings.Count(u.EscapedPath(), "/") != 5 {
			t.Fatalf("fill(%q) = %q changes the path", v, out)
		}
		if got, err := url.PathUnescape(strings.Split(u.EscapedPath(), "/")[4]); err != nil || got != v {
			t.Fatalf("fill(%q): segment decodes to %q (%v)", v, got, err)
		}
	})
}

// localRoutes are the node-local routes the cluster variants reach: the
// loggers' and metrics', and a journal that answers its state.
func localRoutes() []api.Route {
	journal := api.Route{Method: "GET", Path: "/system/journal", Handler: func(w http.ResponseWriter, _ *http.Request) error {
		api.WriteJSON(w, http.StatusOK, map[string]bool{"enabled": true})
		return nil
	}}
	return slices.Concat(loggers.New(slog.DiscardHandler).Routes(), metrics.New(time.Now).Routes(), []api.Route{journal})
}
