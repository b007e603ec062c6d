package nodetest

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/internal/testclock"
)

// StartGateway starts a loggate in upstream mode (node.NewGateway) in front
// of the API at upstreamURL, e.g. the URL of a node started with Start,
// listening on a loopback port. Its Do, Login and the like go through the
// gateway; Restart is for native nodes only.
func StartGateway(t testing.TB, upstreamURL string, opts ...Option) *Harness {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.HTTPBindAddress = "127.0.0.1:0"
	cfg.HTTPPublishURI = "http://127.0.0.1:0/"
	cfg.PasswordSecret = Secret
	cfg.UpstreamURI = upstreamURL
	for _, o := range opts {
		o(&cfg)
	}
	h := &Harness{t: t, Config: cfg, Clock: testclock.New(time.Now()), logs: &syncBuffer{b: &bytes.Buffer{}}}
	n, err := node.NewGateway(context.Background(), cfg, node.Options{LogSink: loggers.NewTextSink(h.logs), Now: h.Clock.Now})
	if err != nil {
		t.Fatalf("start gateway: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, func(a net.Addr) { ready <- a }) }()
	select {
	case addr := <-ready:
		h.URL = "http://" + addr.String() + "/api"
	case err := <-done:
		cancel()
		_ = n.Close()
		t.Fatalf("serve gateway: %v", err)
	}
	h.Node = n
	h.stop = func() {
		cancel()
		if err := <-done; err != nil && err != http.ErrServerClosed {
			t.Errorf("serve gateway: %v", err)
		}
		if err := n.Close(); err != nil {
			t.Errorf("close gateway: %v", err)
		}
	}
	t.Cleanup(h.Stop)
	return h
}
