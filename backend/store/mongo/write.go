package mongo

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/loggate/loggate/backend/store"
)

// putAttempts bounds the retries of a Put whose upsert lost a race to
// create the same id, which MongoDB reports as a duplicate _id.
const putAttempts = 3

// Insert stores a new document. It returns store.ErrConflict if the id exists
// or a unique field's value is taken.
func (s *Store) Insert(ctx context.Context, coll, id string, doc []byte) error {
	if err := s.check(ctx, "insert", coll, id, true, doc); err != nil {
		return err
	}
	defer s.locks.lock(coll, id)()
	octx, cancel := s.bound(ctx)
	defer cancel()
	_, err := s.db.Collection(coll).InsertOne(octx, encode(id, 1, doc, s.indexes[coll]))
	return s.fail(ctx, "insert", coll, id, err)
}

// Put creates or replaces a document. It returns store.ErrConflict if a
// unique field's value is taken by another document.
func (s *Store) Put(ctx context.Context, coll, id string, doc []byte) error {
	if err := s.check(ctx, "put", coll, id, true, doc); err != nil {
		return err
	}
	defer s.locks.lock(coll, id)()
	octx, cancel := s.bound(ctx)
	defer cancel()
	set := bson.D{
		{Key: "$set", Value: bson.D{
			{Key: fieldJSON, Value: textValue(doc)},
			{Key: fieldUnique, Value: uniqueDoc(doc, s.indexes[coll])},
		}},
		{Key: "$inc", Value: bson.D{{Key: fieldRev, Value: int64(1)}}},
	}
	var err error
	for range putAttempts {
		_, err = s.db.Collection(coll).UpdateOne(octx, bson.D{{Key: fieldID, Value: id}}, set, options.Update().SetUpsert(true))
		if !duplicate(err) || !s.lostUpsert(octx, coll, id, err) {
			break
		}
	}
	return s.fail(ctx, "put", coll, id, err)
}

// lostUpsert reports whether the duplicate key error err of an upsert of id
// is the id's, created by a concurrent upsert: the upsert then replaces it
// when tried again. MongoDB names the index in its message; servers that
// do not are asked whether the id exists now.
func (s *Store) lostUpsert(ctx context.Context, coll, id string, err error) bool {
	msg := err.Error()
	if strings.Contains(msg, indexPrefix) {
		return false
	}
	if strings.Contains(msg, "index: _id_ ") {
		return true
	}
	n, cerr := s.db.Collection(coll).CountDocuments(ctx, bson.D{{Key: fieldID, Value: id}}, options.Count().SetLimit(1))
	return cerr == nil && n > 0
}

// Update replaces a document with fn's result. It reads the document and
// replaces it only if its revision is unchanged, else it starts again: fn
// may run more than once and gets a fresh copy each time. An error from fn
// is returned as is and nothing is written; store.ErrNotFound if the
// document does not exist.
func (s *Store) Update(ctx context.Context, coll, id string, fn func(doc []byte) ([]byte, error)) error {
	if err := s.check(ctx, "update", coll, id, false, nil); err != nil {
		return err
	}
	defer s.locks.lock(coll, id)()
	for {
		_, rev, old, err := s.read(ctx, "update", coll, id)
		if err != nil {
			return err
		}
		doc, err := fn(old)
		if err != nil {
			return err
		}
		if len(doc) == 0 {
			return fmt.Errorf("update %s %q: %w", coll, id, errEmptyDoc)
		}
		ok, err := s.replace(ctx, coll, id, rev, doc)
		if err != nil || ok {
			return err
		}
	}
}

// replace replaces the record id at revision rev with doc at the next
// revision. It reports false if the record is at another revision or gone.
func (s *Store) replace(ctx context.Context, coll, id string, rev int64, doc []byte) (bool, error) {
	octx, cancel := s.bound(ctx)
	defer cancel()
	filter := bson.D{{Key: fieldID, Value: id}, {Key: fieldRev, Value: rev}}
	res, err := s.db.Collection(coll).ReplaceOne(octx, filter, encode(id, rev+1, doc, s.indexes[coll]))
	if err != nil {
		return false, s.fail(ctx, "update", coll, id, err)
	}
	return res.MatchedCount == 1, nil
}

// Delete removes a document, or returns store.ErrNotFound.
func (s *Store) Delete(ctx context.Context, coll, id string) error {
	if err := s.check(ctx, "delete", coll, id, false, nil); err != nil {
		return err
	}
	defer s.locks.lock(coll, id)()
	octx, cancel := s.bound(ctx)
	defer cancel()
	res, err := s.db.Collection(coll).DeleteOne(octx, bson.D{{Key: fieldID, Value: id}})
	if err != nil {
		return s.fail(ctx, "delete", coll, id, err)
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("%s %q: %w", coll, id, store.ErrNotFound)
	}
	return nil
}

// check refuses a write before it reaches the server: a cancelled context,
// an invalid collection, an empty id, or, if the operation takes one
// (withDoc), an empty document.
func (s *Store) check(ctx context.Context, op, coll, id string, withDoc bool, doc []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkCollection(coll); err != nil {
		return fmt.Errorf("%s %q: %w", op, id, err)
	}
	if id == "" {
		return fmt.Errorf("%s %s: empty id", op, coll)
	}
	if withDoc && len(doc) == 0 {
		return fmt.Errorf("%s %s %q: %w", op, coll, id, errEmptyDoc)
	}
	return nil
}
