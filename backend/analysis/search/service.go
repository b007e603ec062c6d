// Package search owns searching stored messages: Graylog's universal
// search (/search/universal/relative|absolute|keyword and their CSV
// exports), single messages (/messages/{index}/{messageId}), and the
// messages search type of the views API (/views/search/sync,
// /views/search/messages). Queries are parsed by search/query; the store
// evaluates them.
package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// Store is the part of messages.Store searching reads.
type Store interface {
	Search(ctx context.Context, q messages.Query) (messages.Result, error)
	Scan(ctx context.Context, q messages.Query) (messages.Cursor, error)
	Get(ctx context.Context, index, id string) (messages.Hit, error)
}

// Streams gives the current streams; *streams.Service satisfies it.
type Streams interface {
	All() []*streams.Stream
}

// IndexSets lists index sets; *indexsets.Service satisfies it.
type IndexSets interface {
	All(ctx context.Context) ([]indexsets.IndexSet, error)
}

// Options tune the service.
type Options struct {
	// AllowLeadingWildcard is Graylog's allow_leading_wildcard_searches.
	AllowLeadingWildcard bool
	Now                  func() time.Time
	// MaxAggregated is how many matching messages an aggregation reads at
	// most; DefaultMaxAggregated when 0.
	MaxAggregated int
	// MaxBuckets is how many buckets an aggregation answers at most;
	// DefaultMaxBuckets when 0.
	MaxBuckets int

	// MaxConcurrent is how many searches, exports and aggregations run at
	// once (search_max_concurrent); DefaultMaxConcurrent() when 0.
	MaxConcurrent int
	// MaxQueueDuration is how long a search waits for a place before it
	// is answered 503 (search_max_queue_duration);
	// DefaultMaxQueueDuration when 0.
	MaxQueueDuration time.Duration
	// WriteStall is how long one write of an answer may block while its
	// search holds a place; DefaultWriteStall when 0.
	WriteStall time.Duration

	aggregatePage int // tests page small
}

// Service runs searches for callers, within their stream permissions.
type Service struct {
	store   Store
	streams Streams
	sets    IndexSets
	opts    Options
	gate    *gate
}

// NewService returns a search service.
func NewService(st Store, ss Streams, sets IndexSets, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{store: st, streams: ss, sets: sets, opts: opts, gate: newGate(opts.MaxConcurrent, opts.MaxQueueDuration)}
}

// Request is one search, as the endpoints take it apart.
type Request struct {
	Query string
	Range TimeRange
	// Streams is the stream filter; nil searches every stream the caller
	// may read.
	Streams       []string
	Sort          messages.Sort
	Offset, Limit int
}

// Response is a search's result with what it ran on.
type Response struct {
	Result messages.Result
	Took   time.Duration
	Node   query.Node
}

// allStreams is what lets a caller search without a stream restriction.
const allStreams = "streams:read:*"

// Search runs r for the caller in ctx. A stream filter naming a stream the
// caller cannot read is refused with 403; without a filter, a caller who
// cannot read every stream sees only the streams they can read.
func (s *Service) Search(ctx context.Context, r Request) (Response, error) {
	return s.searchWindow(ctx, r, 0)
}

// searchWindow is Search with the result window forced to window when it
// is not 0.
func (s *Service) searchWindow(ctx context.Context, r Request, window int) (Response, error) {
	q, node, err := s.prepare(ctx, r, window)
	if err != nil || q == nil {
		return Response{Node: node}, err
	}
	start := time.Now()
	res, err := s.store.Search(ctx, *q)
	if err != nil {
		return Response{}, storeError(err, *q)
	}
	return Response{Result: res, Took: time.Since(start), Node: node}, nil
}

// Scan runs r as Search does, with the same checks, and returns a cursor
// over its hits instead of a page of them: the caller writes each hit out
// before it reads the next, and closes the cursor. The result window
// applies unless window overrides it (exports read past it, as Graylog's
// scrolls do).
func (s *Service) Scan(ctx context.Context, r Request, window int) (messages.Cursor, query.Node, error) {
	q, node, err := s.prepare(ctx, r, window)
	if err != nil {
		return nil, node, err
	}
	if q == nil {
		return emptyCursor{}, node, nil
	}
	c, err := s.store.Scan(ctx, *q)
	if err != nil {
		return nil, node, storeError(err, *q)
	}
	return c, node, nil
}

// prepare checks r for the caller in ctx and returns the store query; nil
// when the caller can read no stream, whose answer is empty.
func (s *Service) prepare(ctx context.Context, r Request, window int) (*messages.Query, query.Node, error) {
	// Views bodies carry offsets and limits as any JSON number: bound
	// them as the query parameters are, before anything adds them up.
	if r.Offset < 0 || r.Offset > api.MaxInt32 {
		return nil, nil, api.RangeError("offset", strconv.Itoa(r.Offset), 0, api.MaxInt32)
	}
	if r.Limit < 0 || r.Limit > api.MaxInt32 {
		return nil, nil, api.RangeError("limit", strconv.Itoa(r.Limit), 0, api.MaxInt32)
	}
	node, err := query.Parse(r.Query, query.Options{AllowLeadingWildcard: s.opts.AllowLeadingWildcard})
	if err != nil {
		return nil, nil, parseError(err)
	}
	p := auth.FromContext(ctx)
	if p == nil {
		return nil, nil, api.Errorf(api.Unauthorized, "Not authorized")
	}
	selected := r.Streams
	if selected != nil {
		for _, id := range selected {
			if !p.Permits("streams:read:" + id) {
				return nil, nil, api.Errorf(api.Forbidden, "Not allowed to search with filter: [streams:%s]. (Forbidden stream: %s)", id, id)
			}
		}
	} else if !p.Permits(allStreams) {
		selected = []string{}
		for _, st := range s.streams.All() {
			if p.Permits("streams:read:" + st.ID) {
				selected = append(selected, st.ID)
			}
		}
	}
	q := messages.Query{Query: node, From: r.Range.From, To: r.Range.To, Streams: selected,
		Sort: r.Sort, Offset: r.Offset, Limit: r.Limit}
	if selected != nil && len(selected) == 0 {
		// Nothing readable: an empty answer, not a search of everything.
		return nil, node, nil
	}
	if q.Prefixes, q.Window, err = s.scope(ctx, selected); err != nil {
		return nil, nil, err
	}
	if window > 0 {
		q.Window = window
	}
	if q.Offset > q.Window-q.Limit { // q.Offset+q.Limit > q.Window, without overflow
		return nil, nil, windowError(q.Offset, q.Limit, q.Window)
	}
	return &q, node, nil
}

// emptyCursor is the scan of nothing.
type emptyCursor struct{}

func (emptyCursor) Result() messages.Result    { return messages.Result{} }
func (emptyCursor) Next() (messages.Hit, bool) { return messages.Hit{}, false }
func (emptyCursor) Err() error                 { return nil }
func (emptyCursor) Close() error               { return nil }

// scope returns the index prefixes a search of the selected streams (nil:
// all) looks at, and the smallest result window among those index sets.
func (s *Service) scope(ctx context.Context, selected []string) ([]string, int, error) {
	sets, err := s.sets.All(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("search: listing index sets: %w", err)
	}
	byID := make(map[string]indexsets.IndexSet, len(sets))
	for _, is := range sets {
		byID[is.ID] = is
	}
	var prefixes []string
	window := 0
	use := func(is indexsets.IndexSet) {
		if !slices.Contains(prefixes, is.IndexPrefix) {
			prefixes = append(prefixes, is.IndexPrefix)
		}
		w := is.MaxResultWindow
		if w == 0 {
			w = messages.DefaultResultWindow
		}
		if window == 0 || w < window {
			window = w
		}
	}
	if selected == nil {
		events := false
		for _, is := range sets {
			// Events index sets hold events, not messages: their window
			// does not limit a message search, and, as Graylog leaves the
			// events streams out of the streams a search may read, their
			// events are not found by one.
			if is.IndexTemplateType == nil || *is.IndexTemplateType != indexsets.TemplateEvents {
				use(is)
			} else {
				events = true
			}
		}
		if !events {
			// Every index set: the store searches all prefixes.
			prefixes = nil
		}
	} else {
		for _, st := range s.streams.All() {
			if slices.Contains(selected, st.ID) {
				if is, ok := byID[st.IndexSetID]; ok {
					use(is)
				}
			}
		}
	}
	if window == 0 {
		window = messages.DefaultResultWindow
	}
	return prefixes, window, nil
}

// windowError refuses offset+limit past window; the sum is printed as a
// 64-bit number so that it cannot wrap.
func windowError(offset, limit, window int) error {
	asked := int64(offset) + int64(limit)
	return api.Errorf(api.Invalid,
		"Result window is too large, [from + size] must be less than or equal to: [%d] but was [%d]. "+
			"Page with a smaller offset, or raise the limit with max_result_window on the index set "+
			"(PUT /api/system/indices/index_sets/{id}).", window, asked)
}

// parseError answers a query that does not parse with Graylog's
// QueryParseError body (400), which every search endpoint answers with.
func parseError(err error) error {
	body, ok := query.BodyOf(err)
	if !ok {
		return err
	}
	return &api.Error{Code: api.Invalid, Message: err.Error(), Body: body, Err: err}
}

func storeError(err error, q messages.Query) error {
	switch {
	case errors.Is(err, messages.ErrResultWindow):
		return windowError(q.Offset, q.Limit, q.Window)
	case errors.Is(err, messages.ErrUnavailable):
		return api.Wrap(api.Unavailable, "The message store is unavailable; try again later.", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("search: %w", err)
}

// Message returns one message for the caller: it needs messages:read on
// the id and streams:read on one of the message's streams.
func (s *Service) Message(ctx context.Context, index, id string) (messages.Hit, error) {
	if err := auth.Require(ctx, "messages:read:"+id); err != nil {
		return messages.Hit{}, err
	}
	hit, err := s.store.Get(ctx, index, id)
	if errors.Is(err, messages.ErrNotFound) {
		return messages.Hit{}, api.Errorf(api.NotFound, "Message %s does not exist in index %s", id, index)
	}
	if err != nil {
		return messages.Hit{}, storeError(err, messages.Query{})
	}
	p := auth.FromContext(ctx)
	if p.Permits(allStreams) {
		return hit, nil
	}
	for _, st := range hit.Message.Streams {
		if p.Permits("streams:read:" + st) {
			return hit, nil
		}
	}
	return messages.Hit{}, api.Errorf(api.Forbidden, "Not authorized to access message %s", id)
}

// Now returns the service's current time, at millisecond precision, in UTC:
// the end of every relative range.
func (s *Service) Now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }
