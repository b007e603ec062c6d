package search

import (
	"context"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// One search request (a synchronous search, or the execution of a stored
// one) builds its whole answer in memory, so what it may ask for in total
// is bounded, not only each search type: 40 message lists of 10,000 each
// would otherwise take gigabytes. The bounds are far above what the web
// interface asks (a page of 150 messages per list, a few dozen widgets).
const (
	// MaxSearchTypes is the most search types of one request.
	MaxSearchTypes = 256
	// MaxRequestMessages is the most messages the message lists of one
	// request may ask for together: twice a result window.
	MaxRequestMessages = 2 * messages.DefaultResultWindow
	// MaxGroupings is the most row and column groups of one pivot; each
	// level of a rolled-up pivot repeats the keys above it in every row.
	MaxGroupings = 16
	// MaxSeries is the most series of one pivot.
	MaxSeries = 64
	// MaxRequestValues is the most values the pivots of one request may
	// answer together, a value being a series in a bucket: the buckets of
	// a pivot are bounded (Options.MaxBuckets), but empty time buckets are
	// filled in and every series multiplies them, so that one pivot of a
	// millisecond interval and 64 series answered 220 MB. It is eight
	// histograms of the most buckets.
	MaxRequestValues = 8 * DefaultMaxBuckets
)

// requestSize is what a request has asked for so far.
type requestSize struct {
	types, messages, values int
}

type requestSizeKey struct{}

// WithRequestSize starts counting what one search request asks for: every
// query run with the returned context counts towards the same bounds.
func WithRequestSize(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestSizeKey{}, &requestSize{})
}

// countSearchType counts a search type that lists limit messages (0 for a
// pivot) towards the request's bounds; without WithRequestSize the query
// is a request of its own.
func countSearchType(ctx context.Context, size *requestSize, limit int) error {
	if s, ok := ctx.Value(requestSizeKey{}).(*requestSize); ok {
		size = s
	}
	size.types++
	size.messages += max(limit, 0)
	switch {
	case size.types > MaxSearchTypes:
		return api.Errorf(api.Invalid, "A search may have at most %d search types", MaxSearchTypes)
	case size.messages > MaxRequestMessages:
		return api.Errorf(api.Invalid, "The message lists of a search may ask for at most %d messages together", MaxRequestMessages)
	}
	return nil
}

// countPivotValues counts the values a pivot answers towards the
// request's bounds, before its rows are made of them.
func countPivotValues(ctx context.Context, size *requestSize, values int) error {
	if s, ok := ctx.Value(requestSizeKey{}).(*requestSize); ok {
		size = s
	}
	size.values += values
	if size.values > MaxRequestValues {
		return api.Errorf(api.Invalid, "The pivots of a search may answer at most %d values (series in buckets) together; ask for fewer buckets (a longer interval) or fewer series", MaxRequestValues)
	}
	return nil
}

// pivotValues is how many values the rows of a pivot over root hold: a
// value for each series (one at least) in each bucket, the rolled-up ones
// included.
func pivotValues(root *Bucket, series int) int {
	if root == nil {
		return 0
	}
	n := 0
	var walk func(b *Bucket)
	walk = func(b *Bucket) {
		n++
		for _, c := range b.Buckets {
			walk(c)
		}
	}
	walk(root)
	return n * max(series, 1)
}
