package node_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// With web_interface_dir, the operator's Graylog interface is served at /
// beside the API, and its /config.js points it at this node's API.
func TestWebInterfaceDir(t *testing.T) {
	dir := t.TempDir()
	const index = `<!DOCTYPE html><html><body><script src="/config.js"></script><script src="/assets/app.js"></script></body></html>`
	for name, content := range map[string]string{"index.html": index, "app.js": "/* bundle */"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.WebInterfaceDir = dir }))
	site := strings.TrimSuffix(h.URL, "/api")
	fetch := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(site + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, p := range []string{"/", "/search?q=source%3Aweb-1&rangetype=relative&relative=300", "/system/nodes"} {
		if code, body := fetch(p); code != http.StatusOK || body != index {
			t.Errorf("GET %s: %d %q, want the interface's page", p, code, body)
		}
	}
	if code, body := fetch("/assets/app.js"); code != http.StatusOK || body != "/* bundle */" {
		t.Errorf("GET /assets/app.js: %d %q", code, body)
	}
	if _, body := fetch("/config.js"); !strings.Contains(body, `"gl2ServerUrl":"`+h.URL+`/"`) {
		t.Errorf("/config.js does not point at %s/: %s", h.URL, body)
	}
	// The API is still the API, its misses Graylog's JSON 404.
	h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/no/such/resource", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "HTTP 404 Not Found")
}

// A directory without a built interface stops the start, saying what is
// missing, before anything is written to data_dir.
func TestWebInterfaceDirWithoutInterface(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.HTTPBindAddress = "127.0.0.1:0"
	cfg.WebInterfaceDir = t.TempDir()
	_, err := node.New(context.Background(), cfg, node.Options{})
	if err == nil || !strings.Contains(err.Error(), "web_interface_dir") || !strings.Contains(err.Error(), "index.html") {
		t.Fatalf("New: %v, want an error naming web_interface_dir and what is missing", err)
	}
	if _, err := os.Stat(cfg.DataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data_dir was created (stat: %v)", err)
	}
}
