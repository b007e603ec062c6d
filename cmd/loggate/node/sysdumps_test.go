package node_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The system routes Graylog 4.0's web interface calls on its nodes, logging
// and input pages: thread and process buffer dumps, recent log messages,
// codecs and raw message parsing, and message analysis; each refused
// without its permission.
func TestSystemDumpsAndMessageTools(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	id := h.Do("GET", "/", nil).Get("node_id").String()
	// Not a Reader, which holds messages:analyze in Graylog.
	h.Do("POST", "/roles", map[string]any{"name": "Other", "permissions": []string{"metrics:read"}}, root).Want(t, http.StatusCreated)
	h.CreateUser("plain", "pw", "Other")
	plain := nodetest.Basic("plain", "pw")
	h.Do("POST", "/roles", map[string]any{"name": "Dumper", "permissions": []string{
		"threads:dump", "processbuffer:dump", "loggersmessages:read", "messages:analyze",
	}}, root).Want(t, http.StatusCreated)
	h.CreateUser("dumper", "pw", "Dumper")
	dumper := nodetest.Basic("dumper", "pw")

	// A log record to find among the recent ones.
	h.Do("PUT", "/system/loggers/loggate.indexer/level/debug", nil, root).Want(t, http.StatusNoContent)

	for _, tc := range []struct {
		method, path string
		body         any
		check        func(t *testing.T, r *nodetest.Response)
	}{
		{"GET", "/system/threaddump", nil, func(t *testing.T, r *nodetest.Response) {
			if !strings.HasPrefix(r.Get("threaddump").String(), "goroutine ") {
				t.Errorf("threaddump %.200s", r.Body)
			}
		}},
		{"GET", "/cluster/" + id + "/threaddump", nil, func(t *testing.T, r *nodetest.Response) {
			if !strings.Contains(r.Get("threaddump").String(), "goroutine ") {
				t.Errorf("cluster threaddump %.200s", r.Body)
			}
		}},
		{"GET", "/system/processbufferdump", nil, func(t *testing.T, r *nodetest.Response) {
			if d := r.Get("processbuffer_dump").Map(); len(d) != 1 || !strings.HasPrefix(d["ProcessBufferProcessor #0"].String(), "idle") &&
				!strings.HasPrefix(d["ProcessBufferProcessor #0"].String(), "processing journal offsets") {
				t.Errorf("processbuffer_dump %s", r.Body)
			}
		}},
		{"GET", "/cluster/processbufferdump", nil, func(t *testing.T, r *nodetest.Response) {
			if !r.Get(id + ".processbuffer_dump").IsObject() {
				t.Errorf("cluster processbuffer_dump %s", r.Body)
			}
		}},
		{"GET", "/cluster/" + id + "/processbufferdump", nil, func(t *testing.T, r *nodetest.Response) {
			if !r.Get("processbuffer_dump").IsObject() {
				t.Errorf("node processbuffer_dump %s", r.Body)
			}
		}},
		{"GET", "/system/loggers/messages/recent?limit=500", nil, func(t *testing.T, r *nodetest.Response) {
			found := false
			for _, m := range r.Get("messages").Array() {
				if m.Get("message").String() == "log level changed" && m.Get("class_name").String() != "" &&
					m.Get("level").String() == "INFO" && m.Get("context.logger_name").String() == "loggate.indexer" {
					found = true
				}
			}
			if !found {
				t.Errorf("the level change is not among the recent messages: %.2000s", r.Body)
			}
		}},
		{"GET", "/messages/graylog_0/analyze?string=" + url.QueryEscape("Failed login for Admin from 10.0.0.1"), nil, func(t *testing.T, r *nodetest.Response) {
			if got := r.Get("tokens").Raw; got != `["failed","login","for","admin","from","10.0.0.1"]` {
				t.Errorf("tokens %s", r.Body)
			}
		}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			tc.check(t, h.Do(tc.method, tc.path, tc.body, dumper).Want(t, http.StatusOK))
			h.Do(tc.method, tc.path, tc.body, plain).Want(t, http.StatusForbidden)
			h.Do(tc.method, tc.path, tc.body).Want(t, http.StatusUnauthorized)
		})
	}

	// Any authenticated user may list the codecs and parse with them.
	codecs := h.Do("GET", "/system/codecs/types/all", nil, plain).Want(t, http.StatusOK)
	if codecs.Get("gelf.name").String() != "GELF" || !codecs.Get("gelf.requested_configuration.override_source").Exists() {
		t.Errorf("codecs %s", codecs.Body)
	}
	parsed := h.Do("POST", "/messages/parse", map[string]any{
		"message": `{"version":"1.1","host":"web-1","short_message":"GET / 200","_took_ms":12}`, "codec": "gelf",
		"remote_address": "10.1.2.3", "configuration": map[string]any{},
	}, plain).Want(t, http.StatusOK)
	if m := parsed.Get("message"); m.Get("source").String() != "web-1" || m.Get("fields.took_ms").Int() != 12 || m.Get("id").String() == "" || parsed.Get("index").Type.String() != "Null" {
		t.Errorf("parsed %s", parsed.Body)
	}
	h.Do("POST", "/messages/parse", map[string]any{"message": "x", "codec": "syslog", "remote_address": "10.1.2.3"}, plain).
		WantError(t, http.StatusNotFound, "Codec type syslog does not exist.")
	h.Do("POST", "/messages/parse", map[string]any{"message": "not gelf", "codec": "gelf", "remote_address": "10.1.2.3"}, plain).
		WantError(t, http.StatusBadRequest, "Could not decode message")
	h.Do("GET", "/messages/nosuch_0/analyze?string=a", nil, root).WantError(t, http.StatusNotFound, "Index nosuch_0 does not exist.")
	h.Do("GET", "/cluster/other-node/threaddump", nil, root).WantError(t, http.StatusNotFound, "Node other-node not found")
}
