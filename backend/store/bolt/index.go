package bolt

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"go.etcd.io/bbolt"

	"github.com/loggate/loggate/backend/store"
)

// index is a declared unique index of one collection.
type index struct {
	field  string
	path   string // gjson path that matches field literally, dots and all
	bucket []byte // "index/<collection>/<field>"
}

// value returns the indexed value of doc: the field's string value, or ""
// when the field is missing, empty or not a string (sparse index).
func (ix *index) value(doc []byte) string {
	if doc == nil {
		return ""
	}
	r := gjson.GetBytes(doc, ix.path)
	if r.Type != gjson.String {
		return ""
	}
	return r.Str
}

// longPrefix starts the index key of a value too long to be a bbolt key
// (bbolt.MaxKeySize): the prefix and the value's SHA-256. It is not UTF-8,
// so no value written as JSON by a service has that form.
const longPrefix = "\xff\xfesha256:"

// indexKey returns the key of value v in an index bucket: v itself, or a
// digest of it when it is too long for bbolt, which refuses such keys.
// Values short enough are keyed as they always were.
func indexKey(v string) []byte {
	if len(v) <= bbolt.MaxKeySize {
		return []byte(v)
	}
	sum := sha256.Sum256([]byte(v))
	return append([]byte(longPrefix), sum[:]...)
}

// declare groups the declared indexes by collection, dropping duplicates.
func declare(indexes []store.Index) (map[string][]index, error) {
	byColl := make(map[string][]index)
	seen := make(map[store.Index]bool)
	for _, ix := range indexes {
		if err := checkCollection(ix.Collection); err != nil {
			return nil, fmt.Errorf("index on %q: %w", ix.Field, err)
		}
		if ix.Field == "" {
			return nil, fmt.Errorf("index on %s: empty field name", ix.Collection)
		}
		if seen[ix] {
			continue
		}
		seen[ix] = true
		byColl[ix.Collection] = append(byColl[ix.Collection], index{
			field:  ix.Field,
			path:   gjson.Escape(ix.Field),
			bucket: []byte(indexPrefix + ix.Collection + "/" + ix.Field),
		})
	}
	return byColl, nil
}

// index returns the declared index of coll on field, or nil.
func (s *Store) index(coll, field string) *index {
	idxs := s.indexes[coll]
	for i := range idxs {
		if idxs[i].field == field {
			return &idxs[i]
		}
	}
	return nil
}

// prepare drops the index buckets that are no longer declared and builds the
// ones that are new.
func (s *Store) prepare(tx *bbolt.Tx) error {
	if err := s.dropUndeclared(tx); err != nil {
		return err
	}
	for coll, idxs := range s.indexes {
		for i := range idxs {
			if tx.Bucket(idxs[i].bucket) != nil {
				continue
			}
			if err := build(tx, coll, &idxs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropUndeclared deletes the buckets of indexes no longer declared: a stale
// index would otherwise come back out of date if declared again.
func (s *Store) dropUndeclared(tx *bbolt.Tx) error {
	var stale [][]byte
	err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		rest, ok := bytes.CutPrefix(name, []byte(indexPrefix))
		if !ok {
			return nil
		}
		coll, field, _ := strings.Cut(string(rest), "/")
		if s.index(coll, field) == nil {
			stale = append(stale, bytes.Clone(name))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Buckets cannot be deleted while being iterated.
	for _, name := range stale {
		if err := tx.DeleteBucket(name); err != nil {
			return fmt.Errorf("drop index bucket %s: %w", name, err)
		}
	}
	return nil
}

// build creates the bucket of a new index and fills it from the stored
// documents.
func build(tx *bbolt.Tx, coll string, ix *index) error {
	b, err := tx.CreateBucket(ix.bucket)
	if err != nil {
		return fmt.Errorf("create index bucket %s: %w", ix.bucket, err)
	}
	docs := tx.Bucket(docsBucket(coll))
	if docs == nil {
		return nil
	}
	return docs.ForEach(func(id, doc []byte) error {
		v := ix.value(doc)
		if v == "" {
			return nil
		}
		if owner := b.Get(indexKey(v)); owner != nil {
			return fmt.Errorf("build index %s.%s: %q and %q have %q: %w", coll, ix.field, owner, id, v, store.ErrConflict)
		}
		return b.Put(indexKey(v), id)
	})
}

// reindex moves the unique values of document id from those of old to those
// of doc (either may be nil). It fails with ErrConflict if a value belongs to
// another document; the caller's transaction then rolls back.
func (s *Store) reindex(tx *bbolt.Tx, coll, id string, old, doc []byte) error {
	idxs := s.indexes[coll]
	for i := range idxs {
		ix := &idxs[i]
		ov, nv := ix.value(old), ix.value(doc)
		if ov == nv {
			continue
		}
		b := tx.Bucket(ix.bucket)
		if nv != "" {
			if owner := b.Get(indexKey(nv)); owner != nil && string(owner) != id {
				return fmt.Errorf("%s %s %q: %w", coll, ix.field, nv, store.ErrConflict)
			}
		}
		if ov != "" {
			if owner := b.Get(indexKey(ov)); string(owner) == id {
				if err := b.Delete(indexKey(ov)); err != nil {
					return err
				}
			}
		}
		if nv != "" {
			if err := b.Put(indexKey(nv), []byte(id)); err != nil {
				return fmt.Errorf("index %s.%s: %w", coll, ix.field, err)
			}
		}
	}
	return nil
}
