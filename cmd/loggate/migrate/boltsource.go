package migrate

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// docsPrefix starts the bucket names of collections in the embedded
// document store (see the bolt package's comment): "docs/<collection>".
const docsPrefix = "docs/"

// boltSource reads the embedded document store of a data_dir without
// changing it. store.Store cannot list its collections, and a list of the
// collections loggate knows today would miss those of later versions, so
// the source is read from its buckets.
type boltSource struct {
	db *bbolt.DB
}

// openBoltSource opens path read-only. The shared lock it takes keeps a
// node from starting on the file meanwhile; a node already running holds
// the file, and the open fails after lockTimeout saying so.
func openBoltSource(path string) (*boltSource, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("document store: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: the file is locked, a loggate node is running with this data_dir; stop the node first", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &boltSource{db: db}, nil
}

func (s *boltSource) Close() error { return s.db.Close() }

// collections returns the names of the collections, sorted.
func (s *boltSource) collections() ([]string, error) {
	var out []string
	err := s.db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			if coll, ok := strings.CutPrefix(string(name), docsPrefix); ok {
				out = append(out, coll)
			}
			return nil
		})
	})
	sort.Strings(out)
	return out, err
}

// each calls fn with every document of a collection in ascending id order
// until fn returns an error. doc is valid only during the call. Nothing writes to a read-only
// file, so one read transaction holds for the whole walk.
func (s *boltSource) each(coll string, fn func(id string, doc []byte) error) error {
	return s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(docsPrefix + coll))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := fn(string(k), v); err != nil {
				return err
			}
		}
		return nil
	})
}
