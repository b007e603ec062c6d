package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// changesCollection holds one change counter per collection that services
// keep in memory, so that nodes sharing a store notice each other's writes.
const changesCollection = "changes"

type counter struct {
	N uint64 `json:"n"`
}

// Bump increments the change counter of coll and returns its new value.
func Bump(ctx context.Context, st Store, coll string) (uint64, error) {
	for {
		var n uint64
		err := st.Update(ctx, changesCollection, coll, func(doc []byte) ([]byte, error) {
			var c counter
			if err := json.Unmarshal(doc, &c); err != nil {
				return nil, fmt.Errorf("change counter of %s: %w", coll, err)
			}
			c.N++
			n = c.N
			return json.Marshal(c)
		})
		if !errors.Is(err, ErrNotFound) {
			return n, err
		}
		err = st.Insert(ctx, changesCollection, coll, []byte(`{"n":1}`))
		if !errors.Is(err, ErrConflict) {
			return 1, err
		}
		// Another writer created it meanwhile: count on top of theirs.
	}
}

// Version returns the change counter of coll: 0 before the first Bump.
func Version(ctx context.Context, st Store, coll string) (uint64, error) {
	doc, err := st.Get(ctx, changesCollection, coll)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var c counter
	if err := json.Unmarshal(doc, &c); err != nil {
		return 0, fmt.Errorf("change counter of %s: %w", coll, err)
	}
	return c.N, nil
}
