package authservices

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// globalConfig is the stored active backend setting, Graylog's
// GlobalAuthServiceConfig.Data.
type globalConfig struct {
	ActiveBackend *string `json:"active_backend"`
}

// ActiveID returns the id of the active backend, or "" when none is active.
func (s *Service) ActiveID(ctx context.Context) (string, error) {
	var c globalConfig
	if err := s.readConfig(ctx, globalConfigID, &c); err != nil {
		return "", err
	}
	if c.ActiveBackend == nil {
		return "", nil
	}
	return *c.ActiveBackend, nil
}

// SetActive makes the backend id the active one, or deactivates every
// backend when id is blank. An unknown id is a 404.
func (s *Service) SetActive(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c globalConfig
	if !blank(id) {
		if _, err := s.get(ctx, id); err != nil {
			return err
		}
		c.ActiveBackend = &id
	}
	doc, err := api.Marshal(c)
	if err != nil {
		return fmt.Errorf("active backend: %w", err)
	}
	if err := s.st.Put(ctx, ConfigCollection, globalConfigID, doc); err != nil {
		return fmt.Errorf("active backend: %w", err)
	}
	s.forgetLogins(ctx)
	return nil
}

// ActiveBackend returns the active backend, or nil when none is active. A
// setting that names a backend no longer stored counts as none, as in
// Graylog.
func (s *Service) ActiveBackend(ctx context.Context) (*Backend, error) {
	id, err := s.ActiveID(ctx)
	if err != nil || id == "" {
		return nil, err
	}
	b, err := s.Get(ctx, id)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// Active is what the authenticator needs of the active backend. It is
// shared between callers and must not be modified.
type Active struct {
	BackendID string
	// Directory authenticates against the backend's directory.
	Directory *ldap.Directory
	// DefaultRoles are the role ids new users of the backend get.
	DefaultRoles []string
	// Config is the backend's configuration with the system user password
	// decrypted.
	Config ldap.Config
}

// activeCache holds the Active built from one stored backend document, so
// that logins neither decrypt the password nor build a directory each time.
type activeCache struct {
	mu  sync.Mutex
	doc []byte // the backend document val was built from
	val *Active
}

// Active returns the active backend for authentication, or nil when no
// backend is active. The result is rebuilt only when the active backend or
// its stored document changed, which two store reads tell; the comparison
// with the document, rather than a flag set by this service's writes, keeps
// it right when another node changed the backend.
func (s *Service) Active(ctx context.Context) (*Active, error) {
	id, err := s.ActiveID(ctx)
	if err != nil || id == "" {
		return nil, err
	}
	doc, err := s.st.Get(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("active backend %s: %w", id, err)
	}
	c := &s.active
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.val != nil && c.val.BackendID == id && bytes.Equal(c.doc, doc) {
		return c.val, nil
	}
	b, err := decodeBackend(doc)
	if err != nil {
		return nil, err
	}
	cfg := b.Config
	if b.sealed != "" {
		if cfg.SystemUserPassword, err = s.sealer.Open(b.sealed); err != nil {
			return nil, fmt.Errorf("active backend %s: %w", id, err)
		}
	}
	c.doc, c.val = doc, &Active{BackendID: id, Directory: ldap.New(cfg), DefaultRoles: b.DefaultRoles, Config: cfg}
	return c.val, nil
}

func isNotFound(err error) bool { return err != nil && api.ErrorCode(err) == api.NotFound }
