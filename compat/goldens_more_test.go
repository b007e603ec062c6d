package compat_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Golden exchanges of the changes that alter requests rather than bodies:
// a pre-2.2 stream without an index set, and a pre-2.5 pinned client
// without X-Requested-By (refused for a client that only claims the release).
func TestRequestChangesGolden(t *testing.T) {
	h := nodetest.Start(t)
	gm := h.CreateUser("GM", "superpower", "Admin")
	user := nodetest.Basic("GM", "superpower")
	pinned := h.Do("POST", "/users/"+gm+"/tokens/old?api_release=2.4", nil, user).Want(t, http.StatusOK)
	is := h.Do("GET", "/system/indices/index_sets", nil, user).Get(`index_sets.#(default==true).id`).String()
	names := map[string]string{pinned.Get("token").String(): "<token>", is: "<default index set>", gm: "<id of GM>"}
	noCSRF := nodetest.Header("X-Requested-By", "")

	for _, c := range []struct {
		name, release, path string
		body                any
		opts                []nodetest.ReqOption
		status              int
	}{
		{"2.1/create-stream-without-index-set", "2.1", "/streams", map[string]any{"title": "old"}, []nodetest.ReqOption{user}, http.StatusCreated},
		{"2.2/create-stream-without-index-set", "2.2", "/streams", map[string]any{"title": "new"}, []nodetest.ReqOption{user}, http.StatusBadRequest},
		{"2.4/pinned-token-without-csrf-header", "", "/users/GM/tokens/cron", nil, []nodetest.ReqOption{nodetest.Token(pinned.Get("token").String()), noCSRF}, http.StatusOK},
		{"2.4/header-claim-without-csrf-header", "2.4", "/users/GM/tokens/cron", nil, []nodetest.ReqOption{user, noCSRF}, http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			if c.release != "" {
				opts = append(opts, nodetest.Header("X-API-Version", c.release))
			}
			r := h.Do("POST", c.path+"?pretty=true", c.body, opts...)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Body)
			}
			if c.status == http.StatusCreated {
				s := h.Do("GET", "/streams/"+r.Get("stream_id").String(), nil, user).Want(t, http.StatusOK)
				if s.Get("index_set_id").String() != is {
					t.Errorf("stream index set %s, want the default %s", s.Get("index_set_id"), is)
				}
			}
			ex := exchange{method: "POST", path: c.path + "?pretty=true", release: c.release}
			compare(t, filepath.Join("..", "fixtures", "compat", "requests", c.name+".golden"), render(ex, r, names))
		})
	}
}
