package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/loggate/loggate/backend/store"
)

// ListBatch exposes the batch size so that tests can span several batches.
const ListBatch = listBatch

// Drop drops the store's database, for tests that use a database each.
func (s *Store) Drop(ctx context.Context) error { return s.db.Drop(ctx) }

// Encode and Decode expose the record codec.
var (
	Encode = func(id string, rev int64, doc []byte, fields ...string) bson.Raw {
		decl := make([]store.Index, len(fields))
		for i, f := range fields {
			decl[i] = store.Index{Collection: "c", Field: f}
		}
		byColl, err := declare(decl)
		if err != nil {
			panic(err)
		}
		return encode(id, rev, doc, byColl["c"])
	}
	Decode = decode
)

// Unavailable exposes the classification of driver errors.
var Unavailable = unavailable

// RawRecord returns the stored record of id as MongoDB holds it.
func (s *Store) RawRecord(ctx context.Context, coll, id string) (bson.Raw, error) {
	return s.db.Collection(coll).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Raw()
}

// FerretDB reports whether the server is FerretDB, from its buildInfo.
func (s *Store) FerretDB(ctx context.Context) (bool, error) {
	raw, err := s.db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		return false, err
	}
	_, err = raw.LookupErr("ferretdb")
	_, errVersion := raw.LookupErr("ferretdbVersion")
	return err == nil || errVersion == nil, nil
}
