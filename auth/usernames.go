package auth

import (
	"context"
	"crypto/hmac"
	"strings"
)

// usernameKind and userIDKind name the cache keys of username resolutions,
// either way; they hold no credential, but share the credential cache so
// that the invalidation of a user (InvalidateUser: a rename, a deletion)
// drops them too, on every node sharing the cache.
const (
	usernameKind = Trusted + 1
	userIDKind   = Trusted + 2
)

// UserID returns the id of the user named username, from the cache or, on a
// miss, from resolve, whose answer is cached under the user's tag. Old
// clients name users by username on every call to a user path; resolving
// the name costs a store lookup. Failures of resolve (an unknown user) are
// not cached: a user created later must be found at once.
func (a *CredentialCache) UserID(ctx context.Context, username string, resolve func(context.Context) (string, error)) (string, error) {
	return a.resolved(ctx, a.nameKey(usernameKind, username), resolve, func(id string) string { return id })
}

// Username returns the username of the user with id, cached as UserID's
// answers: the answers old clients get name their users by username,
// which each would otherwise read from the store.
func (a *CredentialCache) Username(ctx context.Context, id string, resolve func(context.Context) (string, error)) (string, error) {
	return a.resolved(ctx, a.nameKey(userIDKind, id), resolve, func(string) string { return id })
}

// nameKey is a username's or a user id's cache key.
type nameKey struct {
	kind Kind
	name string
}

// maxRememberedName bounds the names whose keys nameKeys keeps: it counts
// entries, and a client may send a path segment of up to a megabyte (the
// server's header limit) as a username. Longer names, which no one is
// called, are hashed each time.
const maxRememberedName = 256

// nameKey returns the cache key of a username or a user id, remembered.
func (a *CredentialCache) nameKey(kind Kind, name string) string {
	if len(name) > maxRememberedName {
		return a.keys.CacheKey(kind, name)
	}
	k := nameKey{kind, name}
	if key, ok := a.nameKeys.Get(k); ok {
		return key
	}
	key := a.keys.CacheKey(kind, name)
	// A copy: name is often cut from the request's path, which a
	// remembered substring would keep whole.
	k.name = strings.Clone(name)
	a.nameKeys.Add(k, key)
	return key
}

// resolved returns the value cached under key, or resolve's, cached under
// the tag of the user idOf names given the value.
func (a *CredentialCache) resolved(ctx context.Context, key string, resolve func(context.Context) (string, error), idOf func(value string) string) (string, error) {
	if v, ok := a.cachedID(ctx, key); ok {
		return v, nil
	}
	ep := a.Epoch(ctx)
	v, err := resolve(ctx)
	if err != nil {
		return "", err
	}
	a.fill.RLock()
	defer a.fill.RUnlock()
	if a.epoch.Load() != ep.local || !a.usable(ctx) || v == "" {
		return v, nil
	}
	raw := a.keys.valueMAC(key, v) + "\x1f" + v
	if a.store(ctx, key, ep, []byte(raw), []string{"user:" + idOf(v)}) {
		a.memo.Add(key, memoEntry{raw: raw, id: v})
	}
	return v, nil
}

// cachedID returns the user id (or username) cached under key; the MAC
// keeps whoever can write to Redis from pointing a username at another
// user.
func (a *CredentialCache) cachedID(ctx context.Context, key string) (string, bool) {
	if !a.usable(ctx) {
		return "", false
	}
	raw, ok, err := a.cache.Get(ctx, key)
	if err != nil {
		a.failed(err)
	}
	if !ok {
		return "", false
	}
	if m, ok := a.memo.Get(key); ok && m.raw == string(raw) && m.id != "" {
		return m.id, true
	}
	mac, id, ok := strings.Cut(string(raw), "\x1f")
	if !ok || id == "" || !hmac.Equal([]byte(mac), []byte(a.keys.valueMAC(key, id))) {
		return "", false
	}
	a.memo.Add(key, memoEntry{raw: string(raw), id: id})
	return id, true
}
