package elastic_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/elastic"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// These tests run the store against a real Elasticsearch or OpenSearch
// cluster, named by LOGGATE_TEST_ELASTICSEARCH_URL (Graylog's
// elasticsearch_hosts syntax). Every store gets a namespace of its own,
// deleted when the test ends, so tests run in parallel on one cluster.

const skipMsg = "LOGGATE_TEST_ELASTICSEARCH_URL not set: Elasticsearch store not tested"

// serverHosts returns the cluster to test against, or skips the test
// loudly. A cluster that is set but does not answer skips too, unless
// LOGGATE_REQUIRE_SERVICES=1, which fails the test instead.
func serverHosts(tb testing.TB) []string {
	tb.Helper()
	v := os.Getenv("LOGGATE_TEST_ELASTICSEARCH_URL")
	if v == "" {
		tb.Skip(skipMsg)
	}
	hosts := elastic.SplitHosts(v)
	s, err := elastic.Open(tb.Context(), elastic.Options{Hosts: hosts, Timeout: 5 * time.Second, Namespace: "loggate-probe-"})
	if errors.Is(err, messages.ErrUnavailable) {
		if os.Getenv("LOGGATE_REQUIRE_SERVICES") == "1" {
			tb.Fatalf("LOGGATE_REQUIRE_SERVICES=1 but the Elasticsearch cluster of LOGGATE_TEST_ELASTICSEARCH_URL does not answer: %v", err)
		}
		tb.Skipf("SKIPPED: the Elasticsearch cluster of LOGGATE_TEST_ELASTICSEARCH_URL does not answer: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	dropNamespace(tb, hosts, "loggate-probe-")
	_ = s.Close()
	return hosts
}

// newNamespace returns a namespace of the test's own, whose indices and
// templates are deleted when the test ends.
func newNamespace(tb testing.TB, hosts []string) string {
	tb.Helper()
	ns := "lgt-" + strings.ToLower(rand.Text()[:10]) + "-"
	tb.Cleanup(func() { dropNamespace(tb, hosts, ns) })
	return ns
}

// dropNamespace deletes the indices and templates of ns. It talks HTTP
// directly: the store deletes nothing it does not manage.
func dropNamespace(tb testing.TB, hosts []string, ns string) {
	tb.Helper()
	base := strings.TrimSuffix(hosts[0], "/")
	for _, path := range []string{"/" + ns + "*?expand_wildcards=all", "/_template/" + ns + "*"} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, base+path, nil)
		if err != nil {
			tb.Errorf("drop %s: %v", ns, err)
			return
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			tb.Errorf("drop %s: %v", ns, err)
			return
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotFound {
			tb.Errorf("DELETE %s: status %d", path, res.StatusCode)
		}
	}
}

func open(tb testing.TB, hosts []string, ns string) *elastic.Store {
	tb.Helper()
	s, err := elastic.Open(tb.Context(), elastic.Options{
		Hosts:     hosts,
		Namespace: ns,
		// One shard, so that dynamic mappings are decided by the first
		// document of a bulk request, in order.
		Shards: 1,
	})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	return s
}

func TestContract(t *testing.T) {
	hosts := serverHosts(t)
	messagestest.Run(t, messagestest.Factory{
		Open: func(t *testing.T) messages.Store {
			t.Helper()
			return open(t, hosts, newNamespace(t, hosts))
		},
		Reopen: func(t *testing.T, s messages.Store) messages.Store {
			t.Helper()
			ns := s.(*elastic.Store).Namespace()
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return open(t, hosts, ns)
		},
		// No Crash: every Write that returned is durable in the cluster
		// (see state.go), so a crash of loggate loses nothing.
	})
}

func BenchmarkContract(b *testing.B) {
	hosts := serverHosts(b)
	messagestest.Bench(b, func(b *testing.B) messages.Store {
		s := open(b, hosts, newNamespace(b, hosts))
		b.Cleanup(func() { _ = s.Close() })
		return s
	})
}
