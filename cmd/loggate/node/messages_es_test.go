package node_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

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
	root := nodetest.AsRoot()
	_, addr := createInput(t, h, httpInput)
	send := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			body := gelfJSON("es-outage", fmt.Sprintf("message %d", i), float64(time.Now().Add(-time.Minute).Unix()), fmt.Sprintf(`,"_n":%d`, i))
			resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("message %d: %d", i, resp.StatusCode)
			}
		}
	}
	send(0, 20)
	waitProcessed(t, h, 20)

	p.Down()
	send(20, 60)
	deadline := time.Now().Add(60 * time.Second)
	for h.Node.Messages.Processor.State().Failing == "" {
		if time.Now().After(deadline) {
			t.Fatal("the processor never reported the outage")
		}
		time.Sleep(10 * time.Millisecond) // polling an observable condition
	}
	h.Do("GET", "/search/universal/relative?query=*&range=0", nil, root).Want(t, http.StatusServiceUnavailable)

	if err := p.Up(); err != nil {
		t.Fatal(err)
	}
	waitProcessed(t, h, 60)
	res := h.Do("GET", "/search/universal/relative?query=source:es-outage&range=0&limit=100&fields=n", nil, root).Want(t, http.StatusOK)
	seen := map[int64]int{}
	for _, n := range res.Get("messages.#.message.n").Array() {
		seen[n.Int()]++
	}
	for i := int64(0); i < 60; i++ {
		if seen[i] != 1 {
			t.Errorf("message %d found %d times", i, seen[i])
		}
	}
}
