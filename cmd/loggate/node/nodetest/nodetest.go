// Package nodetest starts a real loggate node for HTTP-level tests: the real
// router and services on the embedded store in a temporary data directory,
// listening on a loopback port.
package nodetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node"
)

// Root credentials of every test node.
const (
	RootUser     = "admin"
	RootPassword = "adminpass"
	// Secret is the test nodes' password_secret, fixed so that a restarted
	// node can read the tokens it encrypted.
	Secret = "loggate-test-secret-0123456789"
)

// Clock is a settable clock for tests of expiry.
type Clock = testclock.Clock

// Harness is a running node and a client for it.
type Harness struct {
	t      testing.TB
	Node   *node.Node
	URL    string // the API root, http://127.0.0.1:port/api
	Config config.Config
	Clock  *Clock
	// ElasticNamespace prefixes the node's Elasticsearch index names
	// (lgt-<random>-), unique per harness; it stays across Restart.
	ElasticNamespace string
	logs             *syncBuffer // everything the node logged
	store            store.Store // a shared store (StartOn), or nil
	fault            atomic.Pointer[error]

	stop func()
}

// BreakMessageStore makes the embedded message store fail every write with
// err until RepairMessageStore: a failing disk, for outage tests.
func (h *Harness) BreakMessageStore(err error) { h.fault.Store(&err) }

// RepairMessageStore ends BreakMessageStore.
func (h *Harness) RepairMessageStore() { h.fault.Store(nil) }

func (h *Harness) messageFault() error {
	if p := h.fault.Load(); p != nil {
		return *p
	}
	return nil
}

// Option changes the configuration of a test node.
type Option func(*config.Config)

// SharedStore returns an embedded document store for several test nodes of
// one cluster, closed when the test ends.
func SharedStore(t testing.TB) store.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "shared.db"), node.Indexes())
	if err != nil {
		t.Fatalf("shared store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// StartOn starts a node on a shared document store (SharedStore), as one
// node of a cluster; each node keeps its own data_dir and node id.
func StartOn(t testing.TB, st store.Store, opts ...Option) *Harness {
	t.Helper()
	return start(t, st, opts)
}

// WithRedis makes the node cache credentials in Redis at addr.
func WithRedis(addr string) Option {
	return func(c *config.Config) { c.RedisURI = "redis://" + addr + "/0" }
}

// WithConfig edits the configuration directly.
func WithConfig(f func(*config.Config)) Option { return Option(f) }

// Start starts a node in a fresh temporary data directory.
func Start(t testing.TB, opts ...Option) *Harness {
	t.Helper()
	return start(t, nil, opts)
}

func start(t testing.TB, st store.Store, opts []Option) *Harness {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.HTTPBindAddress = "127.0.0.1:0"
	cfg.HTTPPublishURI = "http://127.0.0.1:0/" // the bound port replaces 0
	sum := sha256.Sum256([]byte(RootPassword))
	cfg.RootPasswordSHA2 = hex.EncodeToString(sum[:])
	cfg.PasswordSecret = Secret
	for _, o := range opts {
		o(&cfg)
	}
	h := &Harness{t: t, Config: cfg, Clock: testclock.New(time.Now()), logs: &syncBuffer{b: &bytes.Buffer{}}, store: st,
		ElasticNamespace: fmt.Sprintf("lgt-%08x-", rand.Uint32())}
	h.start()
	t.Cleanup(h.Stop)
	return h
}

type syncBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Logs returns everything the node has logged so far.
func (h *Harness) Logs() string { return h.logs.String() }

func (h *Harness) start() {
	h.t.Helper()
	sink := loggers.NewTextSink(h.logs)
	n, err := node.New(context.Background(), h.Config, node.Options{LogSink: sink, Now: h.Clock.Now, Store: h.store, MessageFault: h.messageFault,
		ElasticNamespace: h.ElasticNamespace})
	if err != nil {
		h.t.Fatalf("start node: %v", err)
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
		h.t.Fatalf("serve: %v", err)
	}
	h.Node = n
	h.stop = func() {
		cancel()
		if err := <-done; err != nil && err != http.ErrServerClosed {
			h.t.Errorf("serve: %v", err)
		}
		if err := n.Close(); err != nil {
			h.t.Errorf("close node: %v", err)
		}
	}
}

// Stop stops the node; it is safe to call twice.
func (h *Harness) Stop() {
	if h.stop != nil {
		h.stop()
		h.stop = nil
	}
}

// Restart stops the node and starts it again on the same data directory.
func (h *Harness) Restart() {
	h.t.Helper()
	h.Stop()
	h.start()
}

// Response is a received response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Get reads a JSON path of the body (gjson syntax).
func (r *Response) Get(path string) gjson.Result { return gjson.GetBytes(r.Body, path) }

// ReqOption changes a request.
type ReqOption func(*http.Request)

// Basic authenticates with user:password.
func Basic(user, password string) ReqOption {
	return func(r *http.Request) { r.SetBasicAuth(user, password) }
}

// AsRoot authenticates as the root user.
func AsRoot() ReqOption { return Basic(RootUser, RootPassword) }

// Token authenticates with an access token.
func Token(token string) ReqOption { return Basic(token, "token") }

// Session authenticates with a session id.
func Session(id string) ReqOption { return Basic(id, "session") }

// Header sets a request header ("" deletes it).
func Header(k, v string) ReqOption {
	return func(r *http.Request) {
		if v == "" {
			r.Header.Del(k)
			return
		}
		r.Header.Set(k, v)
	}
}

// Via sends the request to another of the node's listeners (a
// compat_listeners address).
func Via(addr net.Addr) ReqOption {
	return func(r *http.Request) { r.URL.Host, r.Host = addr.String(), addr.String() }
}

// RawAuthorization sets the Authorization header verbatim.
func RawAuthorization(v string) ReqOption { return Header("Authorization", v) }

// BasicRaw sets Basic credentials from an already joined user:secret.
func BasicRaw(userColonSecret string) ReqOption {
	return RawAuthorization("Basic " + base64.StdEncoding.EncodeToString([]byte(userColonSecret)))
}

// Do sends a request to the API. path is relative to /api; body is sent as
// is when it is a string or []byte, else as JSON. Non-GET requests carry
// X-Requested-By unless an option removes it.
func (h *Harness) Do(method, path string, body any, opts ...ReqOption) *Response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			h.t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, h.URL+path, rd)
	if err != nil {
		h.t.Fatalf("request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions {
		req.Header.Set("X-Requested-By", "loggate-test")
	}
	for _, o := range opts {
		o(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("read body: %v", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Want fails the test unless the response has the status.
func (r *Response) Want(t testing.TB, status int) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body: %s", r.Status, status, r.Body)
	}
	return r
}

// WantError fails the test unless the response is a Graylog ApiError with
// that status and a message containing msg.
func (r *Response) WantError(t testing.TB, status int, msg string) {
	t.Helper()
	r.Want(t, status)
	if got := r.Get("type").String(); got != "ApiError" {
		t.Errorf("error type %q, want ApiError; body: %s", got, r.Body)
	}
	if got := r.Get("message").String(); !strings.Contains(got, msg) {
		t.Errorf("error message %q, want it to contain %q", got, msg)
	}
}

// CreateUser creates a user as root and returns its id.
func (h *Harness) CreateUser(username, password string, roles ...string) string {
	h.t.Helper()
	body := map[string]any{
		"username": username, "password": password, "email": username + "@example.org",
		"full_name": "User " + username, "permissions": []string{},
	}
	if roles != nil {
		body["roles"] = roles
	}
	h.Do("POST", "/users", body, AsRoot()).Want(h.t, http.StatusCreated)
	return h.Do("GET", "/users/"+username, nil, AsRoot()).Want(h.t, http.StatusOK).Get("id").String()
}

// Login creates a session and returns its id.
func (h *Harness) Login(username, password string) string {
	h.t.Helper()
	r := h.Do("POST", "/system/sessions", map[string]string{"username": username, "password": password, "host": ""})
	r.Want(h.t, http.StatusOK)
	return r.Get("session_id").String()
}

// CreateToken creates a token for a user (as that user) and returns its value
// and id.
func (h *Harness) CreateToken(userID, name string, as ReqOption) (value, id string) {
	h.t.Helper()
	r := h.Do("POST", "/users/"+userID+"/tokens/"+name, nil, as).Want(h.t, http.StatusOK)
	return r.Get("token").String(), r.Get("id").String()
}
