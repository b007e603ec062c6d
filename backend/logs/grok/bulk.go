package grok

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Import stores many patterns at once, all or nothing: if any is invalid,
// or (without replace) any name is taken, nothing is stored and every
// failure is reported in one validation error. With replace, every stored
// pattern is deleted first and the new ones are validated among themselves
// only. Without replace, a taken name is refused, as Graylog 4.0's bulk save
// refuses it; it does not update the stored pattern.
//
// An id given with a pattern is kept when it is an ObjectId no other
// pattern holds, so that an exported list imported with replace keeps its
// ids.
func (s *Service) Import(ctx context.Context, ps []Pattern, replace bool) error {
	s.write.Lock()
	defer s.write.Unlock()
	snap := s.current()
	news, err := prepareImport(snap, ps, replace)
	if err != nil {
		return err
	}
	if err := s.storeImport(ctx, snap, news, replace); err != nil {
		// The store has no transactions: whatever was written before the
		// failure is what the snapshot must show.
		if rerr := s.reload(ctx); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	if replace {
		s.published(ctx, news)
	} else {
		s.published(ctx, append(slices.Clone(snap.sorted), news...))
	}
	return nil
}

// prepareImport validates an import and assigns its ids.
func prepareImport(snap *snapshot, ps []Pattern, replace bool) ([]Pattern, error) {
	v := &api.ValidationError{}
	top := make(library, len(ps))
	for _, p := range ps {
		if _, dup := top[p.Name]; dup {
			v.Add("_", "Grok pattern %s is defined more than once", p.Name)
			continue
		}
		if !replace && snap.nameTaken(p.Name, "") {
			v.Add("_", "Grok pattern %s already exists", p.Name)
		}
		top[p.Name] = newDefinition(p.Pattern)
	}
	defs := overlay{top: top, base: snap.lib}
	if replace {
		defs.base = nil
	}
	checked := make(map[string]bool, len(ps))
	for _, p := range ps {
		if checked[p.Name] {
			continue
		}
		checked[p.Name] = true
		if _, err := check(p, top[p.Name], defs); err != nil {
			v.Add("_", "%s", invalid(p.Name, err))
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	news := make([]Pattern, len(ps))
	used := make(map[string]bool, len(ps))
	for i, p := range ps {
		_, held := snap.byID[p.ID]
		if _, err := primitive.ObjectIDFromHex(p.ID); err != nil || used[p.ID] || (held && !replace) {
			p.ID = primitive.NewObjectID().Hex()
		}
		used[p.ID] = true
		news[i] = p
	}
	return news, nil
}

func (s *Service) storeImport(ctx context.Context, snap *snapshot, news []Pattern, replace bool) error {
	if replace {
		for _, old := range snap.sorted {
			if err := s.st.Delete(ctx, Collection, old.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("grok: deleting pattern %s: %w", old.Name, err)
			}
		}
	}
	for _, p := range news {
		err := s.insert(ctx, p)
		if errors.Is(err, store.ErrConflict) {
			return alreadyExists(p.Name) // taken on another node meanwhile
		}
		if err != nil {
			return fmt.Errorf("grok: saving pattern %s: %w", p.Name, err)
		}
	}
	return nil
}
