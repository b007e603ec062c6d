package elastic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// maxResponse bounds the response body read into memory. A search page is
// at most Query.Window hits, far below it.
const maxResponse = 1 << 30

// Error is an error answer of the server: its HTTP status and the type and
// reason of the error (of its root cause when the top one only says that
// all shards failed).
type Error struct {
	Status int
	Type   string
	Reason string
}

func (e *Error) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("status %d: %s", e.Status, e.Reason)
	}
	return fmt.Sprintf("status %d: %s: %s", e.Status, e.Type, e.Reason)
}

// do sends one request built with esapi and returns the status and body of
// the answer. It is the one place requests are executed: through the
// store's elastictransport client, without the product check of
// go-elasticsearch's client (see the package comment). A transport failure
// is an error wrapping messages.ErrUnavailable, or the caller's context
// error when that context ended; every HTTP status is returned for the
// caller to judge.
func (s *Store) do(ctx context.Context, req esapi.Request) (int, []byte, error) {
	parent := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	tp := &sender{s: s}
	res, err := req.Do(ctx, tp)
	if err == nil {
		defer res.Body.Close()
		var data []byte
		data, err = io.ReadAll(io.LimitReader(res.Body, maxResponse))
		if err == nil {
			return res.StatusCode, data, nil
		}
	}
	switch {
	case tp.op == "":
		// esapi failed before sending: the request did not build.
		return 0, nil, fmt.Errorf("build request: %w", err)
	case errors.Is(err, errClosed):
		return 0, nil, fmt.Errorf("%s: %w: %w", tp.op, messages.ErrUnavailable, err)
	}
	if cerr := parent.Err(); cerr != nil {
		return 0, nil, fmt.Errorf("%s: %w", tp.op, cerr)
	}
	return 0, nil, fmt.Errorf("%s: %w: Elasticsearch at %s did not answer: %w", tp.op, messages.ErrUnavailable, s.hosts, err)
}

// errClosed is the transport failure of a request after Close.
var errClosed = errors.New("the store is closed")

// sender is the esapi.Transport of one request: the store's transport,
// refusing requests after Close, asking for JSON answers, and noting the
// method and URI for errors.
type sender struct {
	s  *Store
	op string // "GET /path", once esapi built the request
}

// Perform implements esapi.Transport. The header is the request's own:
// esapi makes one per request, or uses the one its caller set, which is
// never shared between requests either.
func (t *sender) Perform(req *http.Request) (*http.Response, error) {
	t.op = req.Method + " " + req.URL.RequestURI()
	if t.s.closed.Load() {
		return nil, errClosed
	}
	req.Header.Set("Accept", "application/json")
	return t.s.tp.Perform(req)
}

// typedGetRequest is GET /<index>/<type>/<id>, for Elasticsearch 6.8,
// whose indices have Graylog's mapping type "message" and which Graylog
// 4.0 addresses by that type. esapi v8's GetRequest has no DocumentType:
// it always sends /<index>/_doc/<id>. Index, DocumentType and DocumentID
// go into the path as they are, escaped by the caller, as in esapi's own
// requests.
type typedGetRequest struct {
	Index, DocumentType, DocumentID string
}

// Do implements esapi.Request.
func (r typedGetRequest) Do(ctx context.Context, tp esapi.Transport) (*esapi.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/"+r.Index+"/"+r.DocumentType+"/"+r.DocumentID, nil)
	if err != nil {
		return nil, err
	}
	res, err := tp.Perform(req)
	if err != nil {
		return nil, err
	}
	return &esapi.Response{StatusCode: res.StatusCode, Body: res.Body, Header: res.Header}, nil
}

// jsonBody is a request body for esapi, nil when there is none.
func jsonBody(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

// fail turns an error answer into an error: wrapping
// messages.ErrUnavailable when the cluster cannot serve the request now
// but will later, wrapping messages.ErrNotFound for a 404.
func (s *Store) fail(op string, status int, body []byte) error {
	e := parseError(status, body)
	switch {
	case retryable(e.Status, e.Type):
		return fmt.Errorf("%s: %w: Elasticsearch at %s: %w", op, messages.ErrUnavailable, s.hosts, e)
	case e.Status == http.StatusNotFound, e.Type == "index_closed_exception":
		// A closed index holds nothing a request can read.
		return fmt.Errorf("%s: %w: %w", op, messages.ErrNotFound, e)
	case e.Status == http.StatusBadRequest && strings.Contains(e.Reason, "Result window is too large"):
		return fmt.Errorf("%s: %w: %w", op, messages.ErrResultWindow, e)
	}
	return fmt.Errorf("%s: Elasticsearch at %s: %w", op, s.hosts, e)
}

// retryable reports whether an error answer means that the same request
// will succeed later: the cluster is overloaded (429, rejected execution),
// a proxy or the cluster is unavailable (502, 503, 504), or writes are
// blocked, as they are when a disk fills up.
func retryable(status int, typ string) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	switch typ {
	case "es_rejected_execution_exception", "cluster_block_exception", "unavailable_shards_exception",
		"no_shard_available_action_exception", "process_cluster_event_timeout_exception":
		return true
	}
	return false
}

// parseError reads Elasticsearch's error body, {"error":{"type",
// "reason","root_cause":[…]},"status"}, or anything else a proxy may
// answer.
func parseError(status int, body []byte) *Error {
	e := &Error{Status: status}
	if !gjson.ValidBytes(body) {
		e.Reason = truncate(string(body))
		return e
	}
	r := gjson.ParseBytes(body)
	errv := r.Get("error")
	switch {
	case errv.IsObject():
		e.Type, e.Reason = errv.Get("type").String(), errv.Get("reason").String()
		root := errv.Get("root_cause.0")
		if root.Exists() && root.Get("type").String() != e.Type {
			e.Reason += " (" + root.Get("type").String() + ": " + root.Get("reason").String() + ")"
		} else if cause := errv.Get("caused_by"); cause.Exists() {
			e.Reason += " (" + cause.Get("type").String() + ": " + cause.Get("reason").String() + ")"
		}
	case errv.Exists():
		e.Reason = errv.String()
	default:
		// Not an error body: a 404 of GET /<index>/_doc/<id> is the
		// document answer with "found": false.
		e.Reason = truncate(string(body))
	}
	return e
}

func truncate(s string) string {
	const max = 300
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// errorType returns the error type of an error answer, "" if none.
func errorType(body []byte) string {
	return gjson.GetBytes(body, "error.type").String()
}

// server is what GET / says about the cluster.
type server struct {
	Number       string
	Major, Minor int
	OpenSearch   bool
}

// typed reports whether the cluster needs mapping types: Elasticsearch 6
// does, 7 and OpenSearch do not.
func (v server) typed() bool { return !v.OpenSearch && v.Major < 7 }

// typeName is the mapping type in document paths: Graylog's "message"
// before 7, "_doc" since.
func (v server) typeName() string {
	if v.typed() {
		return "message"
	}
	return "_doc"
}

// requireAlias reports whether _bulk takes require_alias: since
// Elasticsearch 7.10, and in every OpenSearch.
func (v server) requireAlias() bool {
	return v.OpenSearch || v.Major > 7 || v.Major == 7 && v.Minor >= 10
}

// errUnsupported is returned for a cluster older than Elasticsearch 6.8's
// series, which Graylog 4.0 does not support either.
var errUnsupported = errors.New("unsupported Elasticsearch version")

func parseServer(body []byte) (server, error) {
	v := gjson.GetBytes(body, "version")
	number := v.Get("number").String()
	major, rest, _ := strings.Cut(number, ".")
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return server{}, fmt.Errorf("GET / answered no version number: %s", truncate(string(body)))
	}
	m, _ := strconv.Atoi(minor)
	srv := server{Number: number, Major: n, Minor: m, OpenSearch: v.Get("distribution").String() == "opensearch"}
	if !srv.OpenSearch && n < 6 {
		return server{}, fmt.Errorf("%w %s: loggate needs 6.8 or later", errUnsupported, number)
	}
	return srv, nil
}
