package bolt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/loggate/loggate/backend/store"
)

// errEmptyDoc rejects empty documents: they are not JSON objects, and bbolt
// does not tell an empty value from a missing one.
var errEmptyDoc = errors.New("empty document")

// Insert stores a new document. It returns store.ErrConflict if the id exists
// or a unique field's value is taken.
func (s *Store) Insert(ctx context.Context, coll, id string, doc []byte) error {
	return s.write(ctx, "insert", coll, id, func(tx *bbolt.Tx, b *bbolt.Bucket) error {
		return s.insert(tx, b, coll, id, doc)
	})
}

// insert is Insert inside the transaction tx; b is the collection's bucket.
func (s *Store) insert(tx *bbolt.Tx, b *bbolt.Bucket, coll, id string, doc []byte) error {
	if len(doc) == 0 {
		return errEmptyDoc
	}
	if b.Get([]byte(id)) != nil {
		return fmt.Errorf("%s %q: %w", coll, id, store.ErrConflict)
	}
	if err := s.reindex(tx, coll, id, nil, doc); err != nil {
		return err
	}
	return b.Put([]byte(id), doc)
}

// Put creates or replaces a document. It returns store.ErrConflict if a
// unique field's value is taken by another document.
func (s *Store) Put(ctx context.Context, coll, id string, doc []byte) error {
	return s.write(ctx, "put", coll, id, func(tx *bbolt.Tx, b *bbolt.Bucket) error {
		if len(doc) == 0 {
			return errEmptyDoc
		}
		if err := s.reindex(tx, coll, id, b.Get([]byte(id)), doc); err != nil {
			return err
		}
		return b.Put([]byte(id), doc)
	})
}

// Update replaces a document with fn's result inside one write transaction,
// so fn runs exactly once and blocks other writers: keep it short. fn gets a
// copy it may modify. An error from fn is returned as is and nothing is
// written; store.ErrNotFound if the document does not exist.
func (s *Store) Update(ctx context.Context, coll, id string, fn func(doc []byte) ([]byte, error)) error {
	return s.write(ctx, "update", coll, id, func(tx *bbolt.Tx, b *bbolt.Bucket) error {
		old := b.Get([]byte(id))
		if old == nil {
			return fmt.Errorf("%s %q: %w", coll, id, store.ErrNotFound)
		}
		doc, err := fn(clone(old))
		if err != nil {
			return err
		}
		if len(doc) == 0 {
			return errEmptyDoc
		}
		if err := s.reindex(tx, coll, id, old, doc); err != nil {
			return err
		}
		return b.Put([]byte(id), doc)
	})
}

// Delete removes a document, or returns store.ErrNotFound.
func (s *Store) Delete(ctx context.Context, coll, id string) error {
	return s.write(ctx, "delete", coll, id, func(tx *bbolt.Tx, b *bbolt.Bucket) error {
		old := b.Get([]byte(id))
		if old == nil {
			return fmt.Errorf("%s %q: %w", coll, id, store.ErrNotFound)
		}
		if err := s.reindex(tx, coll, id, old, nil); err != nil {
			return err
		}
		return b.Delete([]byte(id))
	})
}

// write runs fn in a write transaction with the collection's bucket, created
// if need be. The transaction commits, and fsyncs, only if fn succeeds.
func (s *Store) write(ctx context.Context, op, coll, id string, fn func(*bbolt.Tx, *bbolt.Bucket) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkCollection(coll); err != nil {
		return fmt.Errorf("%s %q: %w", op, id, err)
	}
	if id == "" {
		return fmt.Errorf("%s %s: empty id", op, coll)
	}
	err := s.db.Update(func(tx *bbolt.Tx) error {
		// The wait for the writer lock may have outlived the caller.
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(docsBucket(coll))
		if err != nil {
			return err
		}
		return fn(tx, b)
	})
	return fail(op, coll, id, err)
}

// checkCollection rejects collection names that cannot be told apart in
// bucket names.
func checkCollection(coll string) error {
	if coll == "" || strings.Contains(coll, "/") {
		return fmt.Errorf("invalid collection name %q: empty or with a slash", coll)
	}
	return nil
}

// clone copies bytes out of bbolt's memory map, which is only valid inside
// the transaction and must never be written to.
func clone(b []byte) []byte {
	return append([]byte(nil), b...)
}
