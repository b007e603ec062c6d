package search

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/internal/poll"
	"github.com/loggate/loggate/router/routertest"
)

// smallBuffers accepts connections with small socket buffers, so that a
// client that does not read blocks the server's writes after a few
// kilobytes.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestStalledReaderGivesBackItsPlace: a client that asks for an answer and
// stops reading it keeps its search's place only as long as one write may
// block. With search_max_concurrent 1, every other search would otherwise
// be a 503 for as long as that client keeps its connection open.
func TestStalledReaderGivesBackItsPlace(t *testing.T) {
	msgs := generated(2000)
	e := newEnv(t, msgs, msgs[len(msgs)-1].Timestamp.Add(time.Minute),
		Options{MaxConcurrent: 1, MaxQueueDuration: 20 * time.Millisecond, WriteStall: 200 * time.Millisecond})
	admin := routertest.Principal(t, "*")
	h := routertest.Handler(NewHandler(e.svc).Routes())
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), admin)))
	}))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	for _, path := range []string{
		"/search/universal/relative/export?query=*&range=0&fields=message,source",
		"/search/universal/relative?query=*&range=0&limit=2000",
	} {
		t.Run(path, func(t *testing.T) {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.(*net.TCPConn).SetReadBuffer(4096)
			// Ask, and read nothing.
			if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: loggate\r\nAccept-Encoding: gzip\r\n\r\n", path); err != nil {
				t.Fatal(err)
			}
			status := func() int {
				return routertest.Serve(h, admin, "GET", "/search/universal/relative?query=*&range=0&limit=1", "").Code
			}
			poll.Until(t, "the stalled answer to hold the place", func() bool { return status() == http.StatusServiceUnavailable })
			poll.Until(t, "the place to be given back", func() bool { return status() == http.StatusOK })
		})
	}
}
