package ingest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"syscall"
)

// listenTCP opens the listener of a TCP or HTTP input: its receive buffer
// and keep-alive settings, and TLS when enabled.
func listenTCP(ctx context.Context, inst *instance) (net.Listener, error) {
	cfg := inst.cfg
	tlsCfg, err := serverTLS(cfg.tls, inst.r.opts.Now())
	if err != nil {
		return nil, err
	}
	lc := net.ListenConfig{Control: recvBuffer(cfg.recvBufferSize)}
	if cfg.tcpKeepAlive {
		// Java's SO_KEEPALIVE: probes on the operating system's schedule.
		lc.KeepAliveConfig = net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}
	} else {
		lc.KeepAlive = -1
	}
	ln, err := lc.Listen(ctx, "tcp", cfg.address())
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	return ln, nil
}

// recvBuffer returns a socket control function setting the receive buffer,
// which accepted TCP connections inherit from their listener. The kernel
// caps SO_RCVBUF at net.core.rmem_max (often 208 KiB, below the UDP input's
// 256 KiB default); setRecvBuffer goes past it where the process may.
func recvBuffer(n int) func(network, address string, c syscall.RawConn) error {
	if n <= 0 {
		return nil
	}
	return func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = setRecvBuffer(int(fd), n)
		})
		if err == nil {
			err = serr
		}
		if err != nil {
			return fmt.Errorf("set receive buffer size %d: %w", n, err)
		}
		return nil
	}
}

// countingConn counts the bytes read from a connection into the input's
// read_bytes_total.
type countingConn struct {
	net.Conn
	m *inputMetrics
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.m.readBytes.Add(int64(n))
	return n, err
}
