package views

import (
	"context"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/loggate/loggate/backend/store"
)

// Owned is a view and its owner, for the sharing API.
type Owned struct {
	ID, Title string
	Type      Type
	// Owner is the creator's username, "" for none.
	Owner string
}

// Owned returns every stored view with its owner, in id order.
func (s *Service) Owned(ctx context.Context) ([]Owned, error) {
	all, err := s.summaries(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]Owned, len(all))
	for i, v := range all {
		out[i] = Owned{ID: v.id, Title: v.title, Type: v.typ, Owner: v.owner}
	}
	return out, nil
}

// DisownUser ends the ownership of a deleted user's views and searches:
// ownership is kept by username, and a new user of that name must not
// inherit them (Graylog's ownership grants go with the user). They stay,
// without an owner, for whoever holds permissions on them.
func (s *Service) DisownUser(ctx context.Context, username string) error {
	if username == "" {
		return nil
	}
	for _, coll := range []string{Collection, SearchCollection} {
		var owned []string
		err := s.st.List(ctx, coll, func(id string, doc []byte) error {
			if gjson.GetBytes(doc, "owner").Str == username {
				owned = append(owned, id)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("list %s: %w", coll, err)
		}
		for _, id := range owned {
			err := s.st.Update(ctx, coll, id, func(doc []byte) ([]byte, error) {
				if gjson.GetBytes(doc, "owner").Str != username {
					return doc, nil
				}
				return sjson.SetBytes(doc, "owner", nil)
			})
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("disown %s %s: %w", coll, id, err)
			}
		}
	}
	return nil
}

// DisownMissing gives up the views and searches of owners exists does not
// know: users deleted before their deletion disowned them.
func (s *Service) DisownMissing(ctx context.Context, exists func(ctx context.Context, username string) (bool, error)) error {
	owners := map[string]bool{}
	for _, coll := range []string{Collection, SearchCollection} {
		err := s.st.List(ctx, coll, func(_ string, doc []byte) error {
			if o := gjson.GetBytes(doc, "owner").Str; o != "" {
				owners[o] = true
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("list %s: %w", coll, err)
		}
	}
	for name := range owners {
		ok, err := exists(ctx, name)
		if err != nil {
			return fmt.Errorf("look up owner %q: %w", name, err)
		}
		if !ok {
			if err := s.DisownUser(ctx, name); err != nil {
				return err
			}
		}
	}
	return nil
}
