package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/access/roles"
	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/backend/store"
)

// SystemPasswordPurpose names the sealing key of the backends' system user
// passwords; migrations seal with it too.
const SystemPasswordPurpose = "authentication backend system password"

// directoryLogin checks passwords of users without a local one against the
// active authentication backend and provisions them as external users.
type directoryLogin struct {
	backends *authservices.Service
	users    *users.Service
	log      *slog.Logger
}

// Login implements auth.External.
func (d directoryLogin) Login(ctx context.Context, username, password string) (*auth.Identity, error) {
	active, err := d.backends.Active(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", auth.ErrBackendUnavailable, err)
	}
	if active == nil {
		return nil, auth.ErrNoBackend
	}
	entry, err := active.Directory.Authenticate(ctx, username, password)
	switch {
	case errors.Is(err, ldap.ErrInvalidCredentials), errors.Is(err, ldap.ErrUnknownUser):
		return nil, auth.ErrRejected
	case err != nil:
		// Unreachable, or misconfigured: either way no directory user can
		// log in until it is fixed, and the log says which.
		return nil, fmt.Errorf("%w: backend %s: %w", auth.ErrBackendUnavailable, active.BackendID, err)
	}
	id, err := d.users.Provision(ctx, users.ExternalAccount{
		BackendID: active.BackendID, UID: entry.Base64UniqueID(), Username: entry.Username,
		FullName: entry.FullName, Email: entry.Email, DefaultRoles: active.DefaultRoles,
	})
	switch {
	case errors.Is(err, users.ErrLocalUserExists):
		return nil, auth.ErrRejected
	case errors.Is(err, users.ErrInvalidUsername):
		// The password was right: the operator is told why the login
		// fails (a directory name is not secret), the client is not.
		d.log.Warn("directory login refused: its username cannot be a loggate username",
			"backend", active.BackendID, "username", entry.Username, "err", err)
		return nil, auth.ErrRejected
	}
	return id, err
}

// userExists reports whether a user of that name exists, the root user
// among them.
func (n *Node) userExists(ctx context.Context, username string) (bool, error) {
	_, err := n.Users.ByName(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// roleLookup answers the backends' questions about roles.
type roleLookup struct{ roles *roles.Service }

func (r roleLookup) Exists(ctx context.Context, id string) (bool, error) {
	_, err := r.roles.ByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (r roleLookup) Titles(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		role, err := r.roles.ByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = role.Name
	}
	return out, nil
}

// backendUsers lists the users a backend created, for its user listing.
type backendUsers struct{ users *users.Service }

func (b backendUsers) ByAuthService(ctx context.Context, backendID string) ([]authservices.UserOverview, error) {
	list, err := b.users.ByAuthService(ctx, backendID)
	if err != nil {
		return nil, err
	}
	out := make([]authservices.UserOverview, 0, len(list))
	for _, u := range list {
		o, err := b.users.Overview(ctx, u)
		if err != nil {
			return nil, err
		}
		out = append(out, authservices.UserOverview{Overview: o, Roles: u.RoleIDs})
	}
	return out, nil
}
