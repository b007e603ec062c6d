package node_test

import (
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/servicetest"
)

// elasticURL returns LOGGATE_TEST_ELASTICSEARCH_URL or skips the test.
func elasticURL(t *testing.T) *url.URL {
	t.Helper()
	raw := os.Getenv("LOGGATE_TEST_ELASTICSEARCH_URL")
	if raw == "" {
		t.Skip("SKIPPED: LOGGATE_TEST_ELASTICSEARCH_URL not set: messages on Elasticsearch not tested")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		t.Fatalf("LOGGATE_TEST_ELASTICSEARCH_URL %q is not a URL", raw)
	}
	return u
}

// deleteNamespace removes the indices and templates a test node created.
func deleteNamespace(t *testing.T, es *url.URL, ns string) {
	t.Cleanup(func() {
		for _, path := range []string{"/" + ns + "*", "/_template/" + ns + "*"} {
			req, _ := http.NewRequest("DELETE", es.String()+path, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	})
}

// TestElasticsearchOutage stores messages in Elasticsearch and cuts the
// connection to it (a proxy in between) while messages keep arriving:
// nothing accepted is lost, everything is searchable after recovery.
func TestElasticsearchOutage(t *testing.T) {
	es := elasticURL(t)
	p := servicetest.StartProxy(t, es.Host)
	via := *es
	via.Host = p.Addr()
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.ElasticsearchHosts = []string{via.String()} }))
	deleteNamespace(t, es, h.ElasticNamespace)
	outage(t, h, p.Down, func() {
		h.Do("GET", "/search/universal/relative?query=*&range=0", nil, nodetest.AsRoot()).Want(t, http.StatusServiceUnavailable)
	}, func() {
		if err := p.Up(); err != nil {
			t.Fatal(err)
		}
	})
}
