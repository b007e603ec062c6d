package mongo_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/x/mongo/driver/connstring"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/mongo"
)

var userIndexes = []store.Index{
	{Collection: "users", Field: "username"},
	{Collection: "users", Field: "email"},
}

// TestRecordLayout checks what MongoDB holds: the document as a string,
// binary data if it is not UTF-8, and only the non-empty unique values.
func TestRecordLayout(t *testing.T) {
	s := mustOpen(t, userIndexes)
	ctx := t.Context()
	docs := map[string]string{
		"u1": `{"username":"alice","email":""}`,
		"u2": "{\"username\":\"b\xffb\"}",
	}
	for id, doc := range docs {
		if err := s.Insert(ctx, "users", id, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "users", id)
		if err != nil || string(got) != doc {
			t.Errorf("Get(%s) = %q, %v; want %q", id, got, err, doc)
		}
	}
	raw, err := s.RawRecord(ctx, "users", "u1")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := raw.Lookup("json").StringValueOK(); !ok || got != docs["u1"] {
		t.Errorf("json of u1 = %s, want the string %s", raw.Lookup("json"), docs["u1"])
	}
	if got, ok := raw.Lookup("unique", "username").StringValueOK(); !ok || got != "alice" {
		t.Errorf("unique.username of u1 = %s, want alice", raw.Lookup("unique", "username"))
	}
	if _, err := raw.LookupErr("unique", "email"); err == nil {
		t.Errorf("the empty email of u1 is stored as a unique value: %s", raw)
	}
	raw, err = s.RawRecord(ctx, "users", "u2")
	if err != nil {
		t.Fatal(err)
	}
	if _, data, ok := raw.Lookup("json").BinaryOK(); !ok || !bytes.Equal(data, []byte(docs["u2"])) {
		t.Errorf("json of u2 = %s, want binary data", raw.Lookup("json"))
	}
	id, _, err := s.FindUnique(ctx, "users", "username", "b\xffb")
	if err != nil || id != "u2" {
		t.Errorf("FindUnique of a non-UTF-8 value = %q, %v; want u2", id, err)
	}
}

// TestIndexLifecycle checks that Open drops loggate's undeclared indexes,
// keeps an operator's own, and rebuilds a declaration from current data.
func TestIndexLifecycle(t *testing.T) {
	uri := serverURI(t)
	db := newDatabase(t)
	ctx := t.Context()
	reopen := func(indexes []store.Index) *mongo.Store {
		t.Helper()
		s, err := mongo.Open(ctx, uri, indexes, mongo.WithDatabase(db))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	s := reopen(userIndexes)
	if err := s.Insert(ctx, "users", "u1", []byte(`{"username":"alice","email":"a@example.org"}`)); err != nil {
		t.Fatal(err)
	}
	// Without the email index, a taken email is accepted and changes freely.
	s = reopen(userIndexes[:1])
	if err := s.Insert(ctx, "users", "u2", []byte(`{"username":"bob","email":"a@example.org"}`)); err != nil {
		t.Fatalf("Insert of an email no longer unique: %v", err)
	}
	if err := s.Update(ctx, "users", "u1", func([]byte) ([]byte, error) {
		return []byte(`{"username":"alice","email":"new@example.org"}`), nil
	}); err != nil {
		t.Fatal(err)
	}
	// Declared again, the index is built from the documents as they are now.
	s = reopen(userIndexes)
	for email, want := range map[string]string{"a@example.org": "u2", "new@example.org": "u1"} {
		id, _, err := s.FindUnique(ctx, "users", "email", email)
		if err != nil || id != want {
			t.Errorf("FindUnique(email %s) = %q, %v; want %s", email, id, err, want)
		}
	}
	// Declaring an index that the data violates fails with ErrConflict.
	if err := s.Put(ctx, "users", "u3", []byte(`{"title":"same"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "users", "u4", []byte(`{"title":"same"}`)); err != nil {
		t.Fatal(err)
	}
	_, err := mongo.Open(ctx, uri, append(userIndexes, store.Index{Collection: "users", Field: "title"}), mongo.WithDatabase(db))
	if !errors.Is(err, store.ErrConflict) {
		t.Errorf("Open with an index the data violates: %v, want ErrConflict", err)
	}
}

func TestStats(t *testing.T) {
	s := mustOpen(t, userIndexes)
	ctx := t.Context()
	for _, id := range []string{"u1", "u2", "u3"} {
		if err := s.Insert(ctx, "users", id, []byte(`{"username":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Insert(ctx, "roles", "r1", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// users has _id and two unique indexes, roles its _id index.
	if st.Collections != 2 || st.Objects != 4 || st.Indexes < 4 || st.DataSize <= 0 {
		t.Errorf("Stats = %+v, want 2 collections, 4 objects, at least 4 indexes, some data", st)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Stats(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("Stats with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestDatabaseFromURI(t *testing.T) {
	uri := serverURI(t)
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Database != "" || strings.Contains(uri, "?") {
		t.Skip("LOGGATE_TEST_MONGODB_URI names a database or options; this test appends its own")
	}
	db := newDatabase(t)
	for _, tt := range []struct{ uri, want string }{
		{strings.TrimSuffix(uri, "/") + "/" + db, db},
		{uri, mongo.DefaultDatabase},
	} {
		s, err := mongo.Open(t.Context(), tt.uri, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Database(); got != tt.want {
			t.Errorf("Database() of %s = %q, want %q", mongo.Redact(tt.uri), got, tt.want)
		}
		_ = s.Close()
	}
}

// TestReconnect cuts the connection to the server with a proxy: operations
// fail quickly with ErrUnavailable, and succeed again once the server is
// back, without reopening the store.
func TestReconnect(t *testing.T) {
	uri := serverURI(t)
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Hosts) != 1 || cs.Scheme != connstring.SchemeMongoDB {
		t.Skip("the proxy test needs a single-host mongodb:// URI")
	}
	p := startProxy(t, cs.Hosts[0])
	proxied := strings.Replace(uri, cs.Hosts[0], p.addr, 1)
	if strings.Contains(proxied, "?") {
		proxied += "&directConnection=true"
	} else {
		proxied = strings.TrimSuffix(proxied, "/") + "/?directConnection=true"
	}
	const timeout = 500 * time.Millisecond
	s, err := mongo.Open(t.Context(), proxied, nil, mongo.WithDatabase(newDatabase(t)), mongo.WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := t.Context()
	if err := s.Insert(ctx, "c", "x", []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}

	p.stop(t)
	start := time.Now()
	_, err = s.Get(ctx, "c", "x")
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Get while the server is away: %v, want ErrUnavailable", err)
	}
	if elapsed := time.Since(start); elapsed > 10*timeout {
		t.Errorf("Get while the server is away took %v, want about %v", elapsed, timeout)
	}
	if err := s.Put(ctx, "c", "x", []byte(`{"v":2}`)); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Put while the server is away: %v, want ErrUnavailable", err)
	}

	p.start(t)
	// The driver finds the server again by itself; each attempt waits for
	// it at most the timeout.
	var doc []byte
	for range 20 {
		if doc, err = s.Get(ctx, "c", "x"); err == nil {
			break
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("Get after the server is back: %v", err)
		}
	}
	if err != nil || string(doc) != `{"v":1}` {
		t.Fatalf("Get after the server is back = %s, %v; want {\"v\":1}", doc, err)
	}
	if err := s.Put(ctx, "c", "x", []byte(`{"v":3}`)); err != nil {
		t.Errorf("Put after the server is back: %v", err)
	}
}

// proxy forwards TCP connections to a server until stopped; started again,
// it listens on the same address.
type proxy struct {
	target, addr string
	mu           sync.Mutex
	l            net.Listener
	conns        []net.Conn
	wg           sync.WaitGroup
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p := &proxy{target: target, addr: "127.0.0.1:0"}
	p.start(t)
	t.Cleanup(func() { p.stop(t) })
	return p
}

func (p *proxy) start(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p.mu.Lock()
	p.l, p.addr = l, l.Addr().String()
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Go(func() { _, _ = io.Copy(up, c); _ = up.Close() })
			p.wg.Go(func() { _, _ = io.Copy(c, up); _ = c.Close() })
		}
	})
}

// stop closes the listener and every connection, as a crashed server would.
func (p *proxy) stop(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	if p.l != nil {
		_ = p.l.Close()
		p.l = nil
	}
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// TestUpdateRetries checks the revision check between nodes: a write by
// another store between Update's read and its write makes Update call fn
// again with the new document, and lose nothing.
func TestUpdateRetries(t *testing.T) {
	uri := serverURI(t)
	db := newDatabase(t)
	ctx := t.Context()
	open := func() *mongo.Store {
		t.Helper()
		s, err := mongo.Open(ctx, uri, userIndexes, mongo.WithDatabase(db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	node1, node2 := open(), open()
	if err := node1.Insert(ctx, "users", "u1", []byte(`{"username":"a"}`)); err != nil {
		t.Fatal(err)
	}
	var seen []string
	err := node1.Update(ctx, "users", "u1", func(doc []byte) ([]byte, error) {
		seen = append(seen, string(doc))
		if len(seen) == 1 {
			if err := node2.Put(ctx, "users", "u1", []byte(`{"username":"b"}`)); err != nil {
				return nil, err
			}
		}
		return append(doc[:len(doc)-1], `,"x":1}`...), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"username":"a"}`, `{"username":"b"}`}
	if strings.Join(seen, " ") != strings.Join(want, " ") {
		t.Errorf("fn saw %q, want %q", seen, want)
	}
	got, err := node2.Get(ctx, "users", "u1")
	if err != nil || string(got) != `{"username":"b","x":1}` {
		t.Errorf("Get = %s, %v; want the update applied to node2's write", got, err)
	}
	if id, _, err := node2.FindUnique(ctx, "users", "username", "b"); err != nil || id != "u1" {
		t.Errorf("FindUnique(b) = %q, %v; want u1", id, err)
	}
}

// TestConcurrentPut checks that concurrent Puts creating the same id all
// succeed, leaving one document, also from two stores (nodes), whose
// upserts race in the server.
func TestConcurrentPut(t *testing.T) {
	s := mustOpen(t, userIndexes)
	other, err := mongo.Open(t.Context(), serverURI(t), userIndexes, mongo.WithDatabase(s.Database()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	nodes := []*mongo.Store{s, other}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			errs[i] = nodes[i%2].Put(t.Context(), "users", "u1", []byte(`{"username":"alice"}`))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Put %d: %v", i, err)
		}
	}
	if n, err := s.Count(t.Context(), "users"); err != nil || n != 1 {
		t.Errorf("Count = %d, %v; want 1", n, err)
	}
}

// TestClosed checks that a closed store answers ErrUnavailable, as a
// request racing shutdown would see.
func TestClosed(t *testing.T) {
	s := mustOpen(t, userIndexes)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), "users", "u1"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Get after Close: %v, want ErrUnavailable", err)
	}
	if err := s.Insert(t.Context(), "users", "u1", []byte(`{}`)); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Insert after Close: %v, want ErrUnavailable", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestConcurrentUpdateNodes checks that Update is atomic between nodes: no
// increment of two stores on the same database is lost. FerretDB matches
// an update's filter and writes in two steps, so only MongoDB passes.
func TestConcurrentUpdateNodes(t *testing.T) {
	s := mustOpen(t, nil)
	if ferret, err := s.FerretDB(t.Context()); err != nil || ferret {
		t.Skipf("SKIPPED: FerretDB (%v) does not apply filtered updates atomically; updates are atomic only within one loggate node there", err)
	}
	other, err := mongo.Open(t.Context(), serverURI(t), nil, mongo.WithDatabase(s.Database()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := s.Insert(t.Context(), "c", "n", []byte("0")); err != nil {
		t.Fatal(err)
	}
	const workers, increments = 8, 25
	nodes := []*mongo.Store{s, other}
	var wg sync.WaitGroup
	errs := make(chan error, workers*increments)
	for i := range workers {
		wg.Go(func() {
			for range increments {
				errs <- nodes[i%2].Update(t.Context(), "c", "n", func(doc []byte) ([]byte, error) {
					n, err := strconv.Atoi(string(doc))
					return strconv.AppendInt(nil, int64(n+1), 10), err
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.Get(t.Context(), "c", "n"); err != nil || string(got) != strconv.Itoa(workers*increments) {
		t.Errorf("counter = %s, %v; want %d", got, err, workers*increments)
	}
}
