package authservices

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// notFound is Graylog's 404 for a backend.
func notFound(id string) error {
	return api.Errorf(api.NotFound, "Couldn't find auth service backend %s", id)
}

// Get returns a backend, or a 404 error.
func (s *Service) Get(ctx context.Context, id string) (Backend, error) {
	st, err := s.get(ctx, id)
	return st.Backend, err
}

func (s *Service) get(ctx context.Context, id string) (stored, error) {
	doc, err := s.st.Get(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return stored{}, notFound(id)
	}
	if err != nil {
		return stored{}, fmt.Errorf("backend %s: %w", id, err)
	}
	return decodeBackend(doc)
}

// List returns every backend, in id order.
func (s *Service) List(ctx context.Context) ([]Backend, error) {
	var out []Backend
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		b, err := decodeBackend(doc)
		out = append(out, b.Backend)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list backends: %w", err)
	}
	return out, nil
}

// Count returns the number of backends.
func (s *Service) Count(ctx context.Context) (int, error) {
	n, err := s.st.Count(ctx, Collection)
	if err != nil {
		return 0, fmt.Errorf("count backends: %w", err)
	}
	return n, nil
}

// Create validates and stores a new backend. A validation failure is an
// *api.ValidationError. A keep_value password keeps nothing: the backend
// has none.
func (s *Service) Create(ctx context.Context, in BackendInput) (Backend, error) {
	if err := s.validate(ctx, in); err != nil {
		return Backend{}, err
	}
	b, err := s.build(primitive.NewObjectID().Hex(), in, "")
	if err != nil {
		return Backend{}, err
	}
	now := api.Time{Time: s.now()}
	doc, err := b.document(now, now)
	if err != nil {
		return Backend{}, fmt.Errorf("create backend: %w", err)
	}
	if err := s.st.Insert(ctx, Collection, b.ID, doc); err != nil {
		return Backend{}, fmt.Errorf("create backend: %w", err)
	}
	return b, nil
}

// Update validates and replaces a backend. A keep_value password keeps the
// stored one; an absent one removes it, as Graylog does.
func (s *Service) Update(ctx context.Context, id string, in BackendInput) (Backend, error) {
	old, err := s.get(ctx, id)
	if err != nil {
		return Backend{}, err
	}
	if err := s.validate(ctx, in); err != nil {
		return Backend{}, err
	}
	b, err := s.build(id, in, old.sealed)
	if err != nil {
		return Backend{}, err
	}
	doc, err := b.document(old.created, api.Time{Time: s.now()})
	if err != nil {
		return Backend{}, fmt.Errorf("update backend %s: %w", id, err)
	}
	// Update, not Put, so that a backend deleted meanwhile stays deleted.
	err = s.st.Update(ctx, Collection, id, func([]byte) ([]byte, error) { return doc, nil })
	if errors.Is(err, store.ErrNotFound) {
		return Backend{}, notFound(id)
	}
	if err != nil {
		return Backend{}, fmt.Errorf("update backend %s: %w", id, err)
	}
	// The edited backend may be the active one, now asking another server
	// or searching elsewhere.
	s.forgetLogins(ctx)
	return b, nil
}

// build makes the backend to store from a validated input; sealed is the
// stored password a keep_value keeps.
func (s *Service) build(id string, in BackendInput, sealed string) (Backend, error) {
	cfg := in.Config
	cfg.SystemUserPassword = ""
	b := Backend{
		ID: id, Title: in.Title, Description: in.Description,
		DefaultRoles: dedupe(in.DefaultRoles), Config: cfg,
	}
	switch in.Password.Action {
	case SecretKeep:
		b.sealed = sealed
	case SecretSet:
		// An empty password is no password: binding with a DN and no
		// password is an unauthenticated bind.
		if in.Password.value != "" {
			var err error
			if b.sealed, err = s.sealer.Seal(in.Password.value); err != nil {
				return Backend{}, fmt.Errorf("backend %s: %w", id, err)
			}
		}
	}
	b.PasswordSet = b.sealed != ""
	return b, nil
}

// validate checks a backend write as Graylog does, plus that its default
// roles exist. It returns nil or an *api.ValidationError.
func (s *Service) validate(ctx context.Context, in BackendInput) error {
	var v api.ValidationError
	if blank(in.Title) {
		v.Add("title", "Title cannot be empty.")
	}
	in.Config.ValidateInto(&v)
	for _, id := range dedupe(in.DefaultRoles) {
		ok, err := s.roles.Exists(ctx, id)
		if err != nil {
			return fmt.Errorf("default role %s: %w", id, err)
		}
		if !ok {
			v.Add("default_roles", "Role %s doesn't exist.", id)
		}
	}
	return v.Err()
}

// Delete removes a backend. The active backend is in use and cannot be
// deleted: a 400, as in Graylog.
func (s *Service) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.get(ctx, id); err != nil {
		return err
	}
	active, err := s.ActiveID(ctx)
	if err != nil {
		return err
	}
	if active == id {
		return api.Errorf(api.Invalid, "Authentication service backend %s is still in use", id)
	}
	err = s.st.Delete(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(id)
	}
	if err != nil {
		return fmt.Errorf("delete backend %s: %w", id, err)
	}
	return nil
}
