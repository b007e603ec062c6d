package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/x/mongo/driver/connstring"

	storemongo "github.com/loggate/loggate/backend/store/mongo"
)

// findAll reads every document of coll in _id order, as relaxed extended
// JSON (mongoexport's), from the database the URI names (DefaultDatabase
// when it names none); it returns the database name too.
func findAll(ctx context.Context, uri, coll string) ([]json.RawMessage, string, error) {
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return nil, "", fmt.Errorf("--from-mongodb %s: %w", storemongo.Redact(uri), err)
	}
	db := cs.Database
	if db == "" {
		db = DefaultDatabase
	}
	opts := options.Client().ApplyURI(uri)
	if !cs.ServerSelectionTimeoutSet {
		// Fail within seconds, not the driver's 30, when nothing answers.
		opts.SetServerSelectionTimeout(5 * time.Second)
	}
	client, err := mongo.Connect(ctx, opts)
	if err != nil {
		return nil, db, fmt.Errorf("connect to %s: %w", storemongo.Redact(uri), err)
	}
	defer func() { _ = client.Disconnect(context.WithoutCancel(ctx)) }()
	cur, err := client.Database(db).Collection(coll).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, db, fmt.Errorf("read %s.%s from %s: %w", db, coll, storemongo.Redact(uri), err)
	}
	defer cur.Close(ctx)
	var out []json.RawMessage
	for cur.Next(ctx) {
		b, err := bson.MarshalExtJSON(cur.Current, false, false)
		if err != nil {
			return nil, db, fmt.Errorf("%s.%s: %w", db, coll, err)
		}
		out = append(out, b)
	}
	if err := cur.Err(); err != nil {
		return nil, db, fmt.Errorf("read %s.%s: %w", db, coll, err)
	}
	return out, db, nil
}
