package router_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// flushRecorder is an httptest.ResponseRecorder that counts the bytes the
// handler got onto the wire, as a client would see them arrive.
type flushRecorder struct {
	*httptest.ResponseRecorder
	flushed int
}

func (f *flushRecorder) Flush() {
	f.ResponseRecorder.Flush()
	f.flushed = f.Body.Len()
}

// pretty=true reformats JSON answers only: a streamed answer of another
// type (a CSV export of any number of messages) is streamed as it is, not
// held in memory whole until the handler ends.
func TestPrettyStreamsOtherAnswers(t *testing.T) {
	const chunk = 64 << 10
	var onWire int
	var flushErr error
	var rec *flushRecorder
	routes := []api.Route{
		{Method: "GET", Path: "/export", Public: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(strings.Repeat("x", chunk)))
			flushErr = http.NewResponseController(w).Flush()
			onWire = rec.flushed
			_, _ = w.Write([]byte("end"))
			return nil
		}},
		{Method: "GET", Path: "/json", Public: true, Handler: api.JSON(func(*http.Request) (any, error) {
			return map[string]int{"a": 1}, nil
		})},
	}
	rt := router.New(router.Options{Routes: routes})

	rec = &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	rt.ServeHTTP(rec, httptest.NewRequest("GET", router.Prefix+"/export?pretty=true", nil))
	if flushErr != nil || onWire != chunk {
		t.Errorf("a CSV answer with pretty=true: flush %v, %d bytes sent before the handler ended; want nil, %d", flushErr, onWire, chunk)
	}
	if rec.Code != http.StatusOK || rec.Body.Len() != chunk+3 || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Errorf("CSV answer %d, %d bytes, %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Type"))
	}

	rec = &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	rt.ServeHTTP(rec, httptest.NewRequest("GET", router.Prefix+"/json?pretty=true", nil))
	if want := "{\n  \"a\" : 1\n}"; rec.Code != http.StatusOK || rec.Body.String() != want || rec.Header().Get("Content-Length") != "13" {
		t.Errorf("JSON answer %d %q (Content-Length %s), want 200 %q", rec.Code, rec.Body, rec.Header().Get("Content-Length"), want)
	}
}
