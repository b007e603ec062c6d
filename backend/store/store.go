// Package store declares the document store that holds loggate's
// configuration (users, roles, tokens, sessions, streams, …). Documents are
// JSON objects addressed by collection and id. Implementations: bolt (the
// embedded default) and mongo (MongoDB, shared by the nodes of a cluster).
// Every implementation passes the contract suite in storetest.
package store

import (
	"context"
	"errors"
	"net/http"

	"github.com/loggate/loggate/router/api"
)

// Errors returned by every implementation. Callers test them with errors.Is.
// ErrNotFound and ErrConflict are plain storage errors: the service that
// called the store says what they mean to a client (which resource is
// missing, which name is taken) by translating them into an *api.Error.
var (
	// ErrNotFound: no document with that id, or no document with that
	// unique value.
	ErrNotFound = errors.New("document not found")
	// ErrConflict: the id exists already (Insert), or the document's value
	// of a unique field is taken by another document.
	ErrConflict = errors.New("document conflicts with a stored one")
	// ErrUnavailable: the store cannot be reached; the caller may retry.
	// It is an *api.Error, the one storage error that carries its answer
	// itself: any store call of any request may end in it, and every
	// response it ends in says the same (the store's own words, which may
	// name hosts, stay in the log) and when to retry.
	ErrUnavailable error = &api.Error{Code: api.Unavailable,
		Message: "The document store is unavailable; try again shortly. Details are in the server log.",
		Header:  http.Header{"Retry-After": {"1"}}}
)

// Index declares a unique index on a top-level string field of the documents
// of one collection. Documents whose field is missing or empty are not indexed,
// so the index is sparse.
type Index struct {
	Collection string
	Field      string
}

// Store is a durable, concurrency-safe document store. Every write is
// durable when it returns.
type Store interface {
	// Get returns the document with that id, or ErrNotFound.
	Get(ctx context.Context, coll, id string) ([]byte, error)
	// Insert stores a new document. ErrConflict if the id exists or a unique
	// field's value is taken.
	Insert(ctx context.Context, coll, id string, doc []byte) error
	// Put creates or replaces a document. ErrConflict if a unique field's
	// value is taken by another document.
	Put(ctx context.Context, coll, id string, doc []byte) error
	// Update replaces a document with fn's result, atomically with respect
	// to other writes of the same document. fn may be called more than once
	// and must not have side effects. ErrNotFound if the document does not
	// exist; an error from fn is returned as is and nothing is written.
	Update(ctx context.Context, coll, id string, fn func(doc []byte) ([]byte, error)) error
	// Delete removes a document, or returns ErrNotFound.
	Delete(ctx context.Context, coll, id string) error
	// FindUnique returns the document whose indexed field has that value, or
	// ErrNotFound. The field must be declared as an Index.
	FindUnique(ctx context.Context, coll, field, value string) (id string, doc []byte, err error)
	// List calls fn for every document of a collection, in ascending id
	// order, until fn returns an error, which List returns.
	List(ctx context.Context, coll string, fn func(id string, doc []byte) error) error
	// Count returns the number of documents in a collection.
	Count(ctx context.Context, coll string) (int, error)
	// Close releases the store.
	Close() error
}

// Stats describes a store's size, for Graylog's /system/cluster/stats/mongo
// (MongoDB's dbStats). Sizes are bytes.
type Stats struct {
	Collections int
	Objects     int64
	DataSize    int64 // bytes of the documents themselves
	StorageSize int64 // bytes on disk
	Indexes     int
	IndexSize   int64
}

// All decodes every document of a collection with decode, in id order.
func All[T any](ctx context.Context, st Store, coll string, decode func(doc []byte) (T, error)) ([]T, error) {
	var out []T
	err := st.List(ctx, coll, func(_ string, doc []byte) error {
		v, err := decode(doc)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
