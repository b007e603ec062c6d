package sidecars_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// FuzzRegister sends a Sidecar's registration, outside input from any
// host holding a Sidecar token: a 202 or a 400 in Graylog's error shape,
// never a 500 or a panic; a registered Sidecar reads back.
func FuzzRegister(f *testing.F) {
	for _, seed := range []string{
		`{"node_name":"web-1","node_details":{"operating_system":"linux","ip":"10.0.0.1","metrics":{"disks_75":[],"cpu_idle":97.5,"load_1":0.25},"log_file_list":[{"path":"/var/log","mod_time":"2021-03-04T05:06:07.000Z","size":12,"is_dir":true}],"status":{"status":0,"message":"ok","collectors":[{"collector_id":"c1","status":2,"message":"x","verbose_message":"y"}]}}}`,
		`{"node_name":"","node_details":{"operating_system":"windows"}}`,
		`{"node_details":null}`, `{}`, `[]`, `null`, ``,
	} {
		f.Add("node-1", seed)
	}
	e := newEnv(f)
	ctx := auth.WithPrincipal(context.Background(), routertest.Principal(f, "sidecars:*"))
	f.Fuzz(func(t *testing.T, nodeID, body string) {
		r := httptest.NewRequestWithContext(ctx, "PUT", "/sidecars/x", strings.NewReader(body))
		r.URL.Path, r.URL.RawPath = "/sidecars/"+nodeID, "" // any id, as a Sidecar may send it
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(sidecars.VersionHeader, "1.1.0")
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusAccepted:
			if _, err := e.svc.Sidecar(context.Background(), nodeID); err != nil {
				t.Errorf("registered %q, then: %v", nodeID, err)
			}
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusMovedPermanently:
			// A refused body, or an id no route takes (empty, with a
			// slash, a dot segment).
			if w.Code == http.StatusBadRequest {
				var eb api.ErrorBody
				if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Message == "" {
					t.Errorf("400 without Graylog's error shape: %s", w.Body)
				}
			}
		default:
			t.Fatalf("PUT /sidecars/%q: %d %s", nodeID, w.Code, w.Body)
		}
	})
}
