package users

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/store"
)

// ExternalAccount is a directory user who logged in through an
// authentication backend.
type ExternalAccount struct {
	BackendID string
	UID       string // the entry's unique id (entryUUID, objectGUID), base64
	Username  string
	FullName  string
	Email     string
	// DefaultRoles are role ids given to the user when it is created.
	DefaultRoles []string
}

// ErrInvalidUsername refuses a directory login whose username cannot be
// part of a permission (see permission.ValidName).
var ErrInvalidUsername = errors.New("the directory's username is not allowed")

// ErrLocalUserExists refuses a directory login whose username belongs to a
// local user: the directory must not take over a local account.
var ErrLocalUserExists = errors.New("a local user has that username")

func serviceKey(backendID, uid string) string { return backendID + "\x00" + uid }

// Provision returns the identity of an external user after a successful
// directory login: created on the first login with the backend's default
// roles, its name and e-mail refreshed on later ones. A user is found by its
// entry's unique id, so a renamed directory user keeps their account; an
// external user of another backend with the same username is re-linked to
// this one (a migrated backend takes over its users).
func (s *Service) Provision(ctx context.Context, a ExternalAccount) (*auth.Identity, error) {
	if a.BackendID == "" || a.UID == "" || a.Username == "" {
		return nil, fmt.Errorf("provision external user: backend, unique id and username are required")
	}
	// The directory chooses the name, and it becomes part of the user's
	// own permissions: a "*" or "Doe, Jane" would grant users:edit over
	// others. Such a user cannot log in, whether new or linked before.
	if err := permission.ValidName("username", a.Username); err != nil {
		return nil, fmt.Errorf("directory user: %w: %w", ErrInvalidUsername, err)
	}
	key := serviceKey(a.BackendID, a.UID)
	id, _, err := s.st.FindUnique(ctx, Collection, "auth_service_key", key)
	if errors.Is(err, store.ErrNotFound) {
		var u *User
		u, err = s.ByName(ctx, a.Username)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return s.createExternal(ctx, a)
		case err != nil:
			return nil, err
		case !u.External || u.ReadOnly:
			return nil, fmt.Errorf("directory user %q: %w", a.Username, ErrLocalUserExists)
		}
		id = u.ID
	} else if err != nil {
		return nil, err
	}
	current, err := s.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if current.FullName == a.FullName && current.Email == a.Email && current.AuthServiceKey == key {
		// Nothing to write: an update would also drop the user's cached
		// credentials, and with them the check just made.
		return s.identity(ctx, current)
	}
	err = s.Update(ctx, id, func(u *User) error {
		u.FullName, u.Email = a.FullName, a.Email
		u.AuthServiceID, u.AuthServiceUID, u.AuthServiceKey = a.BackendID, a.UID, key
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.IdentityByID(ctx, id)
}

func (s *Service) createExternal(ctx context.Context, a ExternalAccount) (*auth.Identity, error) {
	roleIDs := slices.Clone(a.DefaultRoles)
	if len(roleIDs) == 0 {
		// Graylog gives users without roles the Reader role.
		reader, err := s.roles.ReaderID(ctx)
		if err != nil {
			return nil, err
		}
		roleIDs = []string{reader}
	}
	u := &User{
		Username: a.Username, FullName: a.FullName, Email: a.Email, External: true,
		Permissions: []string{}, RoleIDs: roleIDs, SessionTimeoutMs: DefaultSessionTimeout.Milliseconds(),
		AuthServiceID: a.BackendID, AuthServiceUID: a.UID, AuthServiceKey: serviceKey(a.BackendID, a.UID),
	}
	if err := s.Create(ctx, u); err != nil {
		// Another request or node may have created it meanwhile.
		if existing, lookErr := s.ByName(ctx, a.Username); lookErr == nil && existing.External {
			return s.Provision(ctx, a)
		}
		return nil, err
	}
	return s.IdentityByID(ctx, u.ID)
}

// ByAuthService returns the users created through an authentication backend.
func (s *Service) ByAuthService(ctx context.Context, backendID string) ([]*User, error) {
	var out []*User
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		u, err := decode(doc)
		if err == nil && u.AuthServiceID == backendID {
			out = append(out, u)
		}
		return err
	})
	return out, err
}
