package elastic

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

const (
	aliasMissing = `{"error":"alias [graylog_deflector] missing","status":404}`
	aliasOn2     = `{"graylog_2":{"aliases":{"graylog_deflector":{}}}}`
	bulkOK       = `{"took":5,"errors":false,"items":[{"index":{"_index":"graylog_0","_id":"a","status":201}}]}`
)

func TestOpen(t *testing.T) {
	f := newFake(t, "7.10.2")
	f.on("GET /loggate-state/_doc/node-a", 200, `{"_index":"loggate-state","_id":"node-a","found":true,"_source":{"checkpoint":"42"}}`)
	host := strings.Replace(f.srv.URL, "http://", "http://admin:s3cret@", 1)
	s, err := Open(t.Context(), Options{Hosts: []string{host}, Node: "node-a"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reqs := f.wantRequests(t, "GET /", "PUT /loggate-state", "GET /loggate-state/_doc/node-a")
	wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:s3cret"))
	for _, r := range reqs {
		if r.Auth != wantAuth {
			t.Errorf("%s sent Authorization %q, want the URL's credentials", r, r.Auth)
		}
	}
	if !strings.Contains(reqs[1].Body, `"number_of_shards":1`) {
		t.Errorf("state index created with %s, want one shard", reqs[1].Body)
	}
	if got := s.Checkpoint(); got != 42 {
		t.Errorf("Checkpoint() = %d, want 42", got)
	}
	if n, os := s.Version(); n != "7.10.2" || os {
		t.Errorf("Version() = %q, %v", n, os)
	}
	if strings.Contains(s.hosts, "s3cret") {
		t.Errorf("hosts for messages %q hold the password", s.hosts)
	}
}

func TestOpenErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	start := time.Now()
	_, err = Open(t.Context(), Options{Hosts: []string{"http://user:pw@" + addr}})
	if !errors.Is(err, messages.ErrUnavailable) || strings.Contains(err.Error(), "pw@") {
		t.Errorf("Open of a closed port: %v, want ErrUnavailable without credentials", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open of a closed port took %v", d)
	}

	f := newFake(t, "5.6.16")
	if _, err := Open(t.Context(), Options{Hosts: []string{f.srv.URL}}); !errors.Is(err, errUnsupported) {
		t.Errorf("Open of 5.6: %v, want errUnsupported", err)
	}
	f = newFake(t, "7.10.2")
	f.on("PUT /loggate-state", 403, `{"error":{"type":"security_exception","reason":"action [indices:admin/create] is unauthorized"},"status":403}`)
	if _, err := Open(t.Context(), Options{Hosts: []string{f.srv.URL}}); err == nil || !strings.Contains(err.Error(), "unauthorized") {
		t.Errorf("Open without rights: %v, want the server's reason", err)
	}
	f = newFake(t, "7.10.2")
	f.on("GET /loggate-state/_doc/default", 200, `{"found":true,"_source":{"checkpoint":"x"}}`)
	if _, err := Open(t.Context(), Options{Hosts: []string{f.srv.URL}}); !errors.Is(err, errBadResponse) {
		t.Errorf("Open with a bad checkpoint: %v, want errBadResponse", err)
	}
}

// TestWriteCreatesSeries checks the requests of a first Write: template,
// alias lookup, index creation with the alias, then _bulk to the alias;
// and that a second Write sends only the _bulk.
func TestWriteCreatesSeries(t *testing.T) {
	for _, tc := range []struct {
		version, bulk, typ string
	}{
		{"6.8.23", "POST /_bulk?refresh=wait_for", `"_type":"message",`},
		{"7.10.2", "POST /_bulk?refresh=wait_for&require_alias=true", ""},
	} {
		t.Run(tc.version, func(t *testing.T) {
			f := newFake(t, tc.version)
			s := f.open(t, Options{Replicas: 1, Shards: 2})
			f.on("PUT /_template/graylog-template", 200, `{"acknowledged":true}`)
			f.on("GET /_alias/graylog_deflector", 404, aliasMissing, reply{200, `{"graylog_0":{"aliases":{"graylog_deflector":{}}}}`})
			f.on("GET /_cat/indices/graylog_*", 200, `[]`)
			f.on("PUT /graylog_0", 200, `{"acknowledged":true,"shards_acknowledged":true,"index":"graylog_0"}`)
			f.on("POST /_bulk", 200, bulkOK)
			msgs := sampleMessages()[:1]
			if err := s.Write(t.Context(), "graylog", msgs); err != nil {
				t.Fatal(err)
			}
			reqs := f.wantRequests(t,
				"PUT /_template/graylog-template",
				"GET /_alias/graylog_deflector",
				"GET /_cat/indices/graylog_*?format=json&h=index",
				"PUT /graylog_0",
				"GET /_alias/graylog_deflector",
				tc.bulk)
			if len(reqs) != 6 {
				return
			}
			if !strings.Contains(reqs[3].Body, `"aliases":{"graylog_deflector":{}}`) || !strings.Contains(reqs[3].Body, `"number_of_shards":2`) {
				t.Errorf("PUT /graylog_0 body %s, want the alias and the settings", reqs[3].Body)
			}
			wantAction := `{"index":{"_index":"graylog_deflector",` + tc.typ + `"_id":"` + msgs[0].ID + `"}}`
			if !strings.HasPrefix(reqs[5].Body, wantAction+"\n") {
				t.Errorf("bulk body starts %.120s, want %s", reqs[5].Body, wantAction)
			}
			if err := s.Write(t.Context(), "graylog", msgs); err != nil {
				t.Fatal(err)
			}
			f.wantRequests(t, tc.bulk)
			if err := s.Write(t.Context(), "graylog", nil); err != nil {
				t.Errorf("Write(nil) = %v", err)
			}
			f.wantRequests(t)
		})
	}
}

// TestWriteNextIndex checks that a series whose alias is gone gets a new
// write index after the highest, and that a race with another node
// creating it is no error.
func TestWriteNextIndex(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	f.on("PUT /_template/graylog-template", 200, `{"acknowledged":true}`)
	f.on("GET /_alias/graylog_deflector", 404, aliasMissing, reply{200, `{"graylog_8":{"aliases":{"graylog_deflector":{}}}}`})
	f.on("GET /_cat/indices/graylog_*", 200, `[{"index":"graylog_3"},{"index":"graylog_7"},{"index":"graylog_x"}]`)
	f.on("PUT /graylog_8", 400, `{"error":{"type":"resource_already_exists_exception","reason":"index [graylog_8/abc] already exists"},"status":400}`)
	f.on("POST /_bulk", 200, bulkOK)
	if err := s.Write(t.Context(), "graylog", sampleMessages()[:1]); err != nil {
		t.Fatal(err)
	}
	f.wantRequests(t, "PUT /_template/graylog-template", "GET /_alias/graylog_deflector",
		"GET /_cat/indices/graylog_*?format=json&h=index", "PUT /graylog_8", "GET /_alias/graylog_deflector",
		"POST /_bulk?refresh=wait_for&require_alias=true")
}

func writeFake(t *testing.T) (*fakeES, *Store) {
	t.Helper()
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	f.on("PUT /_template/graylog-template", 200, `{"acknowledged":true}`)
	f.on("GET /_alias/graylog_deflector", 200, `{"graylog_0":{"aliases":{"graylog_deflector":{}}}}`)
	return f, s
}

func TestWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		body        string
		unavailable bool
		bulkError   bool
		forgets     bool
	}{
		{name: "mapping", status: 200, body: `{"errors":true,"items":[{"index":{"_id":"a","status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [level]"}}}]}`, bulkError: true},
		{name: "rejected item", status: 200, body: `{"errors":true,"items":[{"index":{"_id":"a","status":429,"error":{"type":"es_rejected_execution_exception","reason":"queue full"}}}]}`, unavailable: true, bulkError: true},
		{name: "alias gone", status: 200, body: `{"errors":true,"items":[{"index":{"_id":"a","status":404,"error":{"type":"index_not_found_exception","reason":"no such index"}}}]}`, unavailable: true, bulkError: true, forgets: true},
		{name: "overloaded", status: 429, body: `{"error":{"type":"es_rejected_execution_exception","reason":"rejected"},"status":429}`, unavailable: true},
		{name: "unavailable", status: 503, body: `{"error":{"type":"cluster_block_exception","reason":"blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];"},"status":503}`, unavailable: true},
		{name: "too large", status: 413, body: ``},
		{name: "garbage", status: 200, body: `<html>`, unavailable: true},
		// A whole request refused for a reason not the messages' own
		// (credentials, privileges, a proxy, an internal error) is the
		// cluster's: the processor retries rather than writing message by
		// message and dropping each; only 400 and 413 are the messages'.
		{name: "unauthorized", status: 401, body: `{"error":{"type":"security_exception","reason":"unable to authenticate user [graylog] for REST request [/_bulk]"},"status":401}`, unavailable: true},
		{name: "forbidden", status: 403, body: `{"error":{"type":"security_exception","reason":"action [indices:data/write/bulk] is unauthorized for user [graylog]"},"status":403}`, unavailable: true},
		{name: "proxy not found", status: 404, body: `<html><body>404 Not Found</body></html>`, unavailable: true},
		{name: "internal error", status: 500, body: `{"error":{"type":"exception","reason":"something broke"},"status":500}`, unavailable: true},
		{name: "bad request", status: 400, body: `{"error":{"type":"illegal_argument_exception","reason":"Malformed action/metadata line [1]"},"status":400}`},
		{name: "item refused for privileges", status: 200, body: `{"errors":true,"items":[{"index":{"_index":"graylog_0","_id":"a","status":403,"error":{"type":"security_exception","reason":"action [indices:data/write/bulk[s]] is unauthorized for user [graylog] on indices [graylog_0]"}}}]}`, unavailable: true, bulkError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, s := writeFake(t)
			f.on("POST /_bulk", tc.status, tc.body)
			err := s.Write(t.Context(), "graylog", sampleMessages())
			if err == nil {
				t.Fatal("Write succeeded, want an error")
			}
			var be *BulkError
			if errors.Is(err, messages.ErrUnavailable) != tc.unavailable || errors.As(err, &be) != tc.bulkError {
				t.Errorf("Write: %v; want unavailable %v, bulk error %v", err, tc.unavailable, tc.bulkError)
			}
			if be != nil && (len(be.Failed) != 1 || be.Failed[0].ID != "a") {
				t.Errorf("BulkError.Failed = %+v, want message a", be.Failed)
			}
			f.requests()
			f.on("POST /_bulk", 200, bulkOK)
			if err := s.Write(t.Context(), "graylog", sampleMessages()); err != nil {
				t.Fatal(err)
			}
			want := []string{"POST /_bulk?refresh=wait_for&require_alias=true"}
			if tc.forgets {
				want = append([]string{"PUT /_template/graylog-template", "GET /_alias/graylog_deflector"}, want...)
			}
			f.wantRequests(t, want...)
		})
	}
	_, s := writeFake(t)
	if err := s.Write(t.Context(), "graylog_*", sampleMessages()); err == nil {
		t.Error("Write to a pattern succeeded")
	}
	if err := s.Write(t.Context(), "graylog", []messages.Message{{Timestamp: time.Now()}}); !errors.Is(err, errNoID) {
		t.Errorf("Write of a message without id: %v, want errNoID", err)
	}
}

func TestWriteSplitsLargeBatches(t *testing.T) {
	f, s := writeFake(t)
	f.on("POST /_bulk", 200, bulkOK)
	big := strings.Repeat("x", maxBulkBytes/3)
	var msgs []messages.Message
	for i := range 5 {
		msgs = append(msgs, messages.Message{ID: string(rune('a' + i)), Fields: []messages.Field{{Key: "message", Value: big}}})
	}
	if err := s.Write(t.Context(), "graylog", msgs); err != nil {
		t.Fatal(err)
	}
	var bulks, docs int
	for _, r := range f.requests() {
		if strings.HasPrefix(r.URI, "/_bulk") {
			bulks++
			docs += strings.Count(r.Body, `{"index":`)
		}
	}
	if bulks != 2 || docs != 5 {
		t.Errorf("%d bulk requests with %d documents, want 2 with 5", bulks, docs)
	}
}

// indicesFake answers the three requests of an index listing for the
// series graylog with indices 0 to 2, 2 the write index.
func indicesFake(f *fakeES) {
	f.on("GET /_cat/indices/graylog_*", 200, `[
		{"index":"graylog_2","docs.count":"0","store.size":"208","creation.date":"1606820000000"},
		{"index":"graylog_0","docs.count":"3","store.size":"9000","creation.date":"1606810000000"},
		{"index":"graylog_1","docs.count":"1","store.size":"4000","creation.date":"1606815000000"}]`)
	f.on("GET /_alias/graylog_deflector,graylog_*_reopened", 200, aliasOn2)
	f.on("POST /graylog_*/_search", 200, `{"hits":{"total":{"value":4,"relation":"eq"},"hits":[]},"aggregations":{"indices":{"buckets":[
		{"key":"graylog_0","doc_count":3,"begin":{"value":1606816800000,"value_as_string":"2020-12-01 10:00:00.000"},"end":{"value":1606820400123,"value_as_string":"2020-12-01 11:00:00.123"}},
		{"key":"graylog_1","doc_count":1,"begin":{"value":1606824000000},"end":{"value":1606824000000}}]}}}`)
}

func TestIndices(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	indicesFake(f)
	got, err := s.Indices(t.Context(), "graylog")
	if err != nil {
		t.Fatal(err)
	}
	ms := func(v int64) time.Time { return time.UnixMilli(v).UTC() }
	want := []messages.Index{
		{Name: "graylog_0", Prefix: "graylog", Number: 0, Count: 3, Size: 9000, Begin: ms(1606816800000), End: ms(1606820400123), Created: ms(1606810000000)},
		{Name: "graylog_1", Prefix: "graylog", Number: 1, Count: 1, Size: 4000, Begin: ms(1606824000000), End: ms(1606824000000), Created: ms(1606815000000)},
		{Name: "graylog_2", Prefix: "graylog", Number: 2, Size: 208, Created: ms(1606820000000), Write: true},
	}
	if len(got) != len(want) {
		t.Fatalf("Indices = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("index %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	reqs := f.wantRequests(t,
		"GET /_cat/indices/graylog_*?format=json&bytes=b&h=index,status,docs.count,store.size,creation.date",
		"GET /_alias/graylog_deflector,graylog_*_reopened",
		"POST /graylog_*/_search?ignore_unavailable=true&allow_no_indices=true")
	if len(reqs) == 3 && !strings.Contains(reqs[2].Body, `"terms":{"field":"_index","size":3}`) {
		t.Errorf("ranges body %s, want a terms aggregation on _index", reqs[2].Body)
	}

	// An empty series needs no alias or range requests.
	f.on("GET /_cat/indices/empty_*", 200, `[]`)
	if got, err := s.Indices(t.Context(), "empty"); err != nil || len(got) != 0 {
		t.Errorf("Indices(empty) = %v, %v", got, err)
	}
	f.wantRequests(t, "GET /_cat/indices/empty_*?format=json&bytes=b&h=index,status,docs.count,store.size,creation.date")
	if _, err := s.Indices(t.Context(), "a,b"); err == nil {
		t.Error("Indices of a list succeeded")
	}
}

func TestSearch(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	indicesFake(f)
	f.on("POST /graylog_*/_search", 200, searchAnswer7)
	q := messages.Query{Query: mustParse(t, "source:web-01"), Prefixes: []string{"graylog"}, Limit: 2}
	// The ranges request of the listing comes first and gets the same
	// answer, which has no aggregations: no begin or end.
	res, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 12345 || len(res.Hits) != 2 || res.Hits[0].Message.ID != "id-1" || len(res.Indices) != 3 || !res.Indices[2].Write {
		t.Errorf("Search = total %d, %d hits, indices %+v", res.Total, len(res.Hits), res.Indices)
	}
	reqs := f.wantRequests(t,
		"GET /_cat/indices/graylog_*?format=json&bytes=b&h=index,status,docs.count,store.size,creation.date",
		"GET /_alias/graylog_deflector,graylog_*_reopened",
		"POST /graylog_*/_search?ignore_unavailable=true&allow_no_indices=true",
		"POST /graylog_*/_search?ignore_unavailable=true&allow_no_indices=true")
	if len(reqs) == 4 && !strings.Contains(reqs[3].Body, `"query":"source:web-01"`) {
		t.Errorf("search body %s, want the query_string", reqs[3].Body)
	}

	// Beyond the window: refused before any request.
	for _, q := range []messages.Query{
		{Offset: 9990, Limit: 11},
		{Offset: 90, Limit: 11, Window: 100},
		{Offset: -1, Limit: 1},
	} {
		if _, err := s.Search(t.Context(), q); err == nil || (q.Offset >= 0 && !errors.Is(err, messages.ErrResultWindow)) {
			t.Errorf("Search(offset %d limit %d window %d) = %v, want ErrResultWindow", q.Offset, q.Limit, q.Window, err)
		}
	}
	f.wantRequests(t)

	// The index setting is smaller than the window asked for.
	f.on("POST /graylog_*/_search", 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Result window is too large, from + size must be less than or equal to: [10000] but was [20000]."}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":400}`)
	f.on("GET /_cat/indices/graylog_*", 200, `[]`)
	_, err = s.Search(t.Context(), messages.Query{Prefixes: []string{"graylog"}, Offset: 19990, Limit: 10, Window: 50000})
	if !errors.Is(err, messages.ErrResultWindow) {
		t.Errorf("Search past the index's window: %v, want ErrResultWindow", err)
	}
	f.requests()

	// No prefixes: every series with a deflector.
	f.on("GET /_alias/*_deflector", 200, `{"b_1":{"aliases":{"b_deflector":{}}},"a_0":{"aliases":{"a_deflector":{},"other":{}}}}`)
	f.on("GET /_cat/indices/a_*,b_*", 200, `[]`)
	f.on("POST /a_*,b_*/_search", 200, `{"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`)
	res, err = s.Search(t.Context(), messages.Query{Limit: 10})
	if err != nil || res.Total != 0 || res.Hits == nil {
		t.Errorf("Search of all = %+v, %v", res, err)
	}
	f.wantRequests(t, "GET /_alias/*_deflector",
		"GET /_cat/indices/a_*,b_*?format=json&bytes=b&h=index,status,docs.count,store.size,creation.date",
		"POST /a_*,b_*/_search?ignore_unavailable=true&allow_no_indices=true")

	f.on("GET /_alias/*_deflector", 200, `{}`)
	res, err = s.Search(t.Context(), messages.Query{Limit: 10})
	if err != nil || res.Total != 0 || res.Hits == nil {
		t.Errorf("Search without any series = %+v, %v", res, err)
	}
	if _, err := s.Search(t.Context(), messages.Query{Prefixes: []string{"*"}}); err == nil {
		t.Error("Search of the prefix * succeeded")
	}
}

func TestGet(t *testing.T) {
	for _, tc := range []struct{ version, path string }{
		{"6.8.23", "/graylog_0/message/id-1"},
		{"7.10.2", "/graylog_0/_doc/id-1"},
	} {
		f := newFake(t, tc.version)
		s := f.open(t, Options{})
		f.on("GET "+tc.path, 200, `{"_index":"graylog_0","_type":"_doc","_id":"id-1","_version":1,"found":true,"_source":{"timestamp":"2020-12-01 10:00:00.000","streams":["s"],"message":"hi"}}`)
		hit, err := s.Get(t.Context(), "graylog_0", "id-1")
		if err != nil || hit.Index != "graylog_0" || hit.Message.ID != "id-1" || len(hit.Message.Fields) != 1 {
			t.Errorf("%s: Get = %+v, %v", tc.version, hit, err)
		}
		f.on("GET "+tc.path, 404, `{"_index":"graylog_0","_type":"_doc","_id":"id-1","found":false}`)
		if _, err := s.Get(t.Context(), "graylog_0", "id-1"); !errors.Is(err, messages.ErrNotFound) {
			t.Errorf("%s: Get of a missing document: %v, want ErrNotFound", tc.version, err)
		}
		f.on("GET "+tc.path, 404, `{"error":{"type":"index_not_found_exception","reason":"no such index [graylog_0]"},"status":404}`)
		if _, err := s.Get(t.Context(), "graylog_0", "id-1"); !errors.Is(err, messages.ErrNotFound) {
			t.Errorf("%s: Get of a missing index: %v, want ErrNotFound", tc.version, err)
		}
		f.requests()
		for _, bad := range [][2]string{{"*", "x"}, {"graylog_0", ""}, {"../x", "y"}} {
			if _, err := s.Get(t.Context(), bad[0], bad[1]); !errors.Is(err, messages.ErrNotFound) {
				t.Errorf("Get(%q, %q) = %v, want ErrNotFound", bad[0], bad[1], err)
			}
		}
		f.wantRequests(t)
	}
}

func TestRotate(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{Replicas: 1})
	f.on("PUT /_template/graylog-template", 200, `{"acknowledged":true}`)
	f.on("GET /_alias/graylog_deflector", 200, aliasOn2)
	f.on("GET /_cat/indices/graylog_*", 200, `[{"index":"graylog_0"},{"index":"graylog_2"},{"index":"graylog_1"}]`)
	f.on("PUT /graylog_3", 200, `{"acknowledged":true}`)
	f.on("POST /_aliases", 200, `{"acknowledged":true}`)
	name, err := s.Rotate(t.Context(), "graylog")
	if err != nil || name != "graylog_3" {
		t.Fatalf("Rotate = %q, %v; want graylog_3", name, err)
	}
	reqs := f.wantRequests(t, "PUT /_template/graylog-template", "GET /_alias/graylog_deflector",
		"GET /_cat/indices/graylog_*?format=json&h=index", "PUT /graylog_3", "POST /_aliases")
	if len(reqs) == 5 {
		if strings.Contains(reqs[3].Body, "aliases") {
			t.Errorf("new index created with the alias before the move: %s", reqs[3].Body)
		}
		want := `{"actions":[{"remove":{"alias":"graylog_deflector","index":"graylog_2"}},{"add":{"alias":"graylog_deflector","index":"graylog_3"}}]}`
		if reqs[4].Body != want {
			t.Errorf("_aliases body %s, want %s", reqs[4].Body, want)
		}
	}
	// Writes after a rotation need no new lookup.
	f.on("POST /_bulk", 200, bulkOK)
	if err := s.Write(t.Context(), "graylog", sampleMessages()[:1]); err != nil {
		t.Fatal(err)
	}
	f.wantRequests(t, "POST /_bulk?refresh=wait_for&require_alias=true")

	// Another node rotated meanwhile: the alias is no longer on the index
	// this node saw.
	f.on("PUT /graylog_3", 400, `{"error":{"type":"resource_already_exists_exception","reason":"index [graylog_3/x] already exists"},"status":400}`)
	if _, err := s.Rotate(t.Context(), "graylog"); err == nil {
		t.Error("Rotate onto an existing index succeeded")
	}
	f.requests()

	// An empty series starts at 0 with the alias.
	f.on("PUT /_template/new-template", 200, `{"acknowledged":true}`)
	f.on("GET /_alias/new_deflector", 404, `{"error":"alias [new_deflector] missing","status":404}`)
	f.on("GET /_cat/indices/new_*", 200, `[]`)
	f.on("PUT /new_0", 200, `{"acknowledged":true}`)
	name, err = s.Rotate(t.Context(), "new")
	if err != nil || name != "new_0" {
		t.Fatalf("Rotate(new) = %q, %v; want new_0", name, err)
	}
	reqs = f.requests()
	if last := reqs[len(reqs)-1]; last.String() != "PUT /new_0" || !strings.Contains(last.Body, `"new_deflector"`) {
		t.Errorf("last request %s %s, want PUT /new_0 with the alias", last, last.Body)
	}
}

func TestDelete(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	f.on("GET /_alias/graylog_deflector", 200, aliasOn2)
	if err := s.Delete(t.Context(), "graylog_2"); !errors.Is(err, messages.ErrWriteIndex) {
		t.Errorf("Delete of the write index: %v, want ErrWriteIndex", err)
	}
	f.wantRequests(t, "GET /_alias/graylog_deflector")
	f.on("DELETE /graylog_1", 200, `{"acknowledged":true}`)
	if err := s.Delete(t.Context(), "graylog_1"); err != nil {
		t.Errorf("Delete(graylog_1) = %v", err)
	}
	f.wantRequests(t, "GET /_alias/graylog_deflector", "DELETE /graylog_1")
	f.on("DELETE /graylog_9", 404, `{"error":{"type":"index_not_found_exception","reason":"no such index [graylog_9]"},"status":404}`)
	if err := s.Delete(t.Context(), "graylog_9"); !errors.Is(err, messages.ErrNotFound) {
		t.Errorf("Delete of a missing index: %v, want ErrNotFound", err)
	}
	f.requests()
	for _, name := range []string{"graylog_*", "_all", "graylog_deflector", ".kibana", "a_1,b_2"} {
		if err := s.Delete(t.Context(), name); !errors.Is(err, messages.ErrNotFound) {
			t.Errorf("Delete(%q) = %v, want ErrNotFound", name, err)
		}
	}
	f.wantRequests(t)
}

func TestFlush(t *testing.T) {
	f := newFake(t, "7.10.2")
	f.on("GET /loggate-state/_doc/node-a", 404, `{"found":false}`)
	s := f.open(t, Options{Node: "node-a"})
	f.on("PUT /loggate-state/_doc/node-a", 201, `{"result":"created"}`)
	if err := s.Flush(t.Context(), 1<<63+5); err != nil {
		t.Fatal(err)
	}
	reqs := f.wantRequests(t, "PUT /loggate-state/_doc/node-a")
	if want := `{"checkpoint":"9223372036854775813","flushed_at":"2020-12-01 10:00:00.000","node":"node-a"}`; len(reqs) == 1 && reqs[0].Body != want {
		t.Errorf("Flush body %s, want %s", reqs[0].Body, want)
	}
	if got := s.Checkpoint(); got != 1<<63+5 {
		t.Errorf("Checkpoint() = %d after Flush", got)
	}
	f.on("PUT /loggate-state/_doc/node-a", 503, `{"error":{"type":"unavailable_shards_exception","reason":"primary shard is not active"},"status":503}`)
	if err := s.Flush(t.Context(), 7); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Flush when unavailable: %v, want ErrUnavailable", err)
	}
	if got := s.Checkpoint(); got != 1<<63+5 {
		t.Errorf("Checkpoint() = %d after a failed Flush, want the previous", got)
	}
}

func TestClosedAndCancelled(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Indices(ctx, "graylog"); !errors.Is(err, context.Canceled) || errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Indices with a cancelled context: %v, want context.Canceled only", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Write(t.Context(), "graylog", sampleMessages()); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Write after Close: %v, want ErrUnavailable", err)
	}
	if _, err := s.Get(t.Context(), "graylog_0", "x"); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Get after Close: %v, want ErrUnavailable", err)
	}
}

func TestTimeout(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{Timeout: 50 * time.Millisecond})
	f.mu.Lock()
	f.hang = true
	f.mu.Unlock()
	start := time.Now()
	if _, err := s.Get(t.Context(), "graylog_0", "x"); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Get from a hung server: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Get from a hung server took %v, want about the 50ms timeout", d)
	}
}

func TestOpenWarnsUntestedVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		warn    bool
	}{{"7.10.2", false}, {"8.11.0", true}} {
		f := newFake(t, tc.version)
		var logs strings.Builder
		_ = f.open(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if got := strings.Contains(logs.String(), "not tested"); got != tc.warn {
			t.Errorf("%s: warned %v, want %v: %s", tc.version, got, tc.warn, logs.String())
		}
	}
}
