package users

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/access/roles"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Indexes are the unique indexes users need.
var Indexes = []store.Index{
	{Collection: Collection, Field: "username"}, {Collection: Collection, Field: "username_lower"},
	{Collection: Collection, Field: "auth_service_key"},
}

// Root is the root user of the configuration (root_username and its password
// hash). It is never stored: like Graylog, loggate builds it from the
// configuration at every start.
type Root struct {
	Username     string
	PasswordHash string
	Timezone     string
}

// Invalidator drops cached credentials of a user.
type Invalidator interface {
	InvalidateUser(ctx context.Context, userID string)
}

// NameCache keeps username ↔ id resolutions (auth.CredentialCache.UserID
// and Username),
// dropped with the user's cached credentials (Invalidator) on every write to
// the user, a rename or a deletion among them.
type NameCache interface {
	UserID(ctx context.Context, username string, resolve func(context.Context) (string, error)) (string, error)
	Username(ctx context.Context, id string, resolve func(context.Context) (string, error)) (string, error)
}

// Sessions are the users' login sessions (sessions.Service).
type Sessions interface {
	// Activity reports a user's sessions, for session_active and
	// last_activity.
	Activity(ctx context.Context, userID string) (active bool, last time.Time, clientAddress string, err error)
	// Activities reports every user's sessions as Activity does, in one
	// pass, for listings.
	Activities(ctx context.Context, fn func(userID string, active bool, last time.Time, clientAddress string)) error
	// EndSessions ends every session of a user but the one with id keep
	// ("" keeps none).
	EndSessions(ctx context.Context, userID, keep string) error
}

// Dependent owns records of users that must go when the user goes (tokens,
// sessions).
type Dependent interface {
	DeleteForUser(ctx context.Context, userID string) error
}

// Disowner gives up what a deleted user owned by name (views, searches):
// ownership kept by username would pass to the next user of that name,
// where Graylog's grants go with the user.
type Disowner interface {
	DisownUser(ctx context.Context, username string) error
}

// Service stores users.
type Service struct {
	st         store.Store
	roles      *roles.Service
	root       Root
	invalidate Invalidator
	names      NameCache
	sessions   Sessions
	dependents []Dependent
	disowners  []Disowner
}

// Options are the collaborators of a Service. Sessions and Dependents may be
// set later with SetSessions/AddDependent: sessions and tokens need the
// Service first.
type Options struct {
	Store       store.Store
	Roles       *roles.Service
	Root        Root
	Invalidator Invalidator
	// Names, when set, caches IDByUsername; it must be invalidated with
	// the Invalidator (the same credential cache).
	Names NameCache
}

// NewService returns the user service.
func NewService(o Options) *Service {
	return &Service{st: o.Store, roles: o.Roles, root: o.Root, invalidate: o.Invalidator, names: o.Names}
}

// SetSessions sets the users' sessions.
func (s *Service) SetSessions(ss Sessions) { s.sessions = ss }

// AddDependent registers records to delete with a user.
func (s *Service) AddDependent(d Dependent) { s.dependents = append(s.dependents, d) }

// AddDisowner registers records a user owns by name, given up with them.
func (s *Service) AddDisowner(d Disowner) { s.disowners = append(s.disowners, d) }

func (s *Service) rootUser(ctx context.Context) (*User, error) {
	adminID, err := s.roles.AdminID(ctx)
	if err != nil {
		return nil, err
	}
	tz := s.root.Timezone
	return &User{
		ID: auth.RootUserID, Username: s.root.Username, FullName: "Administrator", Email: "",
		PasswordHash: s.root.PasswordHash, Permissions: []string{"*"}, Timezone: &tz,
		SessionTimeoutMs: DefaultSessionTimeout.Milliseconds(), RoleIDs: []string{adminID},
		AccountStatus: StatusEnabled, ReadOnly: true,
	}, nil
}

// ByID returns a user by id, the root user included. An id that is not a
// stored user's is store.ErrNotFound.
func (s *Service) ByID(ctx context.Context, id string) (*User, error) {
	if id == auth.RootUserID {
		return s.rootUser(ctx)
	}
	if _, err := primitive.ObjectIDFromHex(id); err != nil {
		return nil, fmt.Errorf("user id %q: %w", id, store.ErrNotFound)
	}
	doc, err := s.st.Get(ctx, Collection, id)
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", id, err)
	}
	return decode(doc)
}

// ByName returns a user by username, the root user included, regardless of
// case (FoldName).
func (s *Service) ByName(ctx context.Context, username string) (*User, error) {
	folded := FoldName(username)
	if folded == FoldName(s.root.Username) {
		return s.rootUser(ctx)
	}
	_, doc, err := s.st.FindUnique(ctx, Collection, "username_lower", folded)
	if errors.Is(err, store.ErrNotFound) {
		// Stored by a release that folded with strings.ToLower, which
		// differs for a few letters (ſ, ς, ϑ, …): the exact name finds it.
		_, doc, err = s.st.FindUnique(ctx, Collection, "username", username)
	}
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", username, err)
	}
	return decode(doc)
}

// All returns the root user first, then every stored user by username.
func (s *Service) All(ctx context.Context) ([]*User, error) {
	root, err := s.rootUser(ctx)
	if err != nil {
		return nil, err
	}
	var stored []*User
	err = s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		u, err := decode(doc)
		stored = append(stored, u)
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(stored, func(i, j int) bool { return stored[i].Username < stored[j].Username })
	return append([]*User{root}, stored...), nil
}

// Count returns the number of stored users. The root user is not stored and
// not counted, as in Graylog's user_count.
func (s *Service) Count(ctx context.Context) (int, error) {
	return s.st.Count(ctx, Collection)
}

// Create stores a new user.
func (s *Service) Create(ctx context.Context, u *User) error {
	// The name becomes part of the user's own permissions
	// (users:edit:<username>), whoever chose it.
	if err := permission.ValidName("username", u.Username); err != nil {
		return api.Wrap(api.Invalid, err.Error(), err)
	}
	u.UsernameLower = FoldName(u.Username)
	if u.UsernameLower == FoldName(s.root.Username) {
		return api.Errorf(api.Invalid, "Cannot create user %s. Username is already taken.", u.Username)
	}
	u.ID = primitive.NewObjectID().Hex()
	if u.AccountStatus == "" {
		u.AccountStatus = StatusEnabled
	}
	doc, err := api.Marshal(u)
	if err != nil {
		return err
	}
	if err := s.st.Insert(ctx, Collection, u.ID, doc); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return api.Errorf(api.Invalid, "Cannot create user %s. Username is already taken.", u.Username)
		}
		return err
	}
	return nil
}

// Builtin is a user Graylog creates itself, as its migrations do.
type Builtin struct {
	Username, FullName, Email string
	// Roles are the role names the user must hold.
	Roles          []string
	ServiceAccount bool
}

// SidecarUser is Graylog's Sidecar system user (migration
// V20180323150000_AddSidecarUser, sidecar user graylog-sidecar): a service
// account with the Sidecar System (Internal) and Reader roles, for the
// tokens Sidecars register with.
var SidecarUser = Builtin{
	Username: "graylog-sidecar", FullName: "Sidecar System User (built-in)", Email: "sidecar@graylog.local",
	Roles: []string{"Sidecar System (Internal)", "Reader"}, ServiceAccount: true,
}

// EnsureBuiltin makes sure b exists, as Graylog's MigrationHelpers.ensureUser
// at every start: a missing user is created in UTC with no password (an
// empty hash matches none, as Graylog's random one no one knows),
// one that lacks a role or has another service-account flag gets b's roles
// and flag back. A root user of that name leaves it be.
func (s *Service) EnsureBuiltin(ctx context.Context, b Builtin) error {
	if FoldName(b.Username) == FoldName(s.root.Username) {
		return nil
	}
	roleIDs, err := s.roles.IDsByNames(ctx, b.Roles)
	if err != nil {
		return fmt.Errorf("built-in user %s: %w", b.Username, err)
	}
	u, err := s.ByName(ctx, b.Username)
	if errors.Is(err, store.ErrNotFound) {
		utc := "UTC"
		err = s.Create(ctx, &User{
			Username: b.Username, FullName: b.FullName, Email: b.Email, Permissions: []string{},
			Timezone: &utc, SessionTimeoutMs: DefaultSessionTimeout.Milliseconds(), RoleIDs: roleIDs,
			ServiceAccount: b.ServiceAccount,
		})
		if err == nil {
			return nil
		}
		// Another node starting at the same time may have created it
		// meanwhile: that one is checked as found.
		var lookErr error
		if u, lookErr = s.ByName(ctx, b.Username); lookErr != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if !slices.ContainsFunc(roleIDs, func(id string) bool { return !slices.Contains(u.RoleIDs, id) }) && u.ServiceAccount == b.ServiceAccount {
		return nil
	}
	return s.Update(ctx, u.ID, func(u *User) error {
		u.RoleIDs, u.ServiceAccount = roleIDs, b.ServiceAccount
		return nil
	})
}

// errReadOnly is Graylog's answer to changes of the root user.
func errReadOnly(username string) error {
	return api.Errorf(api.Invalid, "Cannot modify readonly user %s", username)
}

// Update changes a stored user with fn and drops the user's cached
// credentials. The root user is read-only.
func (s *Service) Update(ctx context.Context, id string, fn func(*User) error) error {
	if id == auth.RootUserID {
		return errReadOnly(s.root.Username)
	}
	err := s.st.Update(ctx, Collection, id, func(doc []byte) ([]byte, error) {
		u, err := decode(doc)
		if err != nil {
			return nil, err
		}
		if err := fn(u); err != nil {
			return nil, err
		}
		return api.Marshal(u)
	})
	if err != nil {
		// Not found: deleted since the caller read it.
		return api.As(err, store.ErrNotFound, api.NotFound)
	}
	s.invalidate.InvalidateUser(ctx, id)
	return nil
}

// SetPassword stores a new password hash and ends every session of the user
// but keep (the session id that made the change, or ""): whoever learnt the
// old password is logged out everywhere. Tokens stay, as in Graylog.
func (s *Service) SetPassword(ctx context.Context, id, hash, keep string) error {
	if err := s.Update(ctx, id, func(u *User) error { u.PasswordHash = hash; return nil }); err != nil {
		return err
	}
	return s.endSessions(ctx, id, keep)
}

// SetStatus changes a user's account status. A user who may no longer log in
// loses every session for good, as in Graylog 4.0; their tokens are refused
// while the account is not enabled and work again once it is.
func (s *Service) SetStatus(ctx context.Context, id, status string) error {
	if err := s.Update(ctx, id, func(u *User) error { u.AccountStatus = status; return nil }); err != nil {
		return err
	}
	if status == StatusEnabled {
		return nil
	}
	return s.endSessions(ctx, id, "")
}

func (s *Service) endSessions(ctx context.Context, id, keep string) error {
	if s.sessions == nil {
		return nil
	}
	if err := s.sessions.EndSessions(ctx, id, keep); err != nil {
		return fmt.Errorf("end sessions of user %s: %w", id, err)
	}
	return nil
}

// Delete removes a user with its tokens and sessions.
func (s *Service) Delete(ctx context.Context, u *User) error {
	if u.ReadOnly {
		return api.Errorf(api.Invalid, "Cannot delete readonly user %s", u.Username)
	}
	if err := s.st.Delete(ctx, Collection, u.ID); err != nil {
		return api.As(err, store.ErrNotFound, api.NotFound) // deleted meanwhile
	}
	s.invalidate.InvalidateUser(ctx, u.ID)
	for _, d := range s.dependents {
		if err := d.DeleteForUser(ctx, u.ID); err != nil {
			return fmt.Errorf("delete records of user %s: %w", u.Username, err)
		}
	}
	for _, d := range s.disowners {
		if err := d.DisownUser(ctx, u.Username); err != nil {
			return fmt.Errorf("give up what user %s owned: %w", u.Username, err)
		}
	}
	return nil
}

// EffectivePermissions returns a user's own permissions, those of their roles
// and the implicit self-edit ones.
func (s *Service) EffectivePermissions(ctx context.Context, u *User) ([]string, error) {
	_, rolePerms, err := s.roles.Resolve(ctx, u.RoleIDs)
	if err != nil {
		return nil, err
	}
	// In canonical form, as Graylog shows them: ASCII letters lowercased.
	// They match case-insensitively; lowercasing other letters would
	// change what they match (U+0130 'İ' becomes 'i', which it does not
	// fold to), and a user named İlker lost users:edit:İlker.
	perms := slices.Concat(u.Permissions, rolePerms, selfPermissions(u.Username))
	for i, p := range perms {
		if parsed, err := permission.Parse(p); err == nil {
			perms[i] = parsed.String()
		}
	}
	slices.Sort(perms)
	return slices.Compact(perms), nil
}

// Summary renders a user as Graylog's UserSummary. Permissions are shown only
// when withPermissions is set (the caller is the user or may edit their
// permissions).
func (s *Service) Summary(ctx context.Context, u *User, withPermissions bool) (Summary, error) {
	return s.summary(ctx, u, withPermissions, true)
}

// summary is Summary; without activity, session_active is false and
// last_activity and client_address null, as in role member lists.
func (s *Service) summary(ctx context.Context, u *User, withPermissions, withActivity bool) (Summary, error) {
	names, _, err := s.roles.Resolve(ctx, u.RoleIDs)
	if err != nil {
		return Summary{}, err
	}
	perms := []string{}
	if withPermissions {
		if perms, err = s.EffectivePermissions(ctx, u); err != nil {
			return Summary{}, err
		}
	}
	prefs := u.Preferences
	if len(prefs) == 0 {
		prefs = defaultPreferences
	}
	sum := Summary{
		ID: u.ID, Username: u.Username, Email: u.Email, FullName: u.FullName,
		Permissions: perms, GRNPermissions: []string{}, Preferences: prefs,
		Timezone: u.Timezone, SessionTimeoutMs: u.sessionTimeoutMs(),
		ReadOnly: u.ReadOnly, External: u.External, Startpage: u.Startpage,
		Roles: nonNil(names), AccountStatus: u.AccountStatus, ServiceAccount: u.ServiceAccount,
	}
	if !withActivity {
		return sum, nil
	}
	if sum.SessionActive, sum.LastActivity, sum.ClientAddress, err = s.activityOf(ctx, u.ID); err != nil {
		return Summary{}, err
	}
	return sum, nil
}

// Overview renders a user as an item of /users/paginated.
func (s *Service) Overview(ctx context.Context, u *User) (Overview, error) {
	o, err := s.overview(ctx, u)
	if err != nil {
		return Overview{}, err
	}
	if o.SessionActive, o.LastActivity, o.ClientAddress, err = s.activityOf(ctx, u.ID); err != nil {
		return Overview{}, err
	}
	return o, nil
}

// overview is Overview without the activity.
func (s *Service) overview(ctx context.Context, u *User) (Overview, error) {
	names, _, err := s.roles.Resolve(ctx, u.RoleIDs)
	if err != nil {
		return Overview{}, err
	}
	o := Overview{
		ID: u.ID, Username: u.Username, Email: u.Email, FullName: u.FullName,
		ExternalUser: u.External, Roles: nonNil(names), ReadOnly: u.ReadOnly, AccountStatus: u.AccountStatus,
		ServiceAccount: u.ServiceAccount,
	}
	if u.AuthServiceID != "" {
		o.AuthServiceID, o.AuthServiceUID = &u.AuthServiceID, &u.AuthServiceUID
	}
	return o, nil
}

func (s *Service) activityOf(ctx context.Context, userID string) (bool, *string, *string, error) {
	if s.sessions == nil {
		return false, nil, nil, nil
	}
	active, last, addr, err := s.sessions.Activity(ctx, userID)
	if err != nil {
		return false, nil, nil, err
	}
	a := activity{active: active, last: last, addr: addr}
	return a.shown()
}

// activity is what the sessions report of one user.
type activity struct {
	active bool
	last   time.Time
	addr   string
}

// shown gives session_active, last_activity and client_address as
// Graylog shows them.
func (a activity) shown() (bool, *string, *string, error) {
	if a.last.IsZero() {
		return a.active, nil, nil, nil
	}
	ts := a.last.UTC().Format("2006-01-02T15:04:05.000-0700")
	var addr *string
	if a.addr != "" {
		addr = &a.addr
	}
	return a.active, &ts, addr, nil
}

// activities reads every user's activity at once.
func (s *Service) activities(ctx context.Context) (map[string]activity, error) {
	out := map[string]activity{}
	if s.sessions == nil {
		return out, nil
	}
	err := s.sessions.Activities(ctx, func(id string, active bool, last time.Time, addr string) {
		out[id] = activity{active: active, last: last, addr: addr}
	})
	return out, err
}

// Summaries renders users as Summary does, with their permissions, reading
// the sessions once for all of them.
func (s *Service) Summaries(ctx context.Context, us []*User) ([]Summary, error) {
	return rendered(ctx, s, us, func(u *User) (Summary, error) { return s.summary(ctx, u, true, false) },
		func(sum *Summary, a activity) { sum.SessionActive, sum.LastActivity, sum.ClientAddress, _ = a.shown() })
}

// Overviews renders users as Overview does, reading the sessions once for
// all of them.
func (s *Service) Overviews(ctx context.Context, us []*User) ([]Overview, error) {
	return rendered(ctx, s, us, func(u *User) (Overview, error) { return s.overview(ctx, u) },
		func(o *Overview, a activity) { o.SessionActive, o.LastActivity, o.ClientAddress, _ = a.shown() })
}

// rendered renders each user and sets their activity, read once for all.
func rendered[T any](ctx context.Context, s *Service, us []*User, render func(*User) (T, error), set func(*T, activity)) ([]T, error) {
	acts, err := s.activities(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(us))
	for _, u := range us {
		v, err := render(u)
		if err != nil {
			return nil, err
		}
		set(&v, acts[u.ID])
		out = append(out, v)
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// IdentityByName implements auth.Directory.
func (s *Service) IdentityByName(ctx context.Context, username string) (*auth.Identity, error) {
	u, err := s.ByName(ctx, username)
	if err != nil {
		return nil, authError(err)
	}
	return s.identity(ctx, u)
}

// IdentityByID implements auth.Directory.
func (s *Service) IdentityByID(ctx context.Context, id string) (*auth.Identity, error) {
	u, err := s.ByID(ctx, id)
	if err != nil {
		return nil, authError(err)
	}
	return s.identity(ctx, u)
}

// authError states a missing user in authentication's terms.
func authError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return auth.NotFound(err)
	}
	return err
}

func (s *Service) identity(ctx context.Context, u *User) (*auth.Identity, error) {
	perms, err := s.EffectivePermissions(ctx, u)
	if err != nil {
		return nil, err
	}
	return &auth.Identity{
		UserID: u.ID, Username: u.Username, PasswordHash: u.PasswordHash, Enabled: u.Enabled(),
		Permissions: perms, SessionTimeout: u.SessionTimeout(), ServiceAccount: u.ServiceAccount,
	}, nil
}

// UsernameByID returns the username of a user id (for tokens and compat).
//
// It reads the username alone from the stored document when it can: a 2.4
// client's user paths ask on every request, and decoding the whole user
// cost more than the rest of such a request.
func (s *Service) UsernameByID(ctx context.Context, id string) (string, error) {
	// The root user's name comes from the configuration, which a restart
	// may change while a shared cache lives on: it is never cached.
	if s.names == nil || id == auth.RootUserID {
		return s.usernameByID(ctx, id)
	}
	return s.names.Username(ctx, id, func(ctx context.Context) (string, error) {
		return s.usernameByID(ctx, id)
	})
}

func (s *Service) usernameByID(ctx context.Context, id string) (string, error) {
	if _, err := primitive.ObjectIDFromHex(id); err == nil && id != auth.RootUserID {
		doc, err := s.st.Get(ctx, Collection, id)
		if err != nil {
			return "", fmt.Errorf("user %s: %w", id, err)
		}
		if name := gjson.GetBytes(doc, "username"); name.Type == gjson.String {
			return name.Str, nil
		}
	}
	u, err := s.ByID(ctx, id)
	if err != nil {
		return "", err
	}
	return u.Username, nil
}

// IDByUsername returns the id of a username (for compat).
//
// The unique index gives the id without decoding the user; ByName covers
// the root user and names an older release folded differently.
func (s *Service) IDByUsername(ctx context.Context, username string) (string, error) {
	if s.names == nil || FoldName(username) == FoldName(s.root.Username) {
		return s.idByUsername(ctx, username)
	}
	return s.names.UserID(ctx, username, func(ctx context.Context) (string, error) {
		return s.idByUsername(ctx, username)
	})
}

func (s *Service) idByUsername(ctx context.Context, username string) (string, error) {
	if folded := FoldName(username); folded != FoldName(s.root.Username) {
		if id, _, err := s.st.FindUnique(ctx, Collection, "username_lower", folded); err == nil {
			return id, nil
		}
	}
	u, err := s.ByName(ctx, username)
	if err != nil {
		return "", err
	}
	return u.ID, nil
}

// MembersOf implements roles.Members.
func (s *Service) MembersOf(ctx context.Context, roleID string) ([]roles.Member, error) {
	all, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []roles.Member
	for _, u := range all {
		if slices.Contains(u.RoleIDs, roleID) {
			sum, err := s.summary(ctx, u, auth.FromContext(ctx).Permits("users:permissionsedit:"+u.Username), false)
			if err != nil {
				return nil, err
			}
			out = append(out, sum)
		}
	}
	return out, nil
}

// RoleIDsOf implements roles.Members.
func (s *Service) RoleIDsOf(ctx context.Context, username string) ([]string, error) {
	u, err := s.ByName(ctx, username)
	if err != nil {
		return nil, err
	}
	return u.RoleIDs, nil
}

// AddRole implements roles.Members.
func (s *Service) AddRole(ctx context.Context, username, roleID string) error {
	return s.changeRoles(ctx, username, func(ids []string) []string {
		if slices.Contains(ids, roleID) {
			return ids
		}
		return append(ids, roleID)
	})
}

// RemoveRole implements roles.Members.
func (s *Service) RemoveRole(ctx context.Context, username, roleID string) error {
	return s.changeRoles(ctx, username, func(ids []string) []string {
		return slices.DeleteFunc(ids, func(id string) bool { return id == roleID })
	})
}

func (s *Service) changeRoles(ctx context.Context, username string, change func([]string) []string) error {
	u, err := s.ByName(ctx, username)
	if err != nil {
		return err
	}
	return s.Update(ctx, u.ID, func(u *User) error {
		u.RoleIDs = change(u.RoleIDs)
		return nil
	})
}

// RoleChanged implements roles.Members: members of a changed role lose their
// cached permissions; a deleted role is removed from every user first.
func (s *Service) RoleChanged(ctx context.Context, roleID string, deleted bool) error {
	all, err := s.All(ctx)
	if err != nil {
		return err
	}
	for _, u := range all {
		if !slices.Contains(u.RoleIDs, roleID) {
			continue
		}
		if !deleted || u.ReadOnly {
			s.invalidate.InvalidateUser(ctx, u.ID)
			continue
		}
		err := s.Update(ctx, u.ID, func(u *User) error {
			u.RoleIDs = slices.DeleteFunc(u.RoleIDs, func(id string) bool { return id == roleID })
			return nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

func decode(doc []byte) (*User, error) {
	var u User
	if err := json.Unmarshal(doc, &u); err != nil {
		return nil, fmt.Errorf("stored user: %w", err)
	}
	if u.Permissions == nil {
		u.Permissions = []string{}
	}
	return &u, nil
}
