package elastic

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeES replays recorded Elasticsearch answers by method and path, and
// records the requests. It checks what the store sends and how it reads
// the answers; it is not Elasticsearch, so it tests no behaviour of the
// cluster: the contract suite against a real server does (server_test.go).
type fakeES struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	replies map[string][]reply // "GET /path": answers, the last one repeated
	reqs    []request
	hang    bool // answer nothing until the client gives up
}

type reply struct {
	status int
	body   string
}

type request struct {
	Method, URI, Body, Auth string
	ContentType, Accept     string
}

func (r request) String() string { return r.Method + " " + canonicalURI(r.URI) }

// canonicalURI is uri with its query parameters sorted by name and
// unescaped: esapi encodes the query with url.Values, so in its own order
// and with "," as %2C, which servers read the same as the order and
// spelling a test writes.
func canonicalURI(uri string) string {
	path, rawQuery, ok := strings.Cut(uri, "?")
	if !ok {
		return uri
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return uri
	}
	var params []string
	for k, vs := range q {
		for _, v := range vs {
			params = append(params, k+"="+v)
		}
	}
	slices.Sort(params)
	return path + "?" + strings.Join(params, "&")
}

func newFake(t *testing.T, version string) *fakeES {
	t.Helper()
	f := &fakeES{t: t, replies: map[string][]reply{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.on("GET /", 200, `{"name":"node-1","cluster_name":"test","version":{"number":"`+version+`"},"tagline":"You Know, for Search"}`)
	f.on("PUT /loggate-state", 400, `{"error":{"root_cause":[{"type":"resource_already_exists_exception","reason":"index [loggate-state/x] already exists"}],"type":"resource_already_exists_exception","reason":"index [loggate-state/x] already exists"},"status":400}`)
	f.on("GET /loggate-state/_doc/default", 404, `{"_index":"loggate-state","_type":"_doc","_id":"default","found":false}`)
	return f
}

// on sets the answers to a request; several are given in turn.
func (f *fakeES) on(key string, status int, body string, more ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies[key] = append([]reply{{status, body}}, more...)
}

func (f *fakeES) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, request{
		Method: r.Method, URI: r.URL.RequestURI(), Body: string(body), Auth: r.Header.Get("Authorization"),
		ContentType: r.Header.Get("Content-Type"), Accept: r.Header.Get("Accept"),
	})
	if f.hang {
		f.mu.Unlock()
		<-r.Context().Done()
		return
	}
	key := r.Method + " " + r.URL.Path
	rs := f.replies[key]
	var rep reply
	switch len(rs) {
	case 0:
		f.mu.Unlock()
		f.t.Errorf("fake Elasticsearch: unexpected request %s %s", r.Method, r.URL.RequestURI())
		http.Error(w, `{"error":"unexpected"}`, http.StatusInternalServerError)
		return
	case 1:
		rep = rs[0]
	default:
		rep, f.replies[key] = rs[0], rs[1:]
	}
	f.mu.Unlock()
	// No X-Elastic-Product header, as Elasticsearch before 7.14 and
	// OpenSearch answer.
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

// requests returns the requests since the last call.
func (f *fakeES) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reqs
	f.reqs = nil
	return r
}

// open opens a store on the fake, forgetting the requests of Open.
func (f *fakeES) open(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Hosts == nil {
		opts.Hosts = []string{f.srv.URL}
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC) }
	}
	s, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	f.requests()
	return s
}

// wantRequests checks the requests since the last call, by method and
// URI, whatever the order and escaping of query parameters.
func (f *fakeES) wantRequests(t *testing.T, want ...string) []request {
	t.Helper()
	got := f.requests()
	var names []string
	for _, r := range got {
		names = append(names, r.String())
	}
	want = slices.Clone(want)
	for i, w := range want {
		method, uri, _ := strings.Cut(w, " ")
		want[i] = request{Method: method, URI: uri}.String()
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n  %s\nwant:\n  %s", strings.Join(names, "\n  "), strings.Join(want, "\n  "))
	}
	return got
}
