package node_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Without web_interface_dir, / is loggate's own interface (TestWebInterfaceDir:
// with it, the operator's), and the API stays under /api.
func TestOwnInterface(t *testing.T) {
	h := nodetest.Start(t)
	site := strings.TrimSuffix(h.URL, "/api")
	for _, p := range []string{"/", "/search?q=*&rangetype=relative&relative=300", "/system/users/tokens/local:admin"} {
		resp, err := http.Get(site + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `<div id="app">`) || !strings.Contains(string(b), `/ui/`) {
			t.Errorf("GET %s: %d, want loggate's interface:\n%s", p, resp.StatusCode, b)
		}
	}
	h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/no/such/resource", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "HTTP 404 Not Found")
}
