package sidecars_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/router/routertest"
)

// settings is a cluster configuration holding the Sidecar settings doc.
type settings struct{ doc json.RawMessage }

func (s settings) Get(_ context.Context, class string) (json.RawMessage, error) {
	if class != sidecars.SettingsClass {
		return nil, nil
	}
	return s.doc, nil
}

type env struct {
	t     testing.TB
	path  string
	clock *testclock.Clock
	svc   *sidecars.Service
	h     http.Handler
	conf  sidecars.ClusterConfig
	close func() error
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), clock: testclock.New(time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC))}
	e.open()
	return e
}

// open opens the service on the env's store file, as a node start does.
func (e *env) open() {
	e.t.Helper()
	if e.close != nil {
		_ = e.close()
	}
	st, err := bolt.Open(e.path, nil)
	if err != nil {
		e.t.Fatalf("bolt.Open: %v", err)
	}
	e.close = st.Close
	e.t.Cleanup(func() { _ = st.Close() })
	svc, err := sidecars.NewService(context.Background(), st, e.conf, e.clock.Now)
	if err != nil {
		e.t.Fatalf("NewService: %v", err)
	}
	e.svc = svc
	e.h = routertest.Handler(sidecars.NewHandler(svc).Routes())
}

// admin holds every Sidecar permission.
var admin = []string{"sidecars:*", "sidecar_collectors:*", "sidecar_collector_configurations:*"}

type call struct {
	method, path, body string
	perms              []string // nil: anonymous
	header             map[string]string
}

type result struct {
	*httptest.ResponseRecorder
}

func (r result) get(path string) gjson.Result { return gjson.GetBytes(r.Body.Bytes(), path) }

func (e *env) do(c call) result {
	e.t.Helper()
	r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	if c.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	if c.perms != nil {
		r = r.WithContext(auth.WithPrincipal(r.Context(), routertest.Principal(e.t, c.perms...)))
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return result{w}
}

// as makes a request with every Sidecar permission that must answer want.
func (e *env) as(method, path, body string, want int) result {
	e.t.Helper()
	res := e.do(call{method: method, path: path, body: body, perms: admin})
	if res.Code != want {
		e.t.Fatalf("%s %s: %d %s, want %d", method, path, res.Code, res.Body, want)
	}
	return res
}

// register sends a Sidecar's heartbeat.
func (e *env) register(nodeID, name, os string, status int) result {
	e.t.Helper()
	body := `{"node_name":"` + name + `","node_details":{"operating_system":"` + os + `","ip":"10.0.0.1","metrics":null,"log_file_list":null,` +
		`"status":{"status":` + itoa(status) + `,"message":"m","collectors":[{"collector_id":"c1","status":` + itoa(status) + `,"message":"x","verbose_message":""}]}}}`
	res := e.do(call{method: "PUT", path: "/sidecars/" + nodeID, body: body, perms: admin, header: map[string]string{sidecars.VersionHeader: "1.0.2"}})
	if res.Code != http.StatusAccepted {
		e.t.Fatalf("register %s: %d %s", nodeID, res.Code, res.Body)
	}
	return res
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// collectorID returns the id of the stored collector of name and os.
func (e *env) collectorID(name, os string) string {
	e.t.Helper()
	cs, err := e.svc.Collectors(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range cs {
		if c.Name == name && c.NodeOperatingSystem == os {
			return c.ID
		}
	}
	e.t.Fatalf("no collector %s on %s", name, os)
	return ""
}

// configuration creates a configuration and returns its id.
func (e *env) configuration(collectorID, name, template string) string {
	e.t.Helper()
	b, _ := json.Marshal(map[string]string{"collector_id": collectorID, "name": name, "color": "#ffffff", "template": template})
	return e.as("POST", "/sidecar/configurations", string(b), http.StatusOK).get("id").String()
}
