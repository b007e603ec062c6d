package ingest_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/inputs"
)

func TestApplyLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	udp := input("u1", inputs.GELFUDPType, nil)
	tcp := input("t1", inputs.GELFTCPType, map[string]any{"max_message_size": 4096})
	e.runner.Apply(ctx, []inputs.Input{udp, tcp})
	for _, in := range []inputs.Input{udp, tcp} {
		if st, d := e.state(in); st != inputs.StateRunning || d != "" {
			t.Errorf("%s: state %s %q, want RUNNING", in.ID, st, d)
		}
	}
	first, _ := e.runner.Addr("u1")
	tcpAddr, _ := e.runner.Addr("t1")

	// The same inputs again: nothing restarts (an ephemeral port would
	// change on a restart).
	e.runner.Apply(ctx, []inputs.Input{udp, tcp})
	if again, _ := e.runner.Addr("u1"); again.String() != first.String() {
		t.Errorf("unchanged input restarted: %s then %s", first, again)
	}

	// Static fields change without a restart; processing adds them
	// after the extractors, not the input.
	udp.StaticFields = map[string]string{"env": "prod"}
	e.runner.Apply(ctx, []inputs.Input{udp, tcp})
	if again, _ := e.runner.Addr("u1"); again.String() != first.String() {
		t.Errorf("static field change restarted the input: %s then %s", first, again)
	}
	c := dial(t, "udp", first.String())
	send(t, c, udpMessage(0))
	if f := fieldsOf(e.records(1)[0]); f["env"] != nil {
		t.Errorf("the input added a static field: %v", f)
	}

	// A configuration change restarts the input with the new settings,
	// here on a fixed port taken from the old one's.
	port := first.(*net.UDPAddr).Port
	udp.Configuration = map[string]any{"bind_address": "127.0.0.1", "port": float64(port), "override_source": "changed"}
	e.runner.Apply(ctx, []inputs.Input{udp, tcp})
	if st, d := e.state(udp); st != inputs.StateRunning {
		t.Fatalf("after the change: %s %q", st, d)
	}
	send(t, c, udpMessage(1))
	if f := fieldsOf(e.records(2)[1]); f["source"] != "changed" {
		t.Errorf("restarted input: %v", f)
	}
	// 4096, 4096.0 and "4096" as JSON read it are the same configuration:
	// no restart, so an open connection survives.
	tc := dial(t, "tcp", tcpAddr.String())
	send(t, tc, append([]byte(gelfJSON(2)), 0))
	e.records(3)
	for _, v := range []any{float64(4096), json.Number("4096")} {
		tcp.Configuration["max_message_size"] = v
		e.runner.Apply(ctx, []inputs.Input{udp, tcp})
	}
	send(t, tc, append([]byte(gelfJSON(3)), 0))
	if f := fieldsOf(e.records(4)[3]); f["seq"] != int64(3) {
		t.Errorf("record after the no-op Apply: %v", f)
	}

	// Dropping an input stops it, frees its port and forgets its state.
	e.runner.Apply(ctx, []inputs.Input{udp})
	if _, ok := e.runner.Addr("t1"); ok {
		t.Error("removed input still has an address")
	}
	if st, _ := e.state(tcp); st != inputs.StateCreated {
		t.Errorf("removed input's state %s, want it forgotten (CREATED)", st)
	}
	ln, err := net.Listen("tcp", tcpAddr.String())
	if err != nil {
		t.Errorf("port of the removed input still bound: %v", err)
	} else {
		ln.Close()
	}
}

func TestApplyFailures(t *testing.T) {
	e := newEnv(t, nil)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	other := "another-node"
	tests := []struct {
		name   string
		in     inputs.Input
		state  string
		detail string
	}{
		{"port in use", input("busy", inputs.GELFTCPType, map[string]any{"port": busyPort}), inputs.StateFailed, "address already in use"},
		{"http port in use", input("busyhttp", inputs.GELFHTTPType, map[string]any{"port": busyPort}), inputs.StateFailed, "address already in use"},
		{"unknown type", input("beats", "org.graylog.plugins.beats.Beats2Input", nil), inputs.StateFailed, "cannot be launched"},
		{"bad port", input("badport", inputs.GELFUDPType, map[string]any{"port": "twelve"}), inputs.StateFailed, "port must be a whole number"},
		{"port out of range", input("bigport", inputs.GELFUDPType, map[string]any{"port": 70000}), inputs.StateFailed, "port must be between"},
		{"address not on this host", input("badbind", inputs.GELFUDPType, map[string]any{"bind_address": "192.0.2.1"}), inputs.StateFailed, "cannot assign requested address"},
		{"missing certificate", input("tlsfile", inputs.GELFTCPType, map[string]any{"tls_enable": true, "tls_cert_file": "/nonexistent/cert.pem", "tls_key_file": "/nonexistent/key.pem"}), inputs.StateFailed, "TLS"},
		{"encrypted key", input("tlspass", inputs.GELFHTTPType, map[string]any{"tls_enable": true, "tls_key_password": "secret"}), inputs.StateFailed, "tls_key_password"},
		{"other node", inputs.Input{ID: "elsewhere", Type: inputs.GELFUDPType, Node: &other, Configuration: map[string]any{"port": 0}}, inputs.StateCreated, ""},
		{"this node", inputs.Input{ID: "here", Type: inputs.GELFUDPType, Node: ptr(nodeID), Configuration: map[string]any{"bind_address": "127.0.0.1", "port": 0}}, inputs.StateRunning, ""},
	}
	var all []inputs.Input
	for _, tt := range tests {
		all = append(all, tt.in)
	}
	e.runner.Apply(context.Background(), all)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, d := e.state(tt.in)
			if st != tt.state || !strings.Contains(d, tt.detail) {
				t.Errorf("state %s %q, want %s containing %q", st, d, tt.state, tt.detail)
			}
			if _, ok := e.runner.Addr(tt.in.ID); ok != (tt.state == inputs.StateRunning) {
				t.Errorf("Addr reports running = %v", ok)
			}
		})
	}
	// A failed input is not retried while its configuration is unchanged
	// (Graylog leaves it FAILED), but is once it changes.
	busy.Close()
	e.runner.Apply(context.Background(), all)
	if st, _ := e.state(tests[0].in); st != inputs.StateFailed {
		t.Errorf("unchanged failed input: %s, want still FAILED", st)
	}
	tests[0].in.Configuration["recv_buffer_size"] = 65536
	all[0] = tests[0].in
	e.runner.Apply(context.Background(), all)
	if st, d := e.state(tests[0].in); st != inputs.StateRunning {
		t.Errorf("changed failed input: %s %q, want RUNNING", st, d)
	}
}

func ptr[T any](v T) *T { return &v }

func TestCloseReleasesPorts(t *testing.T) {
	e := newEnv(t, nil)
	ins := []inputs.Input{
		input("u1", inputs.GELFUDPType, nil),
		input("t1", inputs.GELFTCPType, nil),
		input("h1", inputs.GELFHTTPType, nil),
	}
	e.start(ins...)
	addrs := map[string]net.Addr{}
	for _, in := range ins {
		addrs[in.ID], _ = e.runner.Addr(in.ID)
	}
	// An open TCP connection must not keep Close waiting.
	c := dial(t, "tcp", addrs["t1"].String())
	send(t, c, append([]byte(gelfJSON(0)), 0))
	e.records(1)
	if err := e.runner.Close(); err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if st, _ := e.state(in); st != inputs.StateStopped {
			t.Errorf("%s: state %s, want STOPPED", in.ID, st)
		}
		if _, ok := e.runner.Addr(in.ID); ok {
			t.Errorf("%s still has an address", in.ID)
		}
	}
	u, err := net.ListenPacket("udp", addrs["u1"].String())
	if err != nil {
		t.Errorf("UDP port not released: %v", err)
	} else {
		u.Close()
	}
	for _, id := range []string{"t1", "h1"} {
		l, err := net.Listen("tcp", addrs[id].String())
		if err != nil {
			t.Errorf("%s port not released: %v", id, err)
		} else {
			l.Close()
		}
	}
	// Apply after Close starts nothing.
	e.runner.Apply(context.Background(), ins)
	if _, ok := e.runner.Addr("u1"); ok {
		t.Error("Apply after Close started an input")
	}
}

func TestHTTPTLS(t *testing.T) {
	e := newEnv(t, nil)
	addr := e.start(input("h1", inputs.GELFHTTPType, map[string]any{"tls_enable": true}))
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if r := do(t, c, http.MethodPost, "https://"+addr+"/gelf", []byte(fullGELF), nil); r.status != http.StatusAccepted {
		t.Fatalf("status %d %s", r.status, r.body)
	}
	checkCommon(t, e.records(1)[0], "h1", true)
	// Plain HTTP is refused on a TLS input.
	resp, err := http.Post("http://"+addr+"/gelf", "application/json", strings.NewReader(fullGELF))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusAccepted {
			t.Error("plain HTTP accepted on a TLS input")
		}
	}
	if n := e.j.End(); n != 1 {
		t.Errorf("%d records, want 1", n)
	}
}

// TestStartStop: Stop frees the port and keeps the input stopped through
// Apply, even a changed configuration; Start runs it again, and retries a
// FAILED input without a configuration change.
func TestStartStop(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	in := input("tcp", inputs.GELFTCPType, nil)
	addr := e.start(in)

	if !e.runner.Stop(in.ID) {
		t.Fatal("Stop of a running input reported false")
	}
	if st, _ := e.state(in); st != inputs.StateStopped {
		t.Fatalf("after Stop: %s, want STOPPED", st)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatal("a stopped input still accepts connections")
	}
	in.Configuration["recv_buffer_size"] = 65536
	e.runner.Apply(ctx, []inputs.Input{in})
	if _, running := e.runner.Addr(in.ID); running {
		t.Fatal("Apply restarted a stopped input")
	}
	if !e.runner.Start(ctx, in) {
		t.Fatal("Start reported false")
	}
	if st, d := e.state(in); st != inputs.StateRunning {
		t.Fatalf("after Start: %s %q, want RUNNING", st, d)
	}
	if e.runner.Stop("unknown") || e.runner.Start(ctx, inputs.Input{ID: "x", Type: inputs.GELFTCPType, Node: ptr("another-node")}) {
		t.Error("Start or Stop accepted an input this node does not run")
	}

	// A FAILED input (port taken) starts once the port is free.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	failing := input("busy", inputs.GELFTCPType, map[string]any{"port": busy.Addr().(*net.TCPAddr).Port})
	e.runner.Apply(ctx, []inputs.Input{in, failing})
	if st, _ := e.state(failing); st != inputs.StateFailed {
		t.Fatalf("port in use: %s, want FAILED", st)
	}
	busy.Close()
	e.runner.Start(ctx, failing)
	if st, d := e.state(failing); st != inputs.StateRunning {
		t.Fatalf("Start after the port was freed: %s %q, want RUNNING", st, d)
	}
}
