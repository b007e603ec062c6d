package api_test

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// headerOnly is a ResponseWriter that keeps one header map across writes,
// as a reused connection's response does not; it counts what WriteRawJSON
// itself allocates.
type headerOnly struct{ h http.Header }

func (w *headerOnly) Header() http.Header         { return w.h }
func (w *headerOnly) WriteHeader(int)             {}
func (w *headerOnly) Write(b []byte) (int, error) { return len(b), nil }

// A raw JSON answer carries its length whatever its size; a small one's
// headers cost no allocation, and appending to a shared length value does
// not change it for the next answer.
func TestWriteRawJSONHeaders(t *testing.T) {
	for _, n := range []int{0, 7, 300, 4095, 4096, 100_000} {
		w := &headerOnly{h: http.Header{}}
		api.WriteRawJSON(w, http.StatusOK, bytes.Repeat([]byte{' '}, n))
		if got := w.h.Values("Content-Length"); len(got) != 1 || got[0] != strconv.Itoa(n) {
			t.Errorf("%d bytes: Content-Length %q", n, got)
		}
		if got := w.h.Get("Content-Type"); got != "application/json" {
			t.Errorf("%d bytes: Content-Type %q", n, got)
		}
	}
	w := &headerOnly{h: http.Header{}}
	body := []byte(`{"a":1}`)
	api.WriteRawJSON(w, http.StatusOK, body)
	w.h.Add("Content-Length", "99")
	next := &headerOnly{h: http.Header{}}
	api.WriteRawJSON(next, http.StatusOK, body)
	if got := next.h.Values("Content-Length"); len(got) != 1 || got[0] != "7" {
		t.Errorf("a shared value was changed: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { api.WriteRawJSON(next, http.StatusOK, body) }); n != 0 {
		t.Errorf("WriteRawJSON of a small answer: %v allocations", n)
	}
}
