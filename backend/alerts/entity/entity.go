// Package entity keeps the documents of the alerts API (event definitions,
// notifications) in the document store: read, listed by title, written.
package entity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/store"
)

// Collection is one collection of JSON documents of type T.
type Collection[T any] struct {
	St   store.Store
	Name string
	// NotFound is the error of an unknown id (Graylog's 404 message).
	NotFound func(id string) error
	// Title is what listings sort by.
	Title func(T) string
}

// Get returns a document.
func (c Collection[T]) Get(ctx context.Context, id string) (T, error) {
	var v T
	doc, err := c.St.Get(ctx, c.Name, id)
	if errors.Is(err, store.ErrNotFound) {
		return v, c.NotFound(id)
	}
	if err != nil {
		return v, err
	}
	return c.decode(doc)
}

func (c Collection[T]) decode(doc []byte) (T, error) {
	var v T
	if err := json.Unmarshal(doc, &v); err != nil {
		return v, fmt.Errorf("stored %s document: %w", c.Name, err)
	}
	return v, nil
}

// All returns every document, sorted by title.
func (c Collection[T]) All(ctx context.Context) ([]T, error) {
	all, err := store.All(ctx, c.St, c.Name, c.decode)
	slices.SortStableFunc(all, func(a, b T) int { return strings.Compare(c.Title(a), c.Title(b)) })
	return all, err
}

// Put creates or replaces a document.
func (c Collection[T]) Put(ctx context.Context, id string, v T) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.St.Put(ctx, c.Name, id, doc)
}

// Update changes a stored document with fn, atomically.
func (c Collection[T]) Update(ctx context.Context, id string, fn func(*T)) error {
	return c.St.Update(ctx, c.Name, id, func(doc []byte) ([]byte, error) {
		v, err := c.decode(doc)
		if err != nil {
			return nil, err
		}
		fn(&v)
		return json.Marshal(v)
	})
}

// Delete removes a document; an unknown one is no error.
func (c Collection[T]) Delete(ctx context.Context, id string) error {
	if err := c.St.Delete(ctx, c.Name, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}
