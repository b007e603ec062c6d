// Package authservices serves Graylog 4.0's authentication services API:
// the LDAP and Active Directory backends, which of them is active, the
// backend connection and login tests and the trusted header authentication
// settings. It also hands the authenticator the active backend's directory,
// built once and rebuilt only when the backend changes.
package authservices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/store"
)

// Where the service keeps its documents. The two settings documents live in
// the cluster configuration collection under the names of the Graylog
// classes that hold them there.
const (
	// Collection holds the backends, one document per backend.
	Collection = "auth_service_backends"
	// ConfigCollection holds the active backend setting and the trusted
	// header settings.
	ConfigCollection = "cluster_config"

	globalConfigID = "org.graylog.security.authservice.GlobalAuthServiceConfig.Data"
	headerAuthID   = "org.graylog2.security.headerauth.HTTPHeaderAuthConfig"
)

// Sealer encrypts the system user passwords at rest. auth.Keys.Sealer
// implements it.
type Sealer interface {
	Seal(plain string) (string, error)
	Open(sealed string) (string, error)
}

// Roles answers what the service needs to know about roles.
type Roles interface {
	// Exists reports whether a role with that id exists; default roles must.
	Exists(ctx context.Context, roleID string) (bool, error)
	// Titles returns the names of those of roleIDs that exist, by id, for
	// the role context of a backend's user listing.
	Titles(ctx context.Context, roleIDs []string) (map[string]string, error)
}

// Users lists the users an authentication backend created.
type Users interface {
	// ByAuthService returns the users whose auth_service_id is backendID.
	ByAuthService(ctx context.Context, backendID string) ([]UserOverview, error)
}

// Service stores the backends and the settings around them.
type Service struct {
	st     store.Store
	sealer Sealer
	roles  Roles
	users  Users
	now    func() time.Time

	// mu serialises the writes that depend on which backend is active
	// (activating one, deleting one), so that no backend is deleted while
	// it is being activated.
	mu     sync.Mutex
	active activeCache
	logins LoginCache
	header atomic.Pointer[HeaderAuthConfig]
}

// NewService returns the service. All dependencies are required: sealer
// seals the system passwords, roles checks default roles and names them,
// now stamps the stored documents (created_at, updated_at).
func NewService(st store.Store, sealer Sealer, roles Roles, now func() time.Time) *Service {
	return &Service{st: st, sealer: sealer, roles: roles, now: now}
}

// SetUsers gives the service the user listing of
// /system/authentication/services/backends/{id}/users; call it before
// serving. Until it is called that endpoint fails.
func (s *Service) SetUsers(u Users) { s.users = u }

// LoginCache forgets cached directory logins; *auth.CredentialCache
// satisfies it.
type LoginCache interface {
	InvalidateDirectoryLogins(ctx context.Context)
}

// SetLoginCache gives the service the credential cache to clear when the
// active backend changes or is edited; call it before serving.
func (s *Service) SetLoginCache(c LoginCache) { s.logins = c }

// forgetLogins clears the cached directory logins, if there is a cache.
func (s *Service) forgetLogins(ctx context.Context) {
	if s.logins != nil {
		s.logins.InvalidateDirectoryLogins(ctx)
	}
}

// errNoUsers is the failure of the user listing before SetUsers.
var errNoUsers = errors.New("authservices: no user service configured")

// readConfig reads a settings document into v; v keeps its defaults when
// the document does not exist.
func (s *Service) readConfig(ctx context.Context, id string, v any) error {
	doc, err := s.st.Get(ctx, ConfigCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", id, err)
	}
	if err := json.Unmarshal(doc, v); err != nil {
		return fmt.Errorf("read %s: %w", id, err)
	}
	return nil
}
