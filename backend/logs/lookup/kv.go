package lookup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// KVCollection holds the entries of the writable "mongodb" adapters: one
// document per adapter and key, with the key's string list.
const KVCollection = "lut_mongodb_data"

// kvConfig is the "mongodb" adapter's settings: Graylog's MongoDB Lookup
// adapter keeps its entries in Graylog's database; loggate keeps them in
// its document store, shared by the nodes as the other resources are.
type kvConfig struct {
	Type string `json:"type"`
}

func (c *kvConfig) check(*api.ValidationError) {}

type kvEntry struct {
	AdapterID string   `json:"data_adapter_id"`
	Key       string   `json:"key"`
	Values    []string `json:"values"`
}

type kvAdapter struct {
	id string
	st store.Store
}

func newKVAdapter(_ config, e env) adapter { return &kvAdapter{id: e.id, st: e.st} }

// docID keeps ids short whatever the key: the adapter's id and a hash.
func (a *kvAdapter) docID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return a.id + "-" + hex.EncodeToString(sum[:16])
}

func (a *kvAdapter) values(ctx context.Context, key string) ([]string, error) {
	b, err := a.st.Get(ctx, KVCollection, a.docID(key))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e kvEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("stored lookup entry: %w", err)
	}
	if e.Values == nil {
		e.Values = []string{}
	}
	return e.Values, nil
}

func (a *kvAdapter) get(ctx context.Context, key string) (Result, error) {
	vs, err := a.values(ctx, key)
	if err != nil {
		return failed(), err
	}
	if vs == nil {
		return empty(), nil
	}
	return list(vs), nil
}

func (a *kvAdapter) setValue(ctx context.Context, key, value string) error {
	return a.setList(ctx, key, []string{value})
}

func (a *kvAdapter) setList(ctx context.Context, key string, values []string) error {
	if values == nil {
		values = []string{}
	}
	b, err := json.Marshal(kvEntry{AdapterID: a.id, Key: key, Values: values})
	if err != nil {
		return err
	}
	return a.st.Put(ctx, KVCollection, a.docID(key), b)
}

func (a *kvAdapter) update(ctx context.Context, key string, fn func([]string) []string) ([]string, error) {
	var out []string
	err := a.st.Update(ctx, KVCollection, a.docID(key), func(doc []byte) ([]byte, error) {
		var e kvEntry
		if err := json.Unmarshal(doc, &e); err != nil {
			return nil, fmt.Errorf("stored lookup entry: %w", err)
		}
		e.Values = fn(e.Values)
		if e.Values == nil {
			e.Values = []string{}
		}
		out = e.Values
		return json.Marshal(e)
	})
	if !errors.Is(err, store.ErrNotFound) {
		return out, err
	}
	out = fn(nil)
	if out == nil {
		out = []string{}
	}
	b, err := json.Marshal(kvEntry{AdapterID: a.id, Key: key, Values: out})
	if err != nil {
		return nil, err
	}
	if err := a.st.Insert(ctx, KVCollection, a.docID(key), b); errors.Is(err, store.ErrConflict) {
		// Another writer created it meanwhile: change theirs.
		return a.update(ctx, key, fn)
	} else if err != nil {
		return nil, err
	}
	return out, nil
}

func (a *kvAdapter) clearKey(ctx context.Context, key string) error {
	err := a.st.Delete(ctx, KVCollection, a.docID(key))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
