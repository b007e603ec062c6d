package node_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestClusterGETAllocs holds the allocations of an authenticated
// GET /api/cluster through the whole router, in process, at what they are:
// a copy of the request, a context value or a header canonicalised on
// every request shows here first. The writer is reused, so that only the
// router's and the handler's allocations count.
func TestClusterGETAllocs(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumentation allocates")
	}
	h := nodetest.Start(t)
	creds := credentials(t, h)
	for _, c := range []struct {
		kind string
		max  float64
	}{
		{"password", 6},
		{"token", 6},
		{"session", 6},
	} {
		t.Run(c.kind, func(t *testing.T) {
			r := request("GET", "/api/cluster", creds[c.kind])
			w := &reusedWriter{header: http.Header{}}
			serve := func() {
				w.reset()
				h.Node.Router.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					t.Fatalf("status %d: %s", w.code, w.body.String())
				}
			}
			serve() // credentials cached
			if got := testing.AllocsPerRun(200, serve); got > c.max {
				t.Errorf("%v allocations per request, want at most %v", got, c.max)
			}
		})
	}
}

// reusedWriter is an http.ResponseWriter that keeps its header map and body
// buffer from one request to the next.
type reusedWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *reusedWriter) reset() {
	clear(w.header)
	w.code = 0
	w.body.Reset()
}

func (w *reusedWriter) Header() http.Header { return w.header }

func (w *reusedWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *reusedWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}
