package node_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestExtractorTryRegex33 is the "Try" button of Graylog 3.3's extractor
// page (a regex extractor, and a regex condition), through a listener
// pinned to 3.3: ToolsStore.testRegex POSTs {regex, string} to
// /tools/regex_tester and reads matched and match.{match,start,end}.
func TestExtractorTryRegex33(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "3.3"}}
	}))
	sid := h.Login(nodetest.RootUser, nodetest.RootPassword)
	as33 := []nodetest.ReqOption{nodetest.Via(h.Node.CompatAddrs()[0]), nodetest.Session(sid),
		nodetest.Header("X-Requested-With", "XMLHttpRequest"), nodetest.Header("X-Requested-By", "XMLHttpRequest")}

	res := h.Do("POST", "/tools/regex_tester", json.RawMessage(`{"regex":"took (\\d+) ms","string":"GET / took 12 ms"}`), as33...).Want(t, http.StatusOK)
	if res.Get("matched").Raw != "true" || res.Get("match.match").String() != "12" || res.Get("match.start").Int() != 11 || res.Get("match.end").Int() != 13 {
		t.Errorf("a match: %s", res.Body)
	}
	// A condition's regex has no group: matched, and no match to show.
	res = h.Do("POST", "/tools/regex_tester", json.RawMessage(`{"regex":"^GET","string":"GET / took 12 ms"}`), as33...).Want(t, http.StatusOK)
	if res.Get("matched").Raw != "true" || res.Get("match").Raw != "null" {
		t.Errorf("a match without a group: %s", res.Body)
	}
	res = h.Do("POST", "/tools/regex_tester", json.RawMessage(`{"regex":"took (\\d+) s","string":"GET / took 12 ms"}`), as33...).Want(t, http.StatusOK)
	if res.Get("matched").Raw != "false" || res.Get("match").Raw != "null" {
		t.Errorf("no match: %s", res.Body)
	}
	h.Do("POST", "/tools/regex_tester", json.RawMessage(`{"regex":"(","string":"x"}`), as33...).Want(t, http.StatusBadRequest)
	h.Do("POST", "/tools/regex_tester", json.RawMessage(`{"regex":"x","string":"x"}`), nodetest.Via(h.Node.CompatAddrs()[0])).Want(t, http.StatusUnauthorized)
}
