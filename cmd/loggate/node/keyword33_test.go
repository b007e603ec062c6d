package node_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestKeywordTimeRange33 is the search page of Graylog 3.3's web interface
// with a keyword time range, through a listener pinned to 3.3. Choosing
// "Keyword" fills in "Last five minutes" (TimerangeForForm.js); the range
// selector asks GET /tools/natural_date_tester?string=<keyword> for its
// preview when it appears and validates every keyword typed with it (a
// failure marks the field invalid, and the search cannot be submitted),
// reading from and to; then the search runs with
// {"type":"keyword","keyword":…} and reads the messages.
func TestKeywordTimeRange33(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "3.3"}}
	}))
	_, addr := h.CreateInput(httpInput)
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json",
		strings.NewReader(gelfJSON("web-1", "GET /index.html 200", float64(time.Now().Add(-time.Minute).Unix()), "")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.WaitProcessed(1)
	sid := h.Login(nodetest.RootUser, nodetest.RootPassword)
	as33 := []nodetest.ReqOption{nodetest.Via(h.Node.CompatAddrs()[0]), nodetest.Session(sid),
		nodetest.Header("X-Requested-With", "XMLHttpRequest"), nodetest.Header("X-Requested-By", "XMLHttpRequest")}

	for _, kw := range []string{"Last five minutes", "Last five Minutes", "last 5 minutes", "last twenty-five minutes", "three hours ago", "yesterday"} {
		res := h.Do("GET", "/tools/natural_date_tester?string="+url.QueryEscape(kw), nil, as33...).Want(t, http.StatusOK)
		from, to := res.Get("from").String(), res.Get("to").String()
		f, err1 := time.Parse("2006-01-02 15:04:05", from)
		e, err2 := time.Parse("2006-01-02 15:04:05", to)
		if err1 != nil || err2 != nil || !f.Before(e) {
			t.Errorf("%q: from and to as Graylog writes them (yyyy-MM-dd HH:mm:ss, UTC), from before to: %s", kw, res.Body)
		}
	}
	h.Do("GET", "/tools/natural_date_tester?string="+url.QueryEscape("no date in here"), nil, as33...).Want(t, http.StatusUnprocessableEntity)
	h.Do("GET", "/tools/natural_date_tester", nil, as33...).Want(t, http.StatusBadRequest)
	h.Do("GET", "/tools/natural_date_tester?string=yesterday", nil, nodetest.Via(h.Node.CompatAddrs()[0])).Want(t, http.StatusUnauthorized)

	search := json.RawMessage(`{"id":"5d6ce7bd5d1eb45af53439a0","queries":[{"id":"q1","query":{"type":"elasticsearch","query_string":"source:web-1"},
		"timerange":{"type":"keyword","keyword":"Last five minutes"},
		"search_types":[{"offset":0,"streams":[],"decorators":[],"type":"messages","id":"m1","limit":150,"sort":[{"field":"timestamp","order":"DESC"}]}]}],"parameters":[]}`)
	h.Do("POST", "/views/search", search, as33...).Want(t, http.StatusCreated)
	job := h.Do("POST", "/views/search/5d6ce7bd5d1eb45af53439a0/execute", json.RawMessage(`{"parameter_bindings":{}}`), as33...).Want(t, http.StatusCreated)
	if job.Get("errors.#").Int() != 0 || job.Get("results.q1.search_types.m1.total_results").Int() != 1 {
		t.Errorf("search over \"Last five minutes\": %s", job.Body)
	}
}
