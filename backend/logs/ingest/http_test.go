package ingest_test

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/ingest"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/internal/poll"
)

const fullGELF = `{"version":"1.1","host":"example.org","short_message":"A short message","full_message":"Backtrace here","timestamp":1385053862.3072,"level":1,"_user_id":9001,"_some_info":"foo","_gl2_remote_ip":"10.9.9.9"}`

func compress(t testing.TB, kind string, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zlib":
		w = zlib.NewWriter(&b)
	case "deflate":
		w, _ = flate.NewWriter(&b, flate.BestSpeed)
	default:
		return p
	}
	if _, err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type response struct {
	status int
	header http.Header
	body   string
}

func do(t testing.TB, c *http.Client, method, url string, body []byte, hdr map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// apiMessage returns the message of a Graylog ApiError body, or fails.
func apiMessage(t testing.TB, r response) string {
	t.Helper()
	var e struct{ Type, Message string }
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.Type != "ApiError" || e.Message == "" {
		t.Fatalf("body %q is not an ApiError (%v)", r.body, err)
	}
	return e.Message
}

func TestHTTPAccepts(t *testing.T) {
	e := newEnv(t, nil)
	in := input("h1", inputs.GELFHTTPType, nil)
	in.StaticFields = map[string]string{"dc": "berlin", "some_info": "static loses"}
	url := "http://" + e.start(in) + "/gelf"
	c := &http.Client{}
	tests := []struct {
		name     string
		body     []byte
		encoding string
		ctype    string
	}{
		{"plain", []byte(fullGELF), "", "application/json"},
		{"plain without content type", []byte(fullGELF), "", ""},
		{"gzip body", compress(t, "gzip", []byte(fullGELF)), "", ""},
		{"gzip content encoding", compress(t, "gzip", []byte(fullGELF)), "gzip", "application/json"},
		{"zlib body", compress(t, "zlib", []byte(fullGELF)), "", ""},
		{"zlib body, deflate encoding", compress(t, "zlib", []byte(fullGELF)), "deflate", ""},
		{"raw deflate encoding", compress(t, "deflate", []byte(fullGELF)), "deflate", ""},
		{"gzip twice", compress(t, "gzip", compress(t, "zlib", []byte(fullGELF))), "gzip", ""},
		{"declared but not compressed", []byte(fullGELF), "gzip", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tt.encoding != "" {
				hdr["Content-Encoding"] = tt.encoding
			}
			if tt.ctype != "" {
				hdr["Content-Type"] = tt.ctype
			}
			r := do(t, c, http.MethodPost, url, tt.body, hdr)
			if r.status != http.StatusAccepted || r.body != "" || r.header.Get("Content-Length") != "0" {
				t.Fatalf("got %d %q (Content-Length %q), want 202 with an empty body", r.status, r.body, r.header.Get("Content-Length"))
			}
			// 202 comes after the append: the record is there already.
			if got := e.j.End(); got != uint64(i+1) {
				t.Fatalf("journal has %d records after the 202, want %d", got, i+1)
			}
			m := e.records(i + 1)[i]
			checkCommon(t, m, "h1", true)
			want := map[string]any{
				"message": "A short message", "source": "example.org", "full_message": "Backtrace here",
				"level": int64(1), "user_id": int64(9001), "some_info": "foo",
				"gl2_remote_ip": "127.0.0.1",
			}
			f := fieldsOf(m)
			if _, ok := f["dc"]; ok {
				t.Errorf("the input added static field dc; processing adds them")
			}
			for k, v := range want {
				if f[k] != v {
					t.Errorf("field %s = %#v, want %#v", k, f[k], v)
				}
			}
			if len(f) != len(want)+4 {
				t.Errorf("fields %v: want exactly %d", f, len(want)+4)
			}
			if ts := m.Timestamp.Format(time.RFC3339Nano); ts != "2013-11-21T17:11:02.307Z" {
				t.Errorf("timestamp %s", ts)
			}
		})
	}
	if got := e.count(inputs.GELFHTTPType + ".h1.incomingMessages"); got != int64(len(tests)) {
		t.Errorf("incomingMessages = %d, want %d", got, len(tests))
	}
}

func TestHTTPOverrideSourceAndIDs(t *testing.T) {
	e := newEnv(t, nil)
	url := "http://" + e.start(input("h1", inputs.GELFHTTPType, map[string]any{"override_source": "overridden"})) + "/gelf"
	for range 3 {
		if r := do(t, http.DefaultClient, http.MethodPost, url, []byte(`{"host":"h","short_message":"m"}`), nil); r.status != http.StatusAccepted {
			t.Fatalf("status %d %s", r.status, r.body)
		}
	}
	ms := e.records(3)
	prev := ""
	for i, m := range ms {
		f := fieldsOf(m)
		if f["source"] != "overridden" {
			t.Errorf("source = %v", f["source"])
		}
		// No timestamp: the receive time, from the injected clock.
		if !m.Timestamp.Equal(e.clock.Now()) {
			t.Errorf("timestamp %v, want the receive time %v", m.Timestamp, e.clock.Now())
		}
		id := f["gl2_message_id"].(string)
		if id <= prev {
			t.Errorf("gl2_message_id %d = %s is not above %s", i, id, prev)
		}
		prev = id
		if m.ID == ms[0].ID && i > 0 {
			t.Errorf("message %d reuses the _id %s", i, m.ID)
		}
	}
}

func TestHTTPStatuses(t *testing.T) {
	e := newEnv(t, nil)
	base := "http://" + e.start(input("h1", inputs.GELFHTTPType, map[string]any{"max_chunk_size": 1024, "decompress_size_limit": 500}))
	big := `{"host":"h","short_message":"` + strings.Repeat("x", 2000) + `"}`
	tests := []struct {
		name    string
		method  string
		path    string
		body    string
		status  int
		message string // part of the ApiError message; "" for an empty body
	}{
		{"options", http.MethodOptions, "/gelf", "", http.StatusOK, ""},
		{"options anywhere", http.MethodOptions, "/else", "", http.StatusOK, ""},
		{"get", http.MethodGet, "/gelf", "", http.StatusMethodNotAllowed, ""},
		{"put elsewhere", http.MethodPut, "/else", "", http.StatusMethodNotAllowed, ""},
		{"post elsewhere", http.MethodPost, "/else", fullGELF, http.StatusNotFound, ""},
		{"post with query", http.MethodPost, "/gelf?x=1", fullGELF, http.StatusNotFound, ""},
		{"missing host", http.MethodPost, "/gelf", `{"short_message":"m"}`, http.StatusBadRequest, `"host"`},
		{"missing message", http.MethodPost, "/gelf", `{"host":"h"}`, http.StatusBadRequest, `"short_message"`},
		{"not json", http.MethodPost, "/gelf", `hello`, http.StatusBadRequest, "Invalid GELF message"},
		{"empty", http.MethodPost, "/gelf", ``, http.StatusBadRequest, "empty"},
		{"too large", http.MethodPost, "/gelf", big, http.StatusRequestEntityTooLarge, "max_chunk_size"},
		{"decompresses too large", http.MethodPost, "/gelf", string(compress(t, "gzip", []byte(big))), http.StatusRequestEntityTooLarge, "decompressed size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, &http.Client{}, tt.method, base+tt.path, []byte(tt.body), nil)
			if r.status != tt.status {
				t.Fatalf("status %d (%s), want %d", r.status, r.body, tt.status)
			}
			if tt.message == "" {
				if r.body != "" {
					t.Errorf("body %q, want none", r.body)
				}
			} else if msg := apiMessage(t, r); !strings.Contains(msg, tt.message) {
				t.Errorf("message %q does not name %s", msg, tt.message)
			}
		})
	}
	if n := e.j.End(); n != 0 {
		t.Errorf("%d records journaled, want none", n)
	}
	if got := e.count(inputs.GELFHTTPType + ".h1.failures"); got != 5 {
		t.Errorf("failures = %d, want 5 (3 invalid, 2 too large)", got)
	}
}

func TestHTTPChunkedBodyTooLarge(t *testing.T) {
	e := newEnv(t, nil)
	url := "http://" + e.start(input("h1", inputs.GELFHTTPType, map[string]any{"max_chunk_size": 100})) + "/gelf"
	body := `{"host":"h","short_message":"` + strings.Repeat("y", 200) + `"}`
	// A reader of unknown length makes the client send a chunked body.
	req, _ := http.NewRequest(http.MethodPost, url, io.MultiReader(strings.NewReader(body)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 {
		t.Fatalf("status %d (request length %d), want 413 for a chunked body", resp.StatusCode, req.ContentLength)
	}
	if e.j.End() != 0 {
		t.Error("something was journaled")
	}
}

func TestHTTPCORS(t *testing.T) {
	e := newEnv(t, nil)
	on := input("on", inputs.GELFHTTPType, nil)
	off := input("off", inputs.GELFHTTPType, map[string]any{"enable_cors": false})
	e.start(on, off)
	addrOn, _ := e.runner.Addr("on")
	addrOff, _ := e.runner.Addr("off")
	for _, method := range []string{http.MethodOptions, http.MethodPost} {
		r := do(t, http.DefaultClient, method, "http://"+addrOn.String()+"/gelf", []byte(fullGELF), map[string]string{"Origin": "https://app.example"})
		if r.header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
			r.header.Get("Access-Control-Allow-Credentials") != "true" ||
			r.header.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" {
			t.Errorf("%s with CORS: headers %v", method, r.header)
		}
		r = do(t, http.DefaultClient, method, "http://"+addrOff.String()+"/gelf", []byte(fullGELF), map[string]string{"Origin": "https://app.example"})
		if v := r.header.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("%s without CORS: Access-Control-Allow-Origin %q", method, v)
		}
		r = do(t, http.DefaultClient, method, "http://"+addrOn.String()+"/gelf", []byte(fullGELF), nil)
		if v := r.header.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("%s without Origin: Access-Control-Allow-Origin %q", method, v)
		}
	}
}

func TestHTTPKeepAlive(t *testing.T) {
	e := newEnv(t, nil)
	url := "http://" + e.start(input("h1", inputs.GELFHTTPType, nil)) + "/gelf"
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	const n = 40
	for i := range n {
		if r := do(t, c, http.MethodPost, url, []byte(fullGELF), nil); r.status != http.StatusAccepted {
			t.Fatalf("request %d: %d", i, r.status)
		}
	}
	e.records(n)
	if got := e.count(inputs.GELFHTTPType + ".h1.total_connections"); got != 1 {
		t.Errorf("total_connections = %d after %d requests, want 1", got, n)
	}
	if got := e.count(inputs.GELFHTTPType + ".h1.read_bytes_total"); got < int64(n*len(fullGELF)) {
		t.Errorf("read_bytes_total = %d, want at least %d", got, n*len(fullGELF))
	}
}

func TestHTTPJournalFull(t *testing.T) {
	e := newEnv(t, func(j *journal.Options, o *ingest.Options) {
		j.MaxSize = 4096
		o.FullWait = time.Millisecond
		o.RetryAfter = 3 * time.Second
	})
	url := "http://" + e.start(input("h1", inputs.GELFHTTPType, nil)) + "/gelf"
	accepted := 0
	var full response
	for range 200 {
		r := do(t, http.DefaultClient, http.MethodPost, url, []byte(fullGELF), nil)
		if r.status == http.StatusServiceUnavailable {
			full = r
			break
		}
		if r.status != http.StatusAccepted {
			t.Fatalf("status %d %s", r.status, r.body)
		}
		accepted++
	}
	if full.status != http.StatusServiceUnavailable {
		t.Fatal("the journal never filled")
	}
	if full.header.Get("Retry-After") != "3" || !strings.Contains(apiMessage(t, full), "full") {
		t.Errorf("503 with Retry-After %q and body %s", full.header.Get("Retry-After"), full.body)
	}
	if got := e.j.End(); got != uint64(accepted) {
		t.Errorf("journal has %d records, %d were acknowledged", got, accepted)
	}
	if got := e.count(inputs.GELFHTTPType + ".h1.rejectedMessages"); got != 1 {
		t.Errorf("rejectedMessages = %d, want 1", got)
	}
	// Once processing commits, the input accepts again.
	if err := e.j.Commit(e.j.End() - 1); err != nil {
		t.Fatal(err)
	}
	if r := do(t, http.DefaultClient, http.MethodPost, url, []byte(fullGELF), nil); r.status != http.StatusAccepted {
		t.Fatalf("after commit: %d %s", r.status, r.body)
	}
	if got := e.j.End(); got != uint64(accepted+1) {
		t.Errorf("journal has %d records, want %d", got, accepted+1)
	}
}

// gelfOfSize is a GELF message from host of exactly size bytes.
func gelfOfSize(host string, size int) string {
	m := `{"version":"1.1","host":"` + host + `","short_message":"` + strings.Repeat("x", size-60) + `"}`
	return m + strings.Repeat(" ", size-len(m))
}

// slowPost is a GELF HTTP request whose body is still arriving: its body
// buffer holds decode budget until finish sends the rest.
type slowPost struct {
	conn net.Conn
	rest string
}

func startSlowPost(t *testing.T, addr, msg string, sent int) *slowPost {
	t.Helper()
	c := dial(t, "tcp", addr)
	fmt.Fprintf(c, "POST /gelf HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg[:sent])
	return &slowPost{conn: c, rest: msg[sent:]}
}

// finish sends the rest of the body and wants a 202.
func (p *slowPost) finish(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(p.conn, p.rest); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(p.conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("slow request: %d, want 202", resp.StatusCode)
	}
}

// TestHTTPBudgetAfterLargeBody: a small request is charged for a buffer of
// its own size while its body arrives, not for the capacity a large request
// before it needed; the pool of body buffers must not make small messages
// crowd the budget.
func TestHTTPBudgetAfterLargeBody(t *testing.T) {
	e := newEnv(t, nil)
	addr := e.start(input("h1", inputs.GELFHTTPType, nil))
	inUse := func() int64 { return e.count("org.graylog2.inputs.decode.budget.in-use") }
	for i := range 3 {
		// Chunked, so that its buffer doubles from 4 KiB to 64 KiB.
		large := io.MultiReader(strings.NewReader(gelfOfSize("large", 60<<10))) // no length known
		resp, err := http.Post("http://"+addr+"/gelf", "application/json", large)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("large request: %d", resp.StatusCode)
		}
		slow := startSlowPost(t, addr, gelfOfSize("small", 1<<10), 512)
		poll.Until(t, "the small request to take budget", func() bool { return inUse() > 0 })
		if got := inUse(); got != 1<<10+1 {
			t.Errorf("round %d: a 1 KiB body takes %d bytes of budget while it arrives, want %d", i, got, 1<<10+1)
		}
		slow.finish(t)
	}
}

// TestHTTPClaimedLengthTakesAPage: a request's body buffer grows with the
// bytes that arrive, not with the length it announces, so requests that
// announce large bodies and never send them hold a page of the decode
// budget each, not the budget others need.
func TestHTTPClaimedLengthTakesAPage(t *testing.T) {
	e := newEnv(t, func(_ *journal.Options, o *ingest.Options) {
		o.MaxRecordSize, o.DecodeBudget = 128<<10, 1 // a budget of 256 KiB
	})
	addr := e.start(input("h1", inputs.GELFHTTPType, nil))
	inUse := func() int64 { return e.count("org.graylog2.inputs.decode.budget.in-use") }
	const stalled = 8
	for range stalled {
		startSlowPost(t, addr, gelfOfSize("stalled", 60<<10), 0)
	}
	poll.Until(t, "the stalled requests to take their first page", func() bool { return inUse() == stalled*4<<10 })
	if r := do(t, http.DefaultClient, http.MethodPost, "http://"+addr+"/gelf", []byte(gelfOfSize("other", 60<<10)), nil); r.status != http.StatusAccepted {
		t.Errorf("beside %d stalled requests announcing 60 KiB: %d %s", stalled, r.status, r.body)
	}
}

// TestHTTPDecodeBudget holds most of the node's decode budget with a
// request whose body is still arriving: another request is answered 503
// with Retry-After, the metrics show the budget in use, and once the first
// request ends the budget is free again.
func TestHTTPDecodeBudget(t *testing.T) {
	e := newEnv(t, func(_ *journal.Options, o *ingest.Options) {
		// The smallest budget: twice a record limit of 16 KiB.
		o.MaxRecordSize, o.DecodeBudget = 16<<10, 1
		o.RetryAfter = 2 * time.Second
	})
	addr := e.start(input("h1", inputs.GELFHTTPType, nil))
	url := "http://" + addr + "/gelf"
	if got := e.count("org.graylog2.inputs.decode.budget.bytes"); got != 2*(16<<10+1) {
		t.Errorf("budget = %d bytes, want %d", got, 2*(16<<10+1))
	}
	inUse := func() int64 { return e.count("org.graylog2.inputs.decode.budget.in-use") }

	// A body of 12 KiB of which all but a byte is sent: its buffer holds
	// 12 KiB.
	slow := startSlowPost(t, addr, gelfOfSize("slow", 12<<10), 12<<10-1)
	poll.Until(t, "the slow request to take budget", func() bool { return inUse() > 12<<10 })

	// 14 KiB takes 28 KiB: its body and its text.
	r := do(t, http.DefaultClient, http.MethodPost, url, []byte(gelfOfSize("other", 14<<10)), nil)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "2" || !strings.Contains(apiMessage(t, r), "retry later") {
		t.Errorf("with the budget held: %d Retry-After %q %s, want 503 with Retry-After 2", r.status, r.header.Get("Retry-After"), r.body)
	}
	if got := e.count("org.graylog2.inputs.decode.budget.http.refused"); got != 1 {
		t.Errorf("http.refused = %d, want 1", got)
	}

	slow.finish(t)
	if got := inUse(); got != 0 {
		t.Errorf("in-use = %d after the requests, want 0", got)
	}
	if r := do(t, http.DefaultClient, http.MethodPost, url, []byte(fullGELF), nil); r.status != http.StatusAccepted {
		t.Errorf("after the budget is free: %d %s", r.status, r.body)
	}
}

// TestDecodeBudgetTCPWaitsUDPDrops holds part of the node's decode budget
// with a GELF HTTP request whose body is still arriving: a TCP frame that
// needs more stops its connection until the budget is free, then is
// journaled (nothing dropped); a UDP message that needs more is dropped and
// counted.
func TestDecodeBudgetTCPWaitsUDPDrops(t *testing.T) {
	e := newEnv(t, func(_ *journal.Options, o *ingest.Options) {
		o.MaxRecordSize, o.DecodeBudget = 16<<10, 1 // a budget of 32 KiB
	})
	e.start(input("h1", inputs.GELFHTTPType, nil), input("t1", inputs.GELFTCPType, nil), input("u1", inputs.GELFUDPType, nil))
	addr := func(id string) string {
		a, ok := e.runner.Addr(id)
		if !ok {
			t.Fatalf("input %s not running", id)
		}
		return a.String()
	}

	// 16 KiB of body buffer held while the last byte of the body is
	// awaited.
	slow := startSlowPost(t, addr("h1"), gelfOfSize("slow", 16<<10), 16<<10-1)
	poll.Until(t, "the slow request to take budget", func() bool { return e.count("org.graylog2.inputs.decode.budget.in-use") >= 16<<10 })

	// UDP: 20 KiB of text do not fit in what is left.
	fmt.Fprint(dial(t, "udp", addr("u1")), gelfOfSize("udp", 20<<10))
	poll.Until(t, "the UDP message to be dropped", func() bool { return e.count("org.graylog2.inputs.decode.budget.udp.dropped") == 1 })

	// TCP: 24 KiB do not fit either; the connection waits.
	fmt.Fprint(dial(t, "tcp", addr("t1")), gelfOfSize("tcp", 24<<10)+"\x00")
	poll.Until(t, "the TCP connection to wait", func() bool { return e.count("org.graylog2.inputs.decode.budget.tcp.waits") == 1 })
	if got := e.j.End(); got != 0 {
		t.Fatalf("journal has %d records while the budget is held", got)
	}

	// The slow request ends: the budget is free, the TCP frame goes in.
	slow.finish(t)
	sources := map[string]bool{}
	for _, m := range e.records(2) {
		s, _ := m.Get("source")
		sources[s.(string)] = true
	}
	if !sources["slow"] || !sources["tcp"] || len(sources) != 2 {
		t.Errorf("journaled messages from %v, want the HTTP and the TCP one", sources)
	}
	poll.Until(t, "the budget to be free", func() bool { return e.count("org.graylog2.inputs.decode.budget.in-use") == 0 })
}
