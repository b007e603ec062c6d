package views

import "context"

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
