package auth

import (
	"context"
	"crypto/hmac"
	"strings"
)

// usernameKind names the cache keys of username resolutions; they hold no
// credential, but share the credential cache so that the invalidation of a
// user (InvalidateUser: a rename, a deletion) drops them too, on every node
// sharing the cache.
const usernameKind = Trusted + 1

// UserID returns the id of the user named username, from the cache or, on a
// miss, from resolve, whose answer is cached under the user's tag. Old
// clients name users by username on every call to a user path; resolving
// the name costs a store lookup. Failures of resolve (an unknown user) are
// not cached: a user created later must be found at once.
func (a *CredentialCache) UserID(ctx context.Context, username string, resolve func(context.Context) (string, error)) (string, error) {
	key := a.keys.CacheKey(usernameKind, username)
	if id, ok := a.cachedID(ctx, key); ok {
		return id, nil
	}
	ep := a.Epoch(ctx)
	id, err := resolve(ctx)
	if err != nil {
		return "", err
	}
	a.fill.RLock()
	defer a.fill.RUnlock()
	if a.epoch.Load() != ep.local || !a.usable(ctx) {
		return id, nil
	}
	raw := a.keys.valueMAC(key, id) + "\x1f" + id
	if a.store(ctx, key, ep, []byte(raw), []string{"user:" + id}) {
		a.memo.Add(key, memoEntry{raw: raw, id: id})
	}
	return id, nil
}

// cachedID returns the user id cached under key; the MAC keeps whoever can
// write to Redis from pointing a username at another user.
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
