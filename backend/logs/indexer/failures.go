package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/capped"
	"github.com/loggate/loggate/router/api"
)

// FailuresCollection keeps the indexing failures.
const FailuresCollection = "index_failures"

// keepFailures is how many failures are kept, the newest.
const keepFailures = 10_000

// Failure is Graylog's IndexFailure: a message the store refused for good.
type Failure struct {
	LetterID  string   `json:"letter_id"`
	Index     string   `json:"index"`
	Type      string   `json:"type"`
	Message   string   `json:"message"`
	Timestamp api.Time `json:"timestamp"`
}

// Failures records and lists indexing failures.
type Failures struct {
	c   *capped.Collection
	now func() time.Time
}

// NewFailures returns the indexing failures of the cluster whose documents
// st holds.
func NewFailures(st store.Store, now func() time.Time) *Failures {
	return &Failures{c: capped.New(st, FailuresCollection, keepFailures, now), now: now}
}

// Record keeps the failure of message id, bound for the index (or index
// set prefix) index.
func (f *Failures) Record(ctx context.Context, id, index string, cause error) error {
	doc, err := api.Marshal(Failure{LetterID: id, Index: index, Type: "indexing", Message: cause.Error(),
		Timestamp: api.Time{Time: f.now().UTC()}})
	if err != nil {
		return err
	}
	return f.c.Add(ctx, doc)
}

// List returns up to limit failures, newest first, after skipping offset,
// and how many there are.
func (f *Failures) List(ctx context.Context, offset, limit int) ([]Failure, int, error) {
	docs, total, err := f.c.Newest(ctx, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Failure, len(docs))
	for i, d := range docs {
		if err := json.Unmarshal(d, &out[i]); err != nil {
			return nil, 0, fmt.Errorf("stored indexing failure: %w", err)
		}
	}
	return out, total, nil
}

// CountSince counts the failures at or after since.
func (f *Failures) CountSince(ctx context.Context, since time.Time) (int, error) {
	all, _, err := f.List(ctx, 0, keepFailures*2)
	n := 0
	for _, x := range all {
		if !x.Timestamp.Before(since) {
			n++
		}
	}
	return n, err
}
