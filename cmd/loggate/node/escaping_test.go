package node_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Answers write <, > and & literally, as Jackson does, on the native path,
// through the compat chain (a 2.4 client's legacy dashboard and its stream
// outputs rewrite) and in the API description.
func TestAnswersKeepHTMLCharacters(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	v24 := nodetest.Header("X-API-Version", "2.4")
	const title = `errors <500> & "timeouts"`
	is := h.Do("GET", "/system/indices/index_sets", nil, root).Get(`index_sets.#(default==true).id`).String()
	sid := h.Do("POST", "/streams", map[string]any{"title": title, "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	dash := h.Do("POST", "/dashboards", map[string]any{"title": title, "description": "a & b"}, root, v24).Want(t, http.StatusCreated).Get("dashboard_id").String()

	literal := []byte(`errors <500> & \"timeouts\"`)
	for _, c := range []struct {
		path string
		opts []nodetest.ReqOption
	}{
		{"/streams/" + sid, nil},
		{"/streams", nil},
		{"/streams/" + sid, []nodetest.ReqOption{v24}},
		{"/dashboards/" + dash, []nodetest.ReqOption{v24}},
		{"/streams/" + sid + "?pretty=true", nil},
	} {
		r := h.Do("GET", c.path, nil, append(c.opts, root)...).Want(t, http.StatusOK)
		if !bytes.Contains(r.Body, literal) || bytes.Contains(r.Body, []byte(`\u003c`)) || bytes.Contains(r.Body, []byte(`\u0026`)) {
			t.Errorf("GET %s %v: %s; want the title written literally", c.path, c.opts != nil, r.Body)
		}
	}
	// Summaries name path values as <username>.
	r := h.Do("GET", "/api-browser/openapi.json", nil, root).Want(t, http.StatusOK)
	if bytes.Contains(r.Body, []byte(`\u003c`)) || bytes.Contains(r.Body, []byte(`\u0026`)) {
		t.Errorf("openapi.json escapes HTML characters")
	}
}
