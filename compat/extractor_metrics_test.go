package compat_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Clients older than 2.2 see an extractor's metrics as 2.0 and 2.1 had
// them, total and converters only; 2.2 and later see all six.
func TestExtractorMetricsGolden(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	input := h.Do("POST", "/system/inputs", map[string]any{"title": "gelf", "type": nodetest.GELFHTTP, "global": true,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": 1}}, root).Want(t, http.StatusCreated).Get("id").String()
	body := map[string]any{"title": "took", "cut_or_copy": "copy", "source_field": "message", "target_field": "took_ms",
		"extractor_type": "regex", "extractor_config": map[string]any{"regex_value": `took (\d+) ms`},
		"converters": map[string]any{"numeric": map[string]any{}}, "condition_type": "none", "condition_value": ""}
	ex := h.Do("POST", "/system/inputs/"+input+"/extractors", body, root).Want(t, http.StatusCreated).Get("extractor_id").String()
	names := map[string]string{ex: "<extractor id>", input: "<input id>"}
	for _, rel := range []string{"2.1", "2.2"} {
		for _, c := range []struct {
			name, method, path string
			body               any
		}{
			{"list", "GET", "/system/inputs/" + input + "/extractors?pretty=true", nil},
			{"show", "GET", "/system/inputs/" + input + "/extractors/" + ex + "?pretty=true", nil},
			{"update", "PUT", "/system/inputs/" + input + "/extractors/" + ex + "?pretty=true", body},
		} {
			t.Run(rel+"/"+c.name, func(t *testing.T) {
				r := h.Do(c.method, c.path, c.body, root, nodetest.Header("X-API-Version", rel)).Want(t, http.StatusOK)
				metrics := r.Get("metrics")
				if c.name == "list" {
					metrics = r.Get("extractors.0.metrics")
				}
				if got, want := metrics.Get("condition_hits").Exists(), rel == "2.2"; got != want || !metrics.Get("total").Exists() || !metrics.Get("converters").Exists() {
					t.Errorf("%s client: %s", rel, metrics.Raw)
				}
				x := exchange{method: c.method, path: strings.NewReplacer(input, "{input}", ex, "{extractor}").Replace(c.path), release: rel}
				compare(t, filepath.Join("..", "fixtures", "compat", rel, "extractor-metrics-"+c.name+".golden"), render(x, r, names))
			})
		}
	}
}
