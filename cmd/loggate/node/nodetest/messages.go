package nodetest

import (
	"context"
	"maps"
	"net"
	"net/http"
	"time"

	"github.com/loggate/loggate/internal/servicetest"
)

// GELF input types, by Graylog's class names.
const (
	GELFHTTP = "org.graylog2.inputs.gelf.http.GELFHttpInput"
	GELFTCP  = "org.graylog2.inputs.gelf.tcp.GELFTCPInput"
	GELFUDP  = "org.graylog2.inputs.gelf.udp.GELFUDPInput"
)

// CreateInput creates a global GELF input of the given type on a free
// loopback port (Graylog refuses port 0) and waits until it listens; it
// returns the input's id and address. settings, if given, add to the
// input's configuration.
func (h *Harness) CreateInput(typ string, settings ...map[string]any) (string, net.Addr) {
	h.t.Helper()
	port, err := servicetest.FreePort()
	if err != nil {
		h.t.Fatal(err)
	}
	cfg := map[string]any{"bind_address": "127.0.0.1", "port": port}
	for _, s := range settings {
		maps.Copy(cfg, s)
	}
	res := h.Do("POST", "/system/inputs", map[string]any{
		"title": typ, "type": typ, "global": true, "configuration": cfg,
	}, AsRoot()).Want(h.t, http.StatusCreated)
	id := res.Get("id").String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if addr, ok := h.Node.Messages.Inputs.Addr(id); ok {
			return id, addr
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("input %s never started: %s", typ, h.Do("GET", "/system/inputstates/"+id, nil, AsRoot()).Body)
		}
		time.Sleep(5 * time.Millisecond) // polling an observable condition
	}
}

// WaitProcessed waits until the node has journaled and processed (written
// to the message store, searchable) n messages.
func (h *Harness) WaitProcessed(n uint64) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := &h.Node.Messages
	for m.Journal.End() < n || m.Processor.State().Next < n {
		if ctx.Err() != nil {
			h.t.Fatalf("processed %d of %d messages (journal end %d)", m.Processor.State().Next, n, m.Journal.End())
		}
		time.Sleep(5 * time.Millisecond) // polling an observable condition
	}
}
