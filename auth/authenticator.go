package auth

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/router/api"
)

// Identity is what authentication needs to know of a user.
type Identity struct {
	UserID       string
	Username     string
	PasswordHash string // bcrypt, or a root_password_sha2 hash; "" when the user has no local password
	Enabled      bool
	// Permissions are the effective permissions: own, from roles, self-edit.
	Permissions    []string
	SessionTimeout time.Duration
	// ServiceAccount users authenticate with tokens only; they cannot
	// start sessions.
	ServiceAccount bool
}

// Directory finds users. Lookups of unknown users return an error matching
// ErrNotFound.
type Directory interface {
	IdentityByName(ctx context.Context, username string) (*Identity, error)
	IdentityByID(ctx context.Context, id string) (*Identity, error)
}

// TokenRecord is a stored access token, as authentication sees it.
type TokenRecord struct {
	ID, UserID string
	// Release is the API release pinned on the token, or "".
	Release string
}

// Tokens finds access tokens by value and records their use.
type Tokens interface {
	// FindToken returns the token with that value, or ErrNotFound.
	FindToken(ctx context.Context, value string) (TokenRecord, error)
	// Touch records a use; implementations coalesce the writes.
	Touch(id string, at time.Time)
}

// SessionRecord is a stored session, as authentication sees it.
type SessionRecord struct {
	// ID is the session id. It is known only to whoever holds it (the
	// client, a new session's creator): the store has Key alone.
	ID string
	// Key is Keys.SessionKey(ID), under which the session is stored.
	Key        string
	UserID     string
	LastAccess time.Time
	Timeout    time.Duration
}

// Expired reports whether the session has timed out at now.
func (s SessionRecord) Expired(now time.Time) bool { return now.After(s.LastAccess.Add(s.Timeout)) }

// Sessions finds sessions and records their use. Sessions are named by
// their key (Keys.SessionKey of the id), never by the id itself.
type Sessions interface {
	// FindSession returns the session, or ErrNotFound.
	FindSession(ctx context.Context, key string) (SessionRecord, error)
	// Touch extends a session; implementations coalesce the writes.
	Touch(key string, at time.Time)
	// LastTouch returns a use recorded by Touch that may not be stored yet.
	LastTouch(key string) (time.Time, bool)
	// Expire removes a timed-out session.
	Expire(ctx context.Context, key string) error
}

// Cache holds verified credentials under keyed hashes. Implementations:
// auth/cache (in-process and Redis).
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error
	Delete(ctx context.Context, keys ...string) error
	InvalidateTag(ctx context.Context, tag string) error
}

// External checks passwords of users a directory knows: the active
// authentication backend (LDAP or Active Directory). On success it returns
// the identity of the user, created or refreshed from the directory entry.
type External interface {
	Login(ctx context.Context, username, password string) (*Identity, error)
}

// ErrNotFound is what Directory, Tokens and Sessions return (wrapped) for
// a user, token or session that does not exist: authentication answers
// 401 for it, where any other error is the store failing (500).
var ErrNotFound = errors.New("not found")

// NotFound marks err as a lookup that found nothing, keeping err's own
// meaning for callers that classify it otherwise.
func NotFound(err error) error { return fmt.Errorf("%w: %w", ErrNotFound, err) }

// The outcomes of an External login other than success.
var (
	// ErrNoBackend: no authentication backend is active.
	ErrNoBackend = errors.New("no active authentication backend")
	// ErrRejected: the directory does not know the user or the password
	// is wrong.
	ErrRejected = errors.New("the directory refused the credentials")
	// ErrBackendUnavailable: the directory cannot be reached or used.
	ErrBackendUnavailable = errors.New("authentication service unavailable")
)

// Counter counts events (cache hits and misses).
type Counter interface{ Inc(int64) }

// Options configure an Authenticator.
type Options struct {
	Cache     *CredentialCache
	Directory Directory
	Tokens    Tokens
	Sessions  Sessions
	// External, when set, authenticates users who have no local password
	// against the active authentication backend.
	External External
	Now      func() time.Time
	// RootUsername and RootPasswordHash are the root user's, from the
	// configuration: the root's cached password checks are keyed with the
	// hash too, so that none made before root_password_sha2 changed
	// (before a restart, or on a node still on the old configuration)
	// lets the old password in.
	RootUsername, RootPasswordHash string
}

// Authenticator verifies credentials, trusting the credential cache for
// those it verified before.
type Authenticator struct {
	o         Options
	keys      *Keys
	dummyOnce sync.Once
	dummy     string
}

// New returns an Authenticator.
func New(o Options) *Authenticator {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Authenticator{o: o, keys: o.Cache.keys}
}

// dummyHash is compared against when a username is unknown, so that the
// answer takes as long as for a known user and does not reveal which
// usernames exist.
func (a *Authenticator) dummyHash() string {
	a.dummyOnce.Do(func() {
		a.dummy, _ = HashPassword("loggate-dummy-password")
	})
	return a.dummy
}

var errInvalidCredentials = &api.Error{
	Code:    api.Unauthorized,
	Message: "Invalid credentials",
	Header:  map[string][]string{"Www-Authenticate": {`Basic realm="Graylog Server"`}},
}

// ErrInvalidCredentials reports whether err is the 401 of wrong credentials.
func ErrInvalidCredentials(err error) bool { return errors.Is(err, errInvalidCredentials) }

// Authenticate returns the principal of an Authorization header value: nil
// and no error when there are no credentials, a 401 when they are wrong, a
// 400 when the header is malformed and a 503 when the store is down. A
// session is extended unless extend is false.
func (a *Authenticator) Authenticate(ctx context.Context, header string, extend bool) (*Principal, error) {
	c, err := ParseAuthorization(header)
	if err != nil || c.Kind == None {
		return nil, err
	}
	switch c.Kind {
	case Token:
		return a.token(ctx, c.User)
	case Session:
		return a.session(ctx, c.User, extend)
	}
	return a.VerifyPassword(ctx, c.User, c.Secret)
}

// VerifyPassword checks a username and password, from the cache when it has
// verified the same pair before.
func (a *Authenticator) VerifyPassword(ctx context.Context, username, password string) (*Principal, error) {
	key := a.keys.CacheKey(Password, username, password)
	if a.o.RootUsername != "" && strings.EqualFold(username, a.o.RootUsername) {
		key = a.keys.CacheKey(Password, username, password, a.o.RootPasswordHash)
	}
	if e := a.o.Cache.lookup(ctx, key, ""); e != nil {
		return e.p, nil
	}
	// Taken after the miss and before the store is read: an invalidation
	// after this point keeps what is read from being cached.
	epoch := a.o.Cache.Epoch(ctx)
	id, err := a.o.Directory.IdentityByName(ctx, username)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("look up user: %w", err)
	}
	if err == nil && id.PasswordHash != "" {
		// A local user, the root user included, is checked here only: a
		// directory never takes over a local account.
		ok, err := CheckPasswordContext(ctx, id.PasswordHash, password)
		if err != nil {
			return nil, err
		}
		if !ok && strings.HasPrefix(id.PasswordHash, sha256Prefix) {
			// The root's SHA-256 takes microseconds, every other check a
			// bcrypt comparison: a refusal as slow as theirs does not tell
			// which username is the root's. (Only the right password is
			// answered faster, and whoever sends it knows already.)
			if _, err := CheckPasswordContext(ctx, a.dummyHash(), password); err != nil {
				return nil, err
			}
		}
		if !ok || !id.Enabled {
			return nil, errInvalidCredentials
		}
		return a.remember(ctx, key, epoch, id), nil
	}
	if a.o.External != nil {
		ext, err := a.o.External.Login(ctx, username, password)
		switch {
		case err == nil:
			if !ext.Enabled {
				return nil, errInvalidCredentials
			}
			return a.remember(ctx, key, epoch, ext, directoryTag), nil
		case errors.Is(err, ErrRejected):
			return nil, errInvalidCredentials
		case errors.Is(err, ErrBackendUnavailable):
			return nil, api.Wrap(api.Unavailable, "Authentication service unavailable", err)
		case !errors.Is(err, ErrNoBackend):
			return nil, err
		}
	}
	// Unknown user, or an external one with no backend to check them: as
	// slow as a known user, so the answer does not tell which.
	if _, err := CheckPasswordContext(ctx, a.dummyHash(), password); err != nil {
		return nil, err
	}
	return nil, errInvalidCredentials
}

// remember caches a verified password check and returns its principal.
func (a *Authenticator) remember(ctx context.Context, key string, epoch Epoch, id *Identity, tags ...string) *Principal {
	e := &entry{p: newPrincipal(id, "", "")}
	a.o.Cache.remember(ctx, key, epoch, e, append(tags, "user:"+id.UserID)...)
	return e.p
}

// directoryTag marks the cached password checks a directory made, which a
// change of the active directory backend must forget.
const directoryTag = "directory"

// Login checks a username and password for a new session: as
// VerifyPassword, but a service account is refused (400, as in Graylog).
func (a *Authenticator) Login(ctx context.Context, username, password string) (*Principal, error) {
	p, err := a.VerifyPassword(ctx, username, password)
	if err != nil {
		return nil, err
	}
	if p.ServiceAccount {
		return nil, api.Errorf(api.Invalid, "Cannot login with service account %s", p.Username)
	}
	return p, nil
}

func (a *Authenticator) token(ctx context.Context, value string) (*Principal, error) {
	key := a.keys.CacheKey(Token, value)
	e := a.o.Cache.lookup(ctx, key, "")
	if e == nil {
		epoch := a.o.Cache.Epoch(ctx)
		rec, err := a.o.Tokens.FindToken(ctx, value)
		if errors.Is(err, ErrNotFound) {
			return nil, errInvalidCredentials
		}
		if err != nil {
			return nil, fmt.Errorf("look up token: %w", err)
		}
		id, err := a.identityByID(ctx, rec.UserID)
		if err != nil {
			return nil, err
		}
		e = &entry{p: newPrincipal(id, "", rec.ID)}
		e.p.PinnedRelease = rec.Release
		a.o.Cache.remember(ctx, key, epoch, e, "user:"+id.UserID, "token:"+rec.ID)
	}
	a.o.Tokens.Touch(e.p.TokenID, a.o.Now())
	return e.p, nil
}

func (a *Authenticator) session(ctx context.Context, sid string, extend bool) (*Principal, error) {
	now := a.o.Now()
	key, skey := a.keys.sessionCacheKey(sid)
	e := a.o.Cache.lookup(ctx, key, sid)
	cached := e != nil
	if e != nil {
		rec := SessionRecord{Key: skey, LastAccess: e.lastAccess, Timeout: e.p.SessionTimeout}
		if t, ok := a.o.Sessions.LastTouch(skey); ok && t.After(rec.LastAccess) {
			rec.LastAccess = t
		}
		if rec.Expired(now) {
			// Another node may have extended it: the store decides.
			e = nil
		}
	}
	if e == nil {
		epoch := a.o.Cache.Epoch(ctx)
		rec, err := a.o.Sessions.FindSession(ctx, skey)
		if errors.Is(err, ErrNotFound) {
			// Only a session this cache knew needs forgetting: a made-up
			// id must not cost every node an invalidation.
			if cached {
				a.o.Cache.forget(ctx, key)
			}
			return nil, errInvalidCredentials
		}
		if err != nil {
			return nil, fmt.Errorf("look up session: %w", err)
		}
		if t, ok := a.o.Sessions.LastTouch(skey); ok && t.After(rec.LastAccess) {
			rec.LastAccess = t
		}
		if rec.Expired(now) {
			if err := a.o.Sessions.Expire(ctx, skey); err != nil && !errors.Is(err, ErrNotFound) {
				return nil, fmt.Errorf("expire session: %w", err)
			}
			a.o.Cache.InvalidateSession(ctx, skey)
			return nil, errInvalidCredentials
		}
		id, err := a.identityByID(ctx, rec.UserID)
		if err != nil {
			return nil, err
		}
		p := newPrincipal(id, sid, "")
		p.SessionTimeout = rec.Timeout
		e = &entry{p: p, lastAccess: rec.LastAccess}
		a.o.Cache.remember(ctx, key, epoch, e, "user:"+id.UserID)
	}
	if extend {
		a.o.Sessions.Touch(skey, now)
	}
	return e.p, nil
}

func (a *Authenticator) identityByID(ctx context.Context, userID string) (*Identity, error) {
	return usable(a.o.Directory.IdentityByID(ctx, userID))
}

// usable turns the lookup of a user a credential names into the user's
// identity, or a 401 when the user is unknown or may not log in.
func usable(id *Identity, err error) (*Identity, error) {
	if errors.Is(err, ErrNotFound) {
		return nil, errInvalidCredentials
	}
	if err != nil {
		return nil, fmt.Errorf("look up user: %w", err)
	}
	if !id.Enabled {
		return nil, errInvalidCredentials
	}
	return id, nil
}

func newPrincipal(id *Identity, sessionID, tokenID string) *Principal {
	set, _ := permission.NewSet(validOnly(id.Permissions))
	return &Principal{
		UserID:         id.UserID,
		Username:       id.Username,
		Permissions:    set,
		SessionID:      sessionID,
		TokenID:        tokenID,
		SessionTimeout: id.SessionTimeout,
		ServiceAccount: id.ServiceAccount,
	}
}

// validOnly drops permissions that do not parse, so that one bad stored
// string cannot lock a user out entirely.
func validOnly(perms []string) []string {
	out := perms[:0:0]
	for _, p := range perms {
		if permission.Valid(p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// The cache value is a flat record: a MAC, then fields separated by \x1f,
// permissions by \x1e. It is read far more often than written and decoded
// once per node thanks to the memo. The session id is not in it (the key is
// a keyed hash of it), and the MAC over key and value keeps an attacker who
// can write to Redis from minting principals.
const entryVersion = "5"

func (a *CredentialCache) encodeEntry(key string, e *entry) []byte {
	p := e.p
	var la string
	if !e.lastAccess.IsZero() {
		la = strconv.FormatInt(e.lastAccess.UnixMilli(), 10)
	}
	fields := strings.Join([]string{
		entryVersion, p.UserID, p.Username, p.TokenID, la,
		strconv.FormatInt(p.SessionTimeout.Milliseconds(), 10),
		strings.Join(p.Permissions.Strings(), "\x1e"),
		strconv.FormatBool(p.ServiceAccount),
		p.PinnedRelease,
	}, "\x1f")
	return []byte(a.keys.valueMAC(key, fields) + "\x1f" + fields)
}

func (a *CredentialCache) decodeEntry(key string, raw []byte, sessionID string) (*entry, error) {
	mac, fields, ok := strings.Cut(string(raw), "\x1f")
	if !ok || !hmac.Equal([]byte(mac), []byte(a.keys.valueMAC(key, fields))) {
		return nil, errors.New("cache entry: bad MAC")
	}
	f := strings.Split(fields, "\x1f")
	if len(f) != 9 || f[0] != entryVersion {
		return nil, errors.New("cache entry: unknown format")
	}
	timeout, err := strconv.ParseInt(f[5], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("cache entry: %w", err)
	}
	var perms []string
	if f[6] != "" {
		perms = strings.Split(f[6], "\x1e")
	}
	set, err := permission.NewSet(perms)
	if err != nil {
		return nil, fmt.Errorf("cache entry: %w", err)
	}
	e := &entry{p: &Principal{
		UserID: f[1], Username: f[2], SessionID: sessionID, TokenID: f[3],
		SessionTimeout: time.Duration(timeout) * time.Millisecond, Permissions: set,
		ServiceAccount: f[7] == "true", PinnedRelease: f[8],
	}}
	if f[4] != "" {
		ms, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cache entry: %w", err)
		}
		e.lastAccess = time.UnixMilli(ms)
	}
	return e, nil
}
