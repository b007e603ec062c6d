package elastic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// maxBulkBytes splits large writes into several _bulk requests, well
// below Elasticsearch's http.max_content_length of 100 MB.
const maxBulkBytes = 8 << 20

// Write indexes msgs into the write index of prefix through its deflector
// alias, creating the series if needed, and returns once they are
// searchable.
//
// Each request asks refresh=wait_for: it returns when the next scheduled
// refresh (every second by default) has made the documents visible. That
// costs up to one refresh interval of latency per Write but nothing on the
// cluster; refresh=true would answer at once but force a new Lucene
// segment per request, which under a steady stream of small writes is the
// merge storm Elasticsearch warns about. An index whose refresh_interval
// is -1 makes Write wait until index.max_refresh_listeners is exceeded.
//
// A message failing on its own (a mapping conflict, say) is reported in a
// *BulkError; the others are written. When any failure is one the cluster
// will not have later (overload, blocks, an index gone), the error also
// wraps messages.ErrUnavailable: writing the whole batch again is safe, as
// every message is written under its own id.
func (s *Store) Write(ctx context.Context, prefix string, msgs []messages.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if !validName(prefix) {
		return fmt.Errorf("write: invalid index prefix %q", prefix)
	}
	phys := s.phys(prefix)
	if err := s.ensureSeries(ctx, phys); err != nil {
		// No message was sent: whatever failed is not theirs.
		if !errors.Is(err, messages.ErrUnavailable) && ctx.Err() == nil {
			return fmt.Errorf("write to %s: %w: %w", prefix, messages.ErrUnavailable, err)
		}
		return fmt.Errorf("write to %s: %w", prefix, err)
	}
	// Without require_alias a missing alias would be auto-created as an
	// index of that name, which no rotation could ever move.
	requireAlias := s.srv.requireAlias()
	var buf []byte
	for start := 0; start < len(msgs); {
		buf = buf[:0]
		end := start
		for end < len(msgs) && (end == start || len(buf) < maxBulkBytes) {
			var err error
			if buf, err = appendBulk(buf, s.srv, deflector(phys), msgs[end:end+1]); err != nil {
				return fmt.Errorf("write to %s: message %d: %w", prefix, end, err)
			}
			end++
		}
		if err := s.bulk(ctx, phys, requireAlias, buf); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// bulk sends one _bulk request for the series with physical prefix. The
// action lines name the index (and, for 6.8, the type), so the request
// names neither.
func (s *Store) bulk(ctx context.Context, prefix string, requireAlias bool, body []byte) error {
	req := esapi.BulkRequest{
		Body:    bytes.NewReader(body),
		Refresh: "wait_for",
		// A header of its own: the transport adds to it.
		Header: http.Header{"Content-Type": {"application/x-ndjson"}},
	}
	if requireAlias {
		req.RequireAlias = &requireAlias
	}
	status, resp, err := s.do(ctx, req)
	if err != nil {
		return fmt.Errorf("write to %s: %w", prefix, err)
	}
	if status != http.StatusOK {
		err := s.fail("write to "+prefix, status, resp)
		// Only a body the cluster cannot take (400, 413) is the messages'
		// own; any other refusal of the whole request (credentials,
		// privileges, a proxy, an internal error) wrote nothing and is
		// the cluster's, to retry later rather than drop the messages.
		if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge && !errors.Is(err, messages.ErrUnavailable) {
			err = fmt.Errorf("%w: %w", messages.ErrUnavailable, err)
		}
		return err
	}
	berr, err := parseBulk(resp)
	if err != nil {
		// A 200 that is not a bulk answer (a proxy's page) tells nothing
		// of the messages: they are written again later, which their own
		// ids make harmless, rather than dropped.
		return fmt.Errorf("write to %s: %w: %w", prefix, messages.ErrUnavailable, err)
	}
	if berr == nil {
		return nil
	}
	if berr.gone {
		s.forget(prefix)
	}
	if berr.retry {
		return fmt.Errorf("write to %s: %w: %w", prefix, messages.ErrUnavailable, berr)
	}
	return fmt.Errorf("write to %s: %w", prefix, berr)
}

// BulkError lists the messages of a Write that were not written.
type BulkError struct {
	// Failed are the failures, in the order of the messages.
	Failed []BulkFailure
	// Total is the number of messages in the request.
	Total int

	retry bool // some failure will not happen again later
	gone  bool // the write index or its alias was not found
}

// BulkFailure is one message that was not written.
type BulkFailure struct {
	ID     string
	Status int
	Type   string
	Reason string
}

func (e *BulkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d messages not written", len(e.Failed), e.Total)
	const shown = 3
	for i, f := range e.Failed {
		if i == shown {
			fmt.Fprintf(&b, "; and %d more", len(e.Failed)-shown)
			break
		}
		fmt.Fprintf(&b, "; %s: status %d: %s: %s", f.ID, f.Status, f.Type, f.Reason)
	}
	return b.String()
}

// parseBulk reads a _bulk answer: nil when every item succeeded.
func parseBulk(body []byte) (*BulkError, error) {
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("%w: _bulk answer is not JSON", errBadResponse)
	}
	r := gjson.ParseBytes(body)
	items := r.Get("items")
	if !items.IsArray() {
		return nil, fmt.Errorf("%w: _bulk answer without items", errBadResponse)
	}
	if errs := r.Get("errors"); errs.Type == gjson.False {
		return nil, nil
	}
	e := &BulkError{}
	items.ForEach(func(_, item gjson.Result) bool {
		e.Total++
		// The one key is the action: index here.
		item.ForEach(func(_, res gjson.Result) bool {
			status := int(res.Get("status").Int())
			if status >= 200 && status < 300 {
				return false
			}
			f := BulkFailure{
				ID:     res.Get("_id").String(),
				Status: status,
				Type:   res.Get("error.type").String(),
				Reason: res.Get("error.reason").String(),
			}
			if f.Type == "index_not_found_exception" {
				e.gone = true
			}
			// A write the user may not do is no fault of the message.
			if retryable(f.Status, f.Type) || f.Type == "index_not_found_exception" ||
				f.Status == http.StatusUnauthorized || f.Type == "security_exception" {
				e.retry = true
			}
			e.Failed = append(e.Failed, f)
			return false
		})
		return true
	})
	if len(e.Failed) == 0 {
		return nil, nil
	}
	return e, nil
}

// Get returns the message with the given _id from the named index (or
// alias).
func (s *Store) Get(ctx context.Context, index, id string) (messages.Hit, error) {
	if !validName(index) || id == "" {
		return messages.Hit{}, fmt.Errorf("get %s/%s: %w", index, id, messages.ErrNotFound)
	}
	var req esapi.Request = esapi.GetRequest{Index: pathName(s.phys(index)), DocumentID: url.PathEscape(id)}
	if s.srv.typed() {
		req = typedGetRequest{Index: pathName(s.phys(index)), DocumentType: s.srv.typeName(), DocumentID: url.PathEscape(id)}
	}
	status, body, err := s.do(ctx, req)
	if err != nil {
		return messages.Hit{}, fmt.Errorf("get %s/%s: %w", index, id, err)
	}
	if status == http.StatusNotFound {
		return messages.Hit{}, fmt.Errorf("get %s/%s: %w", index, id, messages.ErrNotFound)
	}
	if status != http.StatusOK {
		// A closed index answers 400 index_closed_exception: not found.
		return messages.Hit{}, s.fail("get "+index+"/"+id, status, body)
	}
	hit, err := parseDoc(body)
	if err != nil {
		return messages.Hit{}, fmt.Errorf("get %s/%s: %w", index, id, err)
	}
	hit.Index = s.logical(hit.Index)
	return hit, nil
}

// parseDoc reads the answer of GET /<index>/_doc/<id>.
func parseDoc(body []byte) (messages.Hit, error) {
	if !gjson.ValidBytes(body) {
		return messages.Hit{}, fmt.Errorf("%w: document answer is not JSON", errBadResponse)
	}
	r := gjson.ParseBytes(body)
	if found := r.Get("found"); found.Type == gjson.False {
		return messages.Hit{}, messages.ErrNotFound
	}
	return parseHit(r)
}
