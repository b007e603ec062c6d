package bolt

import (
	"time"

	"go.etcd.io/bbolt"

	"github.com/loggate/loggate/backend/store"
)

// ListBatch exposes the batch size so that tests can span several batches.
const ListBatch = listBatch

// OpenTimeout is Open with a shorter wait for the file lock.
func OpenTimeout(path string, indexes []store.Index, timeout time.Duration) (*Store, error) {
	return open(path, indexes, timeout)
}

// InsertMany inserts documents in one transaction, to fill a store without
// one fsync per document.
func (s *Store) InsertMany(coll string, ids []string, docs [][]byte) error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(docsBucket(coll))
		if err != nil {
			return err
		}
		for i, id := range ids {
			if err := s.insert(tx, b, coll, id, docs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
