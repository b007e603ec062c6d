package mongo

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/loggate/loggate/backend/store"
)

// listBatch is how many documents List reads per round trip. List reads the
// next batch only when fn has seen the last one, so it sees writes made
// meanwhile (by fn, say) to ids beyond the current batch.
const listBatch = 256

// docProjection reads what callers need of a record, not its unique values.
var docProjection = bson.D{{Key: fieldRev, Value: 1}, {Key: fieldJSON, Value: 1}}

// Get returns the document with that id, or store.ErrNotFound.
func (s *Store) Get(ctx context.Context, coll, id string) ([]byte, error) {
	_, _, doc, err := s.read(ctx, "get", coll, id)
	return doc, err
}

// read returns the id, revision and document of the record with that id.
func (s *Store) read(ctx context.Context, op, coll, id string) (string, int64, []byte, error) {
	return s.findOne(ctx, op, coll, id, bson.D{{Key: fieldID, Value: id}})
}

// findOne returns the record matching filter, or store.ErrNotFound.
func (s *Store) findOne(ctx context.Context, op, coll, what string, filter bson.D) (string, int64, []byte, error) {
	if err := ctx.Err(); err != nil {
		return "", 0, nil, err
	}
	if err := checkCollection(coll); err != nil {
		return "", 0, nil, fmt.Errorf("%s %q: %w", op, what, err)
	}
	octx, cancel := s.bound(ctx)
	defer cancel()
	raw, err := s.db.Collection(coll).FindOne(octx, filter, options.FindOne().SetProjection(docProjection)).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", 0, nil, fmt.Errorf("%s %q: %w", coll, what, store.ErrNotFound)
	}
	if err != nil {
		return "", 0, nil, s.fail(ctx, op, coll, what, err)
	}
	id, rev, doc, err := decode(raw)
	if err != nil {
		return "", 0, nil, fmt.Errorf("%s %s %q: %w", op, coll, what, err)
	}
	return id, rev, doc, nil
}

// FindUnique returns the document whose indexed field has that value, or
// store.ErrNotFound. The field must be declared as a store.Index.
func (s *Store) FindUnique(ctx context.Context, coll, field, value string) (string, []byte, error) {
	ix := s.index(coll, field)
	if ix == nil {
		return "", nil, fmt.Errorf("find %s by %s: the field is not declared as a unique index", coll, field)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	if value == "" { // never indexed
		return "", nil, fmt.Errorf("%s %s %q: %w", coll, field, value, store.ErrNotFound)
	}
	id, _, doc, err := s.findOne(ctx, "find", coll, value, bson.D{{Key: ix.key(), Value: textValue(value)}})
	return id, doc, err
}

// List calls fn with every document of a collection, in ascending id order,
// until fn returns an error, which List returns. MongoDB compares string
// ids bytewise, as Go does.
func (s *Store) List(ctx context.Context, coll string, fn func(id string, doc []byte) error) error {
	if err := checkCollection(coll); err != nil {
		return fmt.Errorf("list: %w", err)
	}
	after := ""
	first := true
	for {
		ids, docs, err := s.batch(ctx, coll, after, first)
		if err != nil {
			return err
		}
		for i, id := range ids {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(id, docs[i]); err != nil {
				return err
			}
		}
		if len(ids) < listBatch {
			return nil
		}
		after, first = ids[len(ids)-1], false
	}
}

// batch reads up to listBatch documents with ids above after, or from the
// first one.
func (s *Store) batch(ctx context.Context, coll, after string, first bool) ([]string, [][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	octx, cancel := s.bound(ctx)
	defer cancel()
	filter := bson.D{}
	if !first {
		filter = bson.D{{Key: fieldID, Value: bson.D{{Key: "$gt", Value: after}}}}
	}
	opts := options.Find().
		SetSort(bson.D{{Key: fieldID, Value: 1}}).
		SetLimit(listBatch).
		SetBatchSize(listBatch).
		SetProjection(docProjection)
	cur, err := s.db.Collection(coll).Find(octx, filter, opts)
	if err != nil {
		return nil, nil, s.fail(ctx, "list", coll, after, err)
	}
	defer cur.Close(octx)
	ids := make([]string, 0, min(cur.RemainingBatchLength(), listBatch))
	docs := make([][]byte, 0, cap(ids))
	for cur.Next(octx) {
		id, _, doc, err := decode(cur.Current)
		if err != nil {
			return nil, nil, fmt.Errorf("list %s: %w", coll, err)
		}
		ids = append(ids, id)
		docs = append(docs, doc)
	}
	if err := cur.Err(); err != nil {
		return nil, nil, s.fail(ctx, "list", coll, after, err)
	}
	return ids, docs, nil
}

// Count returns the number of documents in a collection. It counts rather
// than reading the collection's metadata, which may be off after an unclean
// shutdown.
func (s *Store) Count(ctx context.Context, coll string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := checkCollection(coll); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	octx, cancel := s.bound(ctx)
	defer cancel()
	n, err := s.db.Collection(coll).CountDocuments(octx, bson.D{})
	if err != nil {
		return 0, s.fail(ctx, "count", coll, "", err)
	}
	return int(n), nil
}
