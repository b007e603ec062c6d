package forward

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"time"

	"github.com/klauspost/compress/gzip"
)

// UDP chunking as gelfclient's GelfMessageChunkEncoder does it: payloads
// above chunkSize bytes are split into at most maxChunks chunks of
// chunkSize bytes, each behind a 12-byte header.
const (
	chunkSize      = 1420
	maxChunks      = 128
	chunkHeaderLen = 12
)

// writeBufferSize is the buffer between the queue and a TCP connection:
// messages are written in batches, flushed whenever the queue runs empty.
const writeBufferSize = 64 << 10

// errTooLarge is returned by a datagram sink for a message that does not
// fit in maxChunks chunks. It is the message's fault, not the
// connection's.
var errTooLarge = errors.New("forward: message exceeds the GELF UDP size limit")

// sink is one connection to the destination. It is used by one goroutine.
type sink interface {
	// write sends, or buffers, one GELF payload.
	write(payload []byte) error
	// flush sends what write buffered.
	flush() error
	// closed is closed when the peer ends the connection, nil when that
	// cannot be told (UDP).
	closed() <-chan struct{}
	close() error
}

// dialer opens sinks for a configuration.
type dialer struct {
	cfg Config
	tls *tls.Config
}

func newDialer(cfg Config) (*dialer, error) {
	d := &dialer{cfg: cfg}
	if cfg.Protocol != TLS {
		return d, nil
	}
	// As gelfclient: without verification any certificate is accepted;
	// with it, the trust chain file (or else the system roots) decides.
	d.tls = &tls.Config{ServerName: cfg.Hostname, MinVersion: tls.VersionTLS12, InsecureSkipVerify: !cfg.TLSVerify}
	if cfg.TLSVerify && cfg.TLSTrustCertChain != "" {
		pem, err := os.ReadFile(cfg.TLSTrustCertChain)
		if err != nil {
			return nil, fmt.Errorf("%w: tls_trust_cert_chain: %w", ErrConfig, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: tls_trust_cert_chain: %s holds no PEM certificate", ErrConfig, cfg.TLSTrustCertChain)
		}
		d.tls.RootCAs = pool
	}
	return d, nil
}

// dial connects; ctx aborts it.
func (d *dialer) dial(ctx context.Context) (sink, error) {
	addr := d.cfg.address()
	if d.cfg.Protocol == UDP {
		var nd net.Dialer
		conn, err := nd.DialContext(ctx, "udp", addr)
		if err != nil {
			return nil, err
		}
		return newDatagramSink(conn), nil
	}
	keepAlive := time.Duration(-1) // negative disables keep-alive
	if d.cfg.TCPKeepAlive {
		keepAlive = 0 // Go's default probe interval
	}
	nd := net.Dialer{Timeout: d.cfg.ConnectTimeout, KeepAlive: keepAlive}
	conn, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		// Go disables Nagle by default; tcp_no_delay false asks for it.
		if err := tc.SetNoDelay(d.cfg.TCPNoDelay); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if d.tls != nil {
		hctx := ctx
		if d.cfg.ConnectTimeout > 0 {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(ctx, d.cfg.ConnectTimeout)
			defer cancel()
		}
		tconn := tls.Client(conn, d.tls)
		if err := tconn.HandshakeContext(hctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
		}
		conn = tconn
	}
	return newStreamSink(conn), nil
}

// streamSink writes null-terminated frames to a TCP or TLS connection.
type streamSink struct {
	conn net.Conn
	w    *bufio.Writer
	gone chan struct{}
}

func newStreamSink(conn net.Conn) *streamSink {
	s := &streamSink{conn: conn, w: bufio.NewWriterSize(conn, writeBufferSize), gone: make(chan struct{})}
	// A GELF receiver sends nothing: a read returns only when the peer
	// closes the connection (or resets it). Noticing that while idle means
	// the next messages wait for a new connection instead of being written
	// into a dead one. For TLS, reading also takes in session tickets.
	go func() {
		defer close(s.gone)
		var buf [512]byte
		for {
			if _, err := conn.Read(buf[:]); err != nil {
				return
			}
		}
	}()
	return s
}

func (s *streamSink) write(p []byte) error {
	if _, err := s.w.Write(p); err != nil {
		return err
	}
	return s.w.WriteByte(0)
}

func (s *streamSink) flush() error            { return s.w.Flush() }
func (s *streamSink) closed() <-chan struct{} { return s.gone }
func (s *streamSink) close() error            { return s.conn.Close() }

// datagramSink sends each payload gzip-compressed (as gelfclient does by
// default) in one datagram, or in chunks when it is larger than chunkSize.
type datagramSink struct {
	conn  net.Conn
	zbuf  bytes.Buffer
	zw    *gzip.Writer
	chunk []byte
}

func newDatagramSink(conn net.Conn) *datagramSink {
	s := &datagramSink{conn: conn, chunk: make([]byte, chunkHeaderLen+chunkSize)}
	// BestSpeed: forwarding should cost little CPU; the size gain of
	// higher levels on short JSON objects is small.
	s.zw, _ = gzip.NewWriterLevel(&s.zbuf, gzip.BestSpeed)
	return s
}

func (s *datagramSink) write(p []byte) error {
	s.zbuf.Reset()
	s.zw.Reset(&s.zbuf)
	if _, err := s.zw.Write(p); err != nil {
		return err
	}
	if err := s.zw.Close(); err != nil {
		return err
	}
	data := s.zbuf.Bytes()
	if len(data) <= chunkSize {
		_, err := s.conn.Write(data)
		return err
	}
	n := (len(data) + chunkSize - 1) / chunkSize
	if n > maxChunks {
		return fmt.Errorf("%w: %d bytes compressed", errTooLarge, len(data))
	}
	hdr := s.chunk[:chunkHeaderLen]
	hdr[0], hdr[1] = 0x1e, 0x0f
	binary.BigEndian.PutUint64(hdr[2:10], rand.Uint64())
	hdr[11] = byte(n)
	for i := 0; i < n; i++ {
		hdr[10] = byte(i)
		part := data[i*chunkSize : min(len(data), (i+1)*chunkSize)]
		dgram := append(s.chunk[:chunkHeaderLen], part...)
		if _, err := s.conn.Write(dgram); err != nil {
			return err
		}
	}
	return nil
}

func (s *datagramSink) flush() error            { return nil }
func (s *datagramSink) closed() <-chan struct{} { return nil }
func (s *datagramSink) close() error            { return s.conn.Close() }
