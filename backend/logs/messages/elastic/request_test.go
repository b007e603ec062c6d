package elastic

import (
	"context"
	"errors"
	"testing"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/loggate/loggate/backend/logs/messages"
)

// TestRequestHeaders checks what esapi and the store's transport put on
// the wire besides the URI: JSON asked for, JSON sent, and NDJSON for
// _bulk.
func TestRequestHeaders(t *testing.T) {
	f, s := writeFake(t)
	f.on("POST /_bulk", 200, bulkOK)
	if err := s.Write(t.Context(), "graylog", sampleMessages()[:1]); err != nil {
		t.Fatal(err)
	}
	f.on("PUT /loggate-state/_doc/default", 200, `{"result":"updated"}`)
	if err := s.Flush(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	reqs := f.wantRequests(t,
		"PUT /_template/graylog-template",
		"GET /_alias/graylog_deflector",
		"POST /_bulk?refresh=wait_for&require_alias=true",
		"PUT /loggate-state/_doc/default")
	want := []string{"application/json", "", "application/x-ndjson", "application/json"}
	for i, r := range reqs {
		if i < len(want) && r.ContentType != want[i] {
			t.Errorf("%s: Content-Type %q, want %q", r, r.ContentType, want[i])
		}
		if r.Accept != "application/json" {
			t.Errorf("%s: Accept %q, want application/json", r, r.Accept)
		}
	}
}

// TestRequestPaths checks escaping in paths esapi builds from the store's
// names: "+" in prefixes, and ids and node names of any characters.
func TestRequestPaths(t *testing.T) {
	f := newFake(t, "7.10.2")
	f.on("GET /loggate-state/_doc/node/1 2", 404, `{"found":false}`)
	s := f.open(t, Options{Node: "node/1 2"})
	f.on("GET /a+b_0/_doc/x/y?", 404, `{"found":false}`)
	if _, err := s.Get(t.Context(), "a+b_0", "x/y?"); !errors.Is(err, messages.ErrNotFound) {
		t.Errorf("Get = %v, want ErrNotFound", err)
	}
	f.wantRequests(t, "GET /a%2Bb_0/_doc/x%2Fy%3F")
	f.on("PUT /loggate-state/_doc/node/1 2", 201, `{"result":"created"}`)
	if err := s.Flush(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	f.wantRequests(t, "PUT /loggate-state/_doc/node%2F1%202")
}

// failingRequest fails before it reaches the transport, as an esapi
// request whose URL does not parse does.
type failingRequest struct{}

var errBuild = errors.New("no request")

func (failingRequest) Do(context.Context, esapi.Transport) (*esapi.Response, error) {
	return nil, errBuild
}

func TestDoErrors(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	if _, _, err := s.do(t.Context(), failingRequest{}); !errors.Is(err, errBuild) || errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("do of a request that does not build: %v, want its error, not ErrUnavailable", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.do(t.Context(), esapi.InfoRequest{})
	if !errors.Is(err, messages.ErrUnavailable) || err.Error() != "GET /: "+messages.ErrUnavailable.Error()+": the store is closed" {
		t.Errorf("do after Close: %v, want ErrUnavailable naming the request", err)
	}
	f.wantRequests(t)
}
