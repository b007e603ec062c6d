package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/loggate/loggate/backend/store"
)

// Stats reports the database's collections, documents and bytes, from
// MongoDB's dbStats. Servers give the figures as int32, int64 or double.
func (s *Store) Stats(ctx context.Context) (store.Stats, error) {
	if err := ctx.Err(); err != nil {
		return store.Stats{}, err
	}
	octx, cancel := s.bound(ctx)
	defer cancel()
	raw, err := s.db.RunCommand(octx, bson.D{{Key: "dbStats", Value: 1}, {Key: "scale", Value: 1}}).Raw()
	if err != nil {
		return store.Stats{}, s.fail(ctx, "stats of", s.db.Name(), "", err)
	}
	num := func(key string) int64 {
		v, err := raw.LookupErr(key)
		if err != nil {
			return 0
		}
		if n, ok := v.AsInt64OK(); ok {
			return n
		}
		return 0
	}
	st := store.Stats{
		Collections: int(num("collections")),
		Objects:     num("objects"),
		DataSize:    num("dataSize"),
		StorageSize: num("storageSize"),
		Indexes:     int(num("indexes")),
		IndexSize:   num("indexSize"),
	}
	if st.Collections < 0 || st.Objects < 0 {
		return store.Stats{}, fmt.Errorf("stats of %s: negative figures in %s", s.db.Name(), raw)
	}
	return st, nil
}
