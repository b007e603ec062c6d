package elastic

import (
	"errors"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Closing and reopening send what Graylog 4.0 sends: the reopened mark is
// an alias <index>_reopened, removed before closing and added on reopen;
// the listing reads the status of _cat/indices and that alias.
func TestCloseIndex(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	const (
		noIndex   = `{"error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [graylog_9]"}],"type":"index_not_found_exception","reason":"no such index [graylog_9]"},"status":404}`
		noAlias   = `{"error":"aliases [graylog_0_reopened] missing","status":404}`
		ack       = `{"acknowledged":true}`
		closedGet = `{"error":{"root_cause":[{"type":"index_closed_exception","reason":"closed","index":"graylog_0"}],"type":"index_closed_exception","reason":"closed","index":"graylog_0"},"status":400}`
	)
	f.on("GET /_alias/graylog_deflector", 200, aliasOn2)
	f.on("DELETE /graylog_0/_aliases/graylog_0_reopened", 404, noAlias)
	f.on("POST /graylog_0/_close", 200, ack)
	if err := s.CloseIndex(t.Context(), "graylog_0"); err != nil {
		t.Fatalf("CloseIndex: %v", err)
	}
	f.wantRequests(t, "GET /_alias/graylog_deflector", "DELETE /graylog_0/_aliases/graylog_0_reopened", "POST /graylog_0/_close")

	wantIs(t, "CloseIndex of the write index", s.CloseIndex(t.Context(), "graylog_2"), messages.ErrWriteIndex)
	f.wantRequests(t, "GET /_alias/graylog_deflector")
	wantIs(t, "CloseIndex of a pattern", s.CloseIndex(t.Context(), "graylog_*"), messages.ErrNotFound)
	wantIs(t, "ReopenIndex of a pattern", s.ReopenIndex(t.Context(), "_all"), messages.ErrNotFound)
	f.wantRequests(t)
	f.on("DELETE /graylog_9/_aliases/graylog_9_reopened", 404, noIndex)
	f.on("POST /graylog_9/_close", 404, noIndex)
	wantIs(t, "CloseIndex of an unknown index", s.CloseIndex(t.Context(), "graylog_9"), messages.ErrNotFound)
	f.on("POST /graylog_9/_open", 404, noIndex)
	wantIs(t, "ReopenIndex of an unknown index", s.ReopenIndex(t.Context(), "graylog_9"), messages.ErrNotFound)
	f.requests()

	f.on("GET /graylog_0/_doc/m1", 400, closedGet)
	_, err := s.Get(t.Context(), "graylog_0", "m1")
	wantIs(t, "Get from a closed index", err, messages.ErrNotFound)

	// A closed index has null counts; graylog_1 carries the mark.
	f.on("GET /_cat/indices/graylog_*", 200, `[
		{"index":"graylog_2","status":"open","docs.count":"0","store.size":"208","creation.date":"1606820000000"},
		{"index":"graylog_0","status":"close","docs.count":null,"store.size":"9000","creation.date":"1606810000000"},
		{"index":"graylog_1","status":"open","docs.count":"1","store.size":"4000","creation.date":"1606815000000"}]`)
	f.on("GET /_alias/graylog_deflector,graylog_*_reopened", 200,
		`{"graylog_2":{"aliases":{"graylog_deflector":{}}},"graylog_1":{"aliases":{"graylog_1_reopened":{}}}}`)
	f.on("POST /graylog_*/_search", 200, `{"hits":{"total":{"value":1,"relation":"eq"},"hits":[]},"aggregations":{"indices":{"buckets":[
		{"key":"graylog_1","doc_count":1,"begin":{"value":1606824000000},"end":{"value":1606824000000}}]}}}`)
	list, err := s.Indices(t.Context(), "graylog")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || !list[0].Closed || list[0].Count != 0 || list[0].Size != 0 || list[0].Reopened ||
		list[1].Closed || !list[1].Reopened || list[1].Count != 1 || list[2].Closed || list[2].Reopened || !list[2].Write {
		t.Errorf("Indices = %+v; want graylog_0 closed without figures, graylog_1 reopened", list)
	}
	res, err := s.Search(t.Context(), messages.Query{Prefixes: []string{"graylog"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Indices) != 2 || res.Indices[0].Name != "graylog_1" {
		t.Errorf("Search Result.Indices = %+v; want the open indices", res.Indices)
	}
	f.requests()

	f.on("POST /graylog_0/_open", 200, ack)
	f.on("PUT /graylog_0/_aliases/graylog_0_reopened", 200, ack)
	if err := s.ReopenIndex(t.Context(), "graylog_0"); err != nil {
		t.Fatalf("ReopenIndex: %v", err)
	}
	f.wantRequests(t, "POST /graylog_0/_open", "PUT /graylog_0/_aliases/graylog_0_reopened")
}

func wantIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}
