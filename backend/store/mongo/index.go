package mongo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/loggate/loggate/backend/store"
)

// declare groups the declared indexes by collection, dropping duplicates.
func declare(indexes []store.Index) (map[string][]index, error) {
	byColl := make(map[string][]index)
	seen := make(map[store.Index]bool)
	for _, ix := range indexes {
		if err := checkCollection(ix.Collection); err != nil {
			return nil, fmt.Errorf("index on %q: %w", ix.Field, err)
		}
		// A dot would be read as a path, a leading $ as an operator.
		if ix.Field == "" || strings.ContainsAny(ix.Field, ".\x00") || strings.HasPrefix(ix.Field, "$") {
			return nil, fmt.Errorf("index on %s: invalid field name %q: empty, with a dot or NUL, or starting with $", ix.Collection, ix.Field)
		}
		if seen[ix] {
			continue
		}
		seen[ix] = true
		byColl[ix.Collection] = append(byColl[ix.Collection], index{
			field: ix.Field,
			path:  gjson.Escape(ix.Field),
			name:  indexPrefix + ix.Field,
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

// prepare drops loggate's indexes that are no longer declared and builds the
// ones that are new. Other nodes may write meanwhile: the records are
// brought up to date before the index is created, with revision checks, so
// a value written concurrently by a node that does not know the index yet is
// the only thing that can escape it (a rolling upgrade adding an index).
func (s *Store) prepare(ctx context.Context) error {
	colls, err := s.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return s.fail(ctx, "list collections of", s.db.Name(), "", err)
	}
	existing := make(map[string]map[string]bool) // collection → index names
	for _, coll := range colls {
		names, err := s.indexNames(ctx, coll)
		if err != nil {
			return err
		}
		existing[coll] = names
		for name := range names {
			field, ok := strings.CutPrefix(name, indexPrefix)
			if !ok || s.index(coll, field) != nil {
				continue
			}
			// A stale index would come back out of date if declared again.
			if _, err := s.db.Collection(coll).Indexes().DropOne(ctx, name); err != nil {
				return s.fail(ctx, "drop index", coll, name, err)
			}
		}
	}
	for coll, idxs := range s.indexes {
		var missing []index
		for _, ix := range idxs {
			if !existing[coll][ix.name] {
				missing = append(missing, ix)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if err := s.backfill(ctx, coll); err != nil {
			return err
		}
		if err := s.createIndexes(ctx, coll, missing); err != nil {
			return err
		}
	}
	return nil
}

// indexNames returns the names of a collection's indexes.
func (s *Store) indexNames(ctx context.Context, coll string) (map[string]bool, error) {
	cur, err := s.db.Collection(coll).Indexes().List(ctx)
	if err != nil {
		return nil, s.fail(ctx, "list indexes of", coll, "", err)
	}
	defer cur.Close(ctx)
	names := make(map[string]bool)
	for cur.Next(ctx) {
		if name, ok := cur.Current.Lookup("name").StringValueOK(); ok {
			names[name] = true
		}
	}
	if err := cur.Err(); err != nil {
		return nil, s.fail(ctx, "list indexes of", coll, "", err)
	}
	return names, nil
}

// createIndexes creates unique sparse indexes on the unique values.
func (s *Store) createIndexes(ctx context.Context, coll string, idxs []index) error {
	models := make([]mongo.IndexModel, len(idxs))
	for i, ix := range idxs {
		models[i] = mongo.IndexModel{
			Keys:    bson.D{{Key: ix.key(), Value: 1}},
			Options: options.Index().SetName(ix.name).SetUnique(true).SetSparse(true),
		}
	}
	if _, err := s.db.Collection(coll).Indexes().CreateMany(ctx, models); err != nil {
		if duplicate(err) {
			return fmt.Errorf("build unique indexes of %s: two documents have the same value: %w: %w", coll, store.ErrConflict, err)
		}
		return s.fail(ctx, "create indexes of", coll, "", err)
	}
	return nil
}

// backfill rewrites the unique values of every record of coll from its
// document and the declared indexes.
func (s *Store) backfill(ctx context.Context, coll string) error {
	c := s.db.Collection(coll)
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: fieldRev, Value: 1}, {Key: fieldJSON, Value: 1}}))
	if err != nil {
		return s.fail(ctx, "index", coll, "", err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		id, rev, doc, err := decode(cur.Current)
		if err != nil {
			return fmt.Errorf("index %s: %w", coll, err)
		}
		for {
			res, err := c.UpdateOne(ctx, bson.D{{Key: fieldID, Value: id}, {Key: fieldRev, Value: rev}}, bson.D{
				{Key: "$set", Value: bson.D{{Key: fieldUnique, Value: uniqueDoc(doc, s.indexes[coll])}}},
				{Key: "$inc", Value: bson.D{{Key: fieldRev, Value: 1}}},
			})
			if err != nil {
				return s.fail(ctx, "index", coll, id, err)
			}
			if res.MatchedCount == 1 {
				break
			}
			// Written meanwhile: its writer set the values already if it
			// knows the index, but it may not.
			_, rev, doc, err = s.read(ctx, "index", coll, id)
			if errors.Is(err, store.ErrNotFound) {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	return s.fail(ctx, "index", coll, "", cur.Err())
}
