package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Indices lists the indices of prefix, oldest first. Counts are kept in
// memory, so this is cheap.
func (s *Store) Indices(ctx context.Context, prefix string) ([]messages.Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, unavailable("indices", errClosed)
	}
	out := []messages.Index{}
	for _, ix := range s.series[prefix] {
		out = append(out, s.describe(ix))
	}
	return out, nil
}

// Rotate starts a new write index and records it in the manifest at once.
func (s *Store) Rotate(ctx context.Context, prefix string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !prefixPattern.MatchString(prefix) {
		return "", fmt.Errorf("embedded: invalid index prefix %q", prefix)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", unavailable("rotate", errClosed)
	}
	n := 0
	if list := s.series[prefix]; len(list) > 0 {
		n = list[len(list)-1].number + 1
	}
	ix := s.newIndex(prefix, n, s.opts.Now().UTC())
	if err := s.commitLocked(); err != nil {
		if !errors.Is(err, errUnsynced) {
			s.forget(ix)
		}
		return "", err
	}
	return ix.name, nil
}

// forget unregisters ix; the caller holds mu.
func (s *Store) forget(ix *index) {
	delete(s.indices, ix.name)
	list := s.series[ix.prefix]
	for i, x := range list {
		if x == ix {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.series, ix.prefix)
	} else {
		s.series[ix.prefix] = list
	}
}

// Delete removes an index that is not a write index, with its files.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return unavailable("delete", errClosed)
	}
	ix := s.indices[name]
	if ix == nil {
		return fmt.Errorf("embedded: index %s: %w", name, messages.ErrNotFound)
	}
	if list := s.series[ix.prefix]; list[len(list)-1] == ix {
		return fmt.Errorf("embedded: cannot delete %s: %w", name, messages.ErrWriteIndex)
	}
	s.forget(ix)
	if err := s.commitLocked(); err != nil {
		if !errors.Is(err, errUnsynced) {
			s.newIndexFrom(ix)
			return err
		}
		// Deleted here; its files stay until Open, as the manifest that
		// names them may come back.
		for _, r := range ix.segs {
			r.seg.release()
		}
		ix.segs = nil
		return err
	}
	for _, r := range ix.segs {
		r.seg.release()
	}
	ix.segs = nil
	if err := os.RemoveAll(ix.dir); err != nil {
		// The manifest no longer names it; Open removes what is left.
		return fmt.Errorf("embedded: delete %s: %w", name, err)
	}
	return nil
}

// newIndexFrom registers ix again after a failed Delete.
func (s *Store) newIndexFrom(ix *index) {
	s.indices[ix.name] = ix
	list := append(s.series[ix.prefix], ix)
	for i := len(list) - 1; i > 0 && list[i-1].number > list[i].number; i-- {
		list[i-1], list[i] = list[i], list[i-1]
	}
	s.series[ix.prefix] = list
}

// CloseIndex hides an index that is not a write index from searches and
// records that in the manifest at once; its files stay.
func (s *Store) CloseIndex(ctx context.Context, name string) error {
	return s.setClosed(ctx, "close", name, true)
}

// ReopenIndex makes a closed index searchable again and marks it
// reopened.
func (s *Store) ReopenIndex(ctx context.Context, name string) error {
	return s.setClosed(ctx, "reopen", name, false)
}

// setClosed closes or reopens an index and commits the change; on a
// failed commit the index keeps its state.
func (s *Store) setClosed(ctx context.Context, op, name string, closed bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return unavailable(op, errClosed)
	}
	ix := s.indices[name]
	if ix == nil {
		return fmt.Errorf("embedded: index %s: %w", name, messages.ErrNotFound)
	}
	if list := s.series[ix.prefix]; closed && list[len(list)-1] == ix {
		return fmt.Errorf("embedded: cannot close %s: %w", name, messages.ErrWriteIndex)
	}
	wasClosed, wasReopened := ix.closed, ix.reopened
	ix.closed, ix.reopened = closed, !closed
	if err := s.commitLocked(); err != nil {
		if !errors.Is(err, errUnsynced) {
			ix.closed, ix.reopened = wasClosed, wasReopened
		}
		return err
	}
	return nil
}
