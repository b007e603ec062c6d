package bolt

import (
	"bytes"
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/loggate/loggate/backend/store"
)

// listBatch is how many documents List copies per read transaction. List
// calls fn outside any transaction, so fn may write to the store: a write
// while the same goroutine holds a read transaction can deadlock bbolt.
const listBatch = 256

// Get returns a copy of the document with that id, or store.ErrNotFound.
func (s *Store) Get(ctx context.Context, coll, id string) ([]byte, error) {
	var doc []byte
	err := s.read(ctx, "get", coll, id, func(b *bbolt.Bucket) error {
		doc = clone(b.Get([]byte(id)))
		return nil
	})
	if err == nil && doc == nil {
		err = fmt.Errorf("%s %q: %w", coll, id, store.ErrNotFound)
	}
	return doc, err
}

// FindUnique returns the document whose indexed field has that value, or
// store.ErrNotFound. The field must be declared as a store.Index.
func (s *Store) FindUnique(ctx context.Context, coll, field, value string) (string, []byte, error) {
	ix := s.index(coll, field)
	if ix == nil {
		return "", nil, fmt.Errorf("find %s by %s: the field is not declared as a unique index", coll, field)
	}
	var id string
	var doc []byte
	err := s.read(ctx, "find", coll, value, func(b *bbolt.Bucket) error {
		// A long value is keyed by its digest: the document must hold it.
		if owner := b.Tx().Bucket(ix.bucket).Get(indexKey(value)); owner != nil {
			if d := b.Get(owner); d != nil && (len(value) <= bbolt.MaxKeySize || ix.value(d) == value) {
				id = string(owner)
				doc = clone(d)
			}
		}
		return nil
	})
	if err == nil && doc == nil {
		err = fmt.Errorf("%s %s %q: %w", coll, field, value, store.ErrNotFound)
	}
	return id, doc, err
}

// List calls fn with a copy of every document of a collection, in ascending
// id order, until fn returns an error, which List returns. Documents are read
// in batches, so List sees writes made meanwhile (by fn, say) to ids it has
// not reached yet.
func (s *Store) List(ctx context.Context, coll string, fn func(id string, doc []byte) error) error {
	var after []byte
	for {
		ids, docs, err := s.batch(ctx, coll, after)
		if err != nil {
			return err
		}
		for i, id := range ids {
			if err := fn(id, docs[i]); err != nil {
				return err
			}
		}
		if len(ids) < listBatch {
			return nil
		}
		after = []byte(ids[len(ids)-1])
	}
}

// batch copies up to listBatch documents with ids above after (from the
// first one if after is nil). The documents share one allocation; each is
// capped so that appending to one cannot overwrite the next.
func (s *Store) batch(ctx context.Context, coll string, after []byte) (ids []string, docs [][]byte, err error) {
	err = s.read(ctx, "list", coll, "", func(b *bbolt.Bucket) error {
		c := b.Cursor()
		k, v := c.First()
		if after != nil {
			if k, v = c.Seek(after); bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		var buf []byte
		var ends []int
		for ; k != nil && len(ids) < listBatch; k, v = c.Next() {
			ids = append(ids, string(k))
			buf = append(buf, v...)
			ends = append(ends, len(buf))
		}
		docs = make([][]byte, len(ends))
		start := 0
		for i, end := range ends {
			docs[i] = buf[start:end:end]
			start = end
		}
		return nil
	})
	return ids, docs, err
}

// Count returns the number of documents in a collection.
func (s *Store) Count(ctx context.Context, coll string) (int, error) {
	n := 0
	err := s.read(ctx, "count", coll, "", func(b *bbolt.Bucket) error {
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// read runs fn in a read transaction with the collection's bucket. A
// collection that was never written to is empty: fn is not called.
func (s *Store) read(ctx context.Context, op, coll, key string, fn func(*bbolt.Bucket) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(docsBucket(coll))
		if b == nil {
			return nil
		}
		return fn(b)
	})
	return fail(op, coll, key, err)
}
