package elastic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// scanAnswer is a search answer of ids first..first+n-1, each with its sort
// values.
func scanAnswer(first, n int) string {
	var hits []string
	for i := first; i < first+n; i++ {
		hits = append(hits, fmt.Sprintf(`{"_index":"graylog_0","_id":"id-%d","_source":{"timestamp":"2020-12-01 10:00:00.000","gl2_loggate_id":"id-%d"},"sort":[%d,"id-%d"]}`, i, i, 5000-i, i))
	}
	return `{"hits":{"total":{"value":1001,"relation":"eq"},"hits":[` + strings.Join(hits, ",") + `]}}`
}

// A scan pages with search_after on the last hit's sort values, and a
// short scan asks for no more hits than it returns.
func TestScan(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	indicesFake(f)
	// The ranges request of the index listing comes first.
	ranges := `{"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`
	f.on("POST /graylog_*/_search", 200, ranges, reply{200, scanAnswer(0, scanPage)}, reply{200, scanAnswer(scanPage, 1)})
	c, err := s.Scan(t.Context(), messages.Query{Prefixes: []string{"graylog"}, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		h, ok := c.Next()
		if !ok {
			break
		}
		got = append(got, h.Message.ID)
	}
	if len(got) == 0 {
		t.Fatalf("scan: no hits, %v", c.Err())
	}
	if c.Err() != nil || len(got) != scanPage || got[0] != "id-1" || got[len(got)-1] != fmt.Sprint("id-", scanPage) || c.Result().Total != 1001 {
		t.Errorf("scan: %d hits (%v … %v), total %d, %v", len(got), got[:1], got[len(got)-1:], c.Result().Total, c.Err())
	}
	_ = c.Close()
	reqs := f.requests()
	bodies := []string{}
	for _, r := range reqs {
		if strings.Contains(r.Body, `"sort"`) {
			bodies = append(bodies, r.Body)
		}
	}
	if len(bodies) != 2 || strings.Contains(bodies[0], "search_after") ||
		!strings.Contains(bodies[1], fmt.Sprintf(`"search_after":[%d,"id-%d"]`, 5000-(scanPage-1), scanPage-1)) {
		t.Errorf("scan requests: %q", bodies)
	}

	f.on("POST /graylog_*/_search", 200, ranges, reply{200, scanAnswer(0, 3)})
	c, err = s.Scan(t.Context(), messages.Query{Prefixes: []string{"graylog"}, Offset: 1, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ok := c.Next(); ok; _, ok = c.Next() {
		n++
	}
	if n != 2 {
		t.Errorf("limited scan: %d hits, want 2", n)
	}
	asked := 0
	for _, r := range f.requests() {
		if strings.Contains(r.Body, `"sort"`) {
			asked++
			if !strings.Contains(r.Body, `"size":3`) {
				t.Errorf("limited scan asked %s, want size 3", r.Body)
			}
		}
	}
	if asked != 1 {
		t.Errorf("limited scan: %d search requests, want 1", asked)
	}
}
