package forward

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/messages"
)

// waitTimeout bounds every wait of the tests; conditions are normally met
// in milliseconds.
const waitTimeout = 10 * time.Second

// receiver is a GELF TCP input: it accepts connections, splits them into
// frames and decodes each, as loggate's GELF TCP input does.
type receiver struct {
	t    *testing.T
	ln   net.Listener
	msgs chan gelf.Message
	// errs receives decode errors and connection-level failures (such as
	// a failed TLS handshake).
	errs chan error

	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed chan struct{} // receives one value per connection that ended
	wg     sync.WaitGroup
}

// listen starts a receiver on a free loopback port, or on addr when given.
// A non-nil tlsConfig makes it a TLS listener.
func listen(t *testing.T, addr string, tlsConfig *tls.Config) *receiver {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	r := &receiver{t: t, ln: ln, msgs: make(chan gelf.Message, 1<<16), errs: make(chan error, 1024),
		conns: map[net.Conn]bool{}, closed: make(chan struct{}, 1024)}
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(r.stop)
	return r
}

func (r *receiver) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.conns[c] = true
		r.mu.Unlock()
		r.wg.Add(1)
		go r.serve(c)
	}
}

func (r *receiver) serve(c net.Conn) {
	defer r.wg.Done()
	defer func() {
		c.Close()
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
		r.closed <- struct{}{}
	}()
	fr := gelf.NewFramer(c, 0)
	for {
		frame, err := fr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				r.errs <- err
			}
			return
		}
		m, err := gelf.Decode(frame, gelf.Options{})
		if err != nil {
			r.errs <- err
			continue
		}
		r.msgs <- m
	}
}

// port is the receiver's port.
func (r *receiver) port() int { return r.ln.Addr().(*net.TCPAddr).Port }

// stop closes the listener and every connection, and waits for them.
func (r *receiver) stop() {
	r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// next returns the next message received.
func (r *receiver) next() gelf.Message {
	r.t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(waitTimeout):
		r.t.Fatal("no message received")
		return gelf.Message{}
	}
}

// tcpConfig is a forwarder configuration for a loopback port with a short
// reconnect delay.
func tcpConfig(port int) Config {
	return Config{Hostname: "127.0.0.1", Port: port, Protocol: TCP, ConnectTimeout: time.Second,
		ReconnectDelay: 5 * time.Millisecond, QueueSize: DefaultQueueSize}
}

// start starts a forwarder and closes it at the end of the test.
func start(t *testing.T, cfg Config) *Forwarder {
	t.Helper()
	return startFlush(t, cfg, 2*time.Second)
}

// startFlush starts a forwarder whose Close waits at most flush: tests
// whose destination never takes the queue keep it short.
func startFlush(t *testing.T, cfg Config, flush time.Duration) *Forwarder {
	t.Helper()
	f, err := New(cfg, Options{ID: "test", FlushTimeout: flush})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// msg builds a message with the required fields and extra ones.
func msg(text string, extra ...messages.Field) *messages.Message {
	m := &messages.Message{
		ID:        "2b0f3d3e-6e2c-11ef-9c8e-0242ac120002",
		Timestamp: time.Date(2026, 3, 1, 12, 30, 45, 123e6, time.UTC),
		Streams:   []string{"000000000000000000000001"},
		Fields: []messages.Field{
			{Key: messages.FieldSource, Value: "web-01"},
			{Key: messages.FieldMessage, Value: text},
		},
	}
	m.Fields = append(m.Fields, extra...)
	return m
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// selfSigned returns a server certificate for 127.0.0.1 and the path of a
// PEM file holding it, to be trusted.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "loggate test receiver"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chain.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, path
}

// field returns a decoded message's field, failing when it is missing.
func field(t *testing.T, m gelf.Message, key string) any {
	t.Helper()
	v, ok := m.Field(key)
	if !ok {
		t.Fatalf("field %q missing from %+v", key, m.Fields)
	}
	return v
}

func itoa(i int) string { return strconv.Itoa(i) }
