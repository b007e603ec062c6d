// Package bolt is the embedded document store: a store.Store kept in one
// bbolt file in data_dir, so that a single loggate needs no database server.
//
// The file holds one bucket per collection, "docs/<collection>", mapping id
// to document, and one per unique index, "index/<collection>/<field>",
// mapping value to id. Buckets are not nested: each level would cost every
// lookup another search and allocations. Collection names therefore must not
// contain a slash.
package bolt

import (
	"errors"
	"fmt"
	"os"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/loggate/loggate/backend/store"
)

var _ store.Store = (*Store)(nil)

// lockTimeout bounds the wait for the file lock: a second loggate on the same
// data_dir should fail at startup, not hang.
const lockTimeout = 2 * time.Second

// Bucket name prefixes.
const (
	docsPrefix  = "docs/"
	indexPrefix = "index/"
)

// docsBucket returns the name of a collection's bucket.
func docsBucket(coll string) []byte {
	return append([]byte(docsPrefix), coll...)
}

// Store is a store.Store backed by a bbolt file. Every write is one bbolt
// transaction, fsynced on commit, so it is durable when the method returns.
// It is safe for concurrent use.
type Store struct {
	db      *bbolt.DB
	indexes map[string][]index // by collection
}

// Open opens or creates the database file at path (mode 0600) with the
// given unique indexes. Indexes declared for the first time are built from
// the stored documents; indexes no longer declared are dropped, so that a
// later declaration rebuilds them from current data. Open fails after two
// seconds if another process holds the file.
func Open(path string, indexes []store.Index) (*Store, error) {
	return open(path, indexes, lockTimeout)
}

func open(path string, indexes []store.Index, timeout time.Duration) (*Store, error) {
	byColl, err := declare(indexes)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: the file is locked, another loggate may be running with the same data_dir: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, indexes: byColl}
	if err := db.Update(s.prepare); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.db.Path() }

// Size returns the size of the database file in bytes.
func (s *Store) Size() (int64, error) {
	fi, err := os.Stat(s.db.Path())
	if err != nil {
		return 0, fmt.Errorf("document store size: %w", err)
	}
	return fi.Size(), nil
}

// Close closes the database file. It waits for running transactions.
func (s *Store) Close() error { return s.db.Close() }

// fail adds the store's context to an error from bbolt: a closed database
// (a request racing shutdown) is reported as unavailable.
func fail(op, coll, id string, err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return fmt.Errorf("%s %s %q: %w: %w", op, coll, id, store.ErrUnavailable, err)
	}
	return err
}
