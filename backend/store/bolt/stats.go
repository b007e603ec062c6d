package bolt

import (
	"context"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/loggate/loggate/backend/store"
)

// Stats reports the collections, documents and bytes of the file, counted in
// one read transaction so that the figures agree with each other.
func (s *Store) Stats(ctx context.Context) (store.Stats, error) {
	if err := ctx.Err(); err != nil {
		return store.Stats{}, err
	}
	var st store.Stats
	err := s.db.View(func(tx *bbolt.Tx) error {
		st.StorageSize = tx.Size()
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			bs := b.Stats()
			// Small buckets live inline in their parent page.
			bytes := int64(bs.LeafInuse + bs.BranchInuse + bs.InlineBucketInuse)
			switch {
			case strings.HasPrefix(string(name), docsPrefix):
				st.Collections++
				st.Objects += int64(bs.KeyN)
				st.DataSize += bytes
			case strings.HasPrefix(string(name), indexPrefix):
				st.Indexes++
				st.IndexSize += bytes
			}
			return nil
		})
	})
	if err != nil {
		return store.Stats{}, fmt.Errorf("document store stats: %w", err)
	}
	return st, nil
}
