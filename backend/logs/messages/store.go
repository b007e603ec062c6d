package messages

import (
	"context"
	"errors"
	"time"

	"github.com/loggate/loggate/backend/analysis/search/query"
)

// Store holds messages in indices named like Graylog's, <prefix>_<n>, one
// series per index set. The embedded store and the Elasticsearch store
// implement it, and messagestest.Run is the contract both pass.
//
// The field semantics follow Graylog's index template: message and
// full_message are analyzed text (lower-cased words), source is one
// lower-cased keyword, every other string field is an exact keyword, int64
// and float64 fields are numbers, timestamp is a date.
type Store interface {
	// Write adds msgs to the write index of the index set with the given
	// prefix, creating the index <prefix>_0 if the series is empty. The
	// messages are searchable when Write returns. Writing a message whose
	// ID is already in the write index replaces it, so a replay never
	// duplicates.
	Write(ctx context.Context, prefix string, msgs []Message) error
	// Flush makes everything written so far durable and records
	// checkpoint with it, atomically: after a crash, Checkpoint returns
	// the value of the last Flush that completed and exactly the messages
	// written before it are there.
	Flush(ctx context.Context, checkpoint uint64) error
	// Checkpoint returns the checkpoint of the last completed Flush, 0 if
	// there was none.
	Checkpoint() uint64

	// Search runs q over the indices of q.Prefixes (all when empty).
	Search(ctx context.Context, q Query) (Result, error)
	// Scan runs q as Search does and returns a cursor over its hits in
	// q.Sort order, from q.Offset, at most q.Limit of them (all when 0).
	// It reads the store one page at a time and never starts over, so a
	// scan costs the same per hit however deep it goes, and holds about
	// one page whatever its length; the result window does not apply.
	// The caller closes the cursor.
	Scan(ctx context.Context, q Query) (Cursor, error)
	// Get returns the message with the given _id from the named index, or
	// an error wrapping ErrNotFound.
	Get(ctx context.Context, index, id string) (Hit, error)

	// Indices lists the indices of a series, oldest first, the write
	// index last.
	Indices(ctx context.Context, prefix string) ([]Index, error)
	// Rotate starts a new write index <prefix>_<n+1> and returns its name.
	Rotate(ctx context.Context, prefix string) (string, error)
	// Delete removes an index that is not a write index; deleting a write
	// index is an error wrapping ErrWriteIndex, an unknown index one
	// wrapping ErrNotFound.
	Delete(ctx context.Context, index string) error
	// CloseIndex closes an index that is not a write index, as Graylog
	// closes one: its data stays on disk, but no search, scan or Get sees
	// it until ReopenIndex, and it stays closed across restarts. Closing
	// clears the reopened mark; closing a closed index does nothing.
	// Closing a write index is an error wrapping ErrWriteIndex, an unknown
	// index one wrapping ErrNotFound.
	CloseIndex(ctx context.Context, index string) error
	// ReopenIndex opens a closed index again and marks it reopened, which
	// keeps retention from deleting it (Graylog's reopened mark). An
	// unknown index is an error wrapping ErrNotFound.
	ReopenIndex(ctx context.Context, index string) error
	// Health reports the store as Graylog shows its Elasticsearch cluster.
	Health(ctx context.Context) (Health, error)

	Close() error
}

// Errors a Store returns, wrapped.
var (
	ErrNotFound = errors.New("not found")
	// ErrUnavailable means the store cannot be reached or cannot write
	// right now; the caller retries later and loses nothing.
	ErrUnavailable = errors.New("message store unavailable")
	ErrWriteIndex  = errors.New("is the write index")
	// ErrResultWindow means Offset+Limit exceeds the result window.
	ErrResultWindow = errors.New("result window is too large")
)

// Query is one search.
type Query struct {
	// Query is the parsed Lucene query; nil or MatchAll matches every
	// message. A term without a field matches any field.
	Query query.Node
	// From and To bound the timestamp, both inclusive; a zero value leaves
	// that side open.
	From, To time.Time
	// Streams, when not empty, keeps only messages routed to at least one
	// of these streams.
	Streams []string
	// Prefixes are the index sets to search; all when empty.
	Prefixes []string
	// Sort orders the hits; the zero value is timestamp descending. Ties
	// are broken by _id, so pages never overlap or skip.
	Sort Sort
	// Offset and Limit page the hits. Limit 0 returns no hits, only the
	// total.
	Offset, Limit int
	// Window is the largest Offset+Limit allowed; 0 means
	// DefaultResultWindow.
	Window int
}

// DefaultResultWindow is Elasticsearch's index.max_result_window default.
const DefaultResultWindow = 10000

// Sort is a sort order.
type Sort struct {
	Field string // "" means timestamp
	Asc   bool
}

// Result is the answer to a Query.
type Result struct {
	// Total counts every match, not only the page.
	Total int64
	Hits  []Hit
	// Indices are the indices the search looked at.
	Indices []Index
}

// Hit is one message found, with the index that holds it.
type Hit struct {
	Index   string
	Message Message
}

// Index describes one index of a series.
type Index struct {
	Name   string
	Prefix string
	// Number is the n of <prefix>_<n>.
	Number int
	// Count is the number of messages, Size the bytes on disk.
	Count int64
	Size  int64
	// Begin and End are the smallest and largest message timestamps, zero
	// when the index is empty.
	Begin, End time.Time
	// Created is when the index was created.
	Created time.Time
	// Write is true for the series' write index.
	Write bool
	// Closed is true for a closed index. Its Count, Size, Begin and End
	// are zero: like Elasticsearch, the store reports no figures for it.
	Closed bool
	// Reopened is true for an index a person reopened after it was
	// closed; retention leaves it alone.
	Reopened bool
}

// Cursor walks the hits of a Scan.
type Cursor interface {
	// Result is the total and the indices of the scan, as Search answers
	// them, without hits.
	Result() Result
	// Next returns the next hit; false at the end, or after an error
	// (then Err says which).
	Next() (Hit, bool)
	Err() error
	// Close releases what the scan holds; it may be called more than
	// once.
	Close() error
}
