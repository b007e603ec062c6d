package auth

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// CacheOptions tune a CredentialCache.
type CacheOptions struct {
	// TTL bounds how long a verified credential is trusted without a store
	// lookup; invalidation removes entries at once anyway. Default 10 minutes.
	TTL                    time.Duration
	Hits, Misses, Failures Counter
	Logger                 *slog.Logger
	// MemoSize is how many decoded principals are kept in process; default
	// 10000.
	MemoSize int
}

// CredentialCache keeps verified credentials in a Cache (in-process or
// Redis) under keyed hashes, and drops them when what they were verified
// against changes: a password, a status, a role, a deleted token, an ended
// session.
type CredentialCache struct {
	cache                  Cache
	keys                   *Keys
	ttl                    time.Duration
	hits, misses, failures Counter
	log                    *slog.Logger
	// memo keeps decoded principals, keyed by cache key and checked against
	// the cached bytes, so a hit costs no decoding.
	memo *lru.Cache[string, memoEntry]
	// nameKeys keeps the cache keys of usernames and user ids (no
	// secrets): an old client's request resolves one or two, and the
	// keyed hash of each costs more than the rest of the lookup.
	nameKeys *lru.Cache[nameKey, string]

	// pending holds invalidations that failed (the cache was down). Until
	// they are flushed the cache is bypassed, so that an entry that should
	// be gone is never trusted.
	// epoch counts invalidations. A fill that began (missed) before an
	// invalidation may carry what the invalidation meant to remove, so it
	// is not stored; fill makes the check and the write atomic with respect
	// to invalidations.
	epoch atomic.Uint64
	fill  sync.RWMutex

	mu        sync.Mutex
	pending   []pendingOp
	npending  atomic.Int32
	downUntil atomic.Int64 // unix nanoseconds; 0 when the cache is up
	// distrustUntil is set when more invalidations failed than could be
	// kept: the cache is bypassed until then (unix nanoseconds; 0: trusted).
	distrustUntil atomic.Int64
}

type memoEntry struct {
	raw string
	e   *entry
	id  string // a username's user id (UserID)
}

type nopCounter struct{}

func (nopCounter) Inc(int64) {}

// NewCredentialCache returns a credential cache over c.
func NewCredentialCache(c Cache, keys *Keys, o CacheOptions) *CredentialCache {
	if o.TTL <= 0 {
		o.TTL = 10 * time.Minute
	}
	for _, c := range []*Counter{&o.Hits, &o.Misses, &o.Failures} {
		if *c == nil {
			*c = nopCounter{}
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MemoSize <= 0 {
		o.MemoSize = 10000
	}
	memo, _ := lru.New[string, memoEntry](o.MemoSize)
	nameKeys, _ := lru.New[nameKey, string](o.MemoSize)
	return &CredentialCache{
		cache: c, keys: keys, ttl: o.TTL, hits: o.Hits, misses: o.Misses, failures: o.Failures,
		log: o.Logger, memo: memo, nameKeys: nameKeys,
	}
}

// InvalidateUser forgets every cached credential of a user: after a password
// change, a status change, a deletion or a change of permissions or roles.
func (a *CredentialCache) InvalidateUser(ctx context.Context, userID string) {
	a.drop(ctx, pendingOp{tag: "user:" + userID})
}

// InvalidateDirectoryLogins forgets every password check a directory made:
// after the active backend changed, or was switched off, none of them may
// stand in for asking it again.
func (a *CredentialCache) InvalidateDirectoryLogins(ctx context.Context) {
	a.drop(ctx, pendingOp{tag: directoryTag})
}

// InvalidateToken forgets a deleted token.
func (a *CredentialCache) InvalidateToken(ctx context.Context, tokenID string) {
	a.drop(ctx, pendingOp{tag: "token:" + tokenID})
}

// InvalidateSession forgets an ended session, named by its key
// (Keys.SessionKey). Its cache key is derived from that, so no tag (which
// would put it in a Redis key) is needed, and whoever holds only the store's
// record (a purge, a user's deletion) can invalidate it.
func (a *CredentialCache) InvalidateSession(ctx context.Context, sessionKey string) {
	a.drop(ctx, pendingOp{key: sessionCacheKey(sessionKey)})
}

// sessionCacheKey is the cache key of a session, named by its key: that is
// already a keyed hash of the id, which the store holds as well, so a
// second hash (CacheKey's) would hide nothing more and cost every
// session-authenticated request another HMAC.
func sessionCacheKey(sessionKey string) string { return sessionCachePrefix + sessionKey }

const sessionCachePrefix = "s:"

func (a *CredentialCache) forget(ctx context.Context, key string) {
	a.drop(ctx, pendingOp{key: key})
}

// pendingOp is an invalidation that has not reached the cache yet: a key to
// delete or a tag to invalidate.
type pendingOp struct{ key, tag string }

func (a *CredentialCache) apply(ctx context.Context, op pendingOp) error {
	if op.key != "" {
		return a.cache.Delete(ctx, op.key)
	}
	return a.cache.InvalidateTag(ctx, op.tag)
}

// drop removes entries now, or, when the cache is unreachable, queues the
// removal; until the queue is flushed the cache is not trusted, so an entry
// that should be gone is never used.
func (a *CredentialCache) drop(ctx context.Context, op pendingOp) {
	// The change that asks for this is done; a client that hung up must
	// not keep its invalidation from reaching the cache.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), invalidationTimeout)
	defer cancel()
	a.fill.Lock()
	defer a.fill.Unlock()
	a.epoch.Add(1)
	if op.key != "" {
		a.memo.Remove(op.key)
	}
	if a.usable(ctx) {
		if err := a.apply(ctx, op); err == nil {
			return
		} else {
			a.failed(err)
		}
	}
	a.mu.Lock()
	if len(a.pending) < maxPending {
		a.pending = append(a.pending, op)
	} else {
		// Too many to replay: distrust the cache until every entry stored
		// before now has expired, instead of remembering them all.
		a.pending = a.pending[:0]
		a.distrustUntil.Store(time.Now().Add(a.ttl).UnixNano())
	}
	a.npending.Store(int32(len(a.pending)))
	a.mu.Unlock()
}

// maxPending bounds the invalidations kept while the cache is unreachable.
const maxPending = 10_000

// invalidationTimeout bounds one invalidation; past it, the invalidation is
// queued and the cache bypassed until it goes through.
const invalidationTimeout = 2 * time.Second

// breakerPause is how long the cache is left alone after a failure, so that
// requests fall back to the store at once instead of each waiting for a
// connection timeout.
const breakerPause = time.Second

func (a *CredentialCache) failed(err error) {
	// A request the client abandoned says nothing about the cache.
	if errors.Is(err, context.Canceled) {
		return
	}
	a.failures.Inc(1)
	if a.downUntil.Swap(time.Now().Add(breakerPause).UnixNano()) == 0 {
		a.log.Warn("credential cache unavailable; authenticating from the store until it is back", "err", err)
	}
}

// usable reports whether the cache may be used: it is not paused after a
// failure and no invalidation is outstanding (outstanding ones are flushed
// first). The common case costs two atomic loads.
func (a *CredentialCache) usable(ctx context.Context) bool {
	if a.npending.Load() == 0 && a.downUntil.Load() == 0 && a.distrustUntil.Load() == 0 {
		return true
	}
	if until := a.distrustUntil.Load(); until != 0 {
		if time.Now().UnixNano() < until {
			return false
		}
		a.distrustUntil.Store(0)
	}
	if until := a.downUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.pending) > 0 {
		if err := a.apply(ctx, a.pending[0]); err != nil {
			a.failed(err)
			return false
		}
		a.pending = a.pending[1:]
		a.npending.Store(int32(len(a.pending)))
	}
	if a.downUntil.Swap(0) != 0 {
		a.log.Info("credential cache available again")
	}
	return true
}

// entry is a verified credential.
type entry struct {
	p          *Principal
	lastAccess time.Time // sessions only
}

// generational is a Cache whose invalidations, from any node, advance a
// shared generation (Redis); a fill is stored only if no invalidation came
// between reading the store and storing.
type generational interface {
	Generation(ctx context.Context) (uint64, error)
	SetAtGeneration(ctx context.Context, key string, value []byte, ttl time.Duration, gen uint64, tags ...string) (bool, error)
}

// Epoch is the invalidation state a fill started from: this process's
// invalidations, and those of every node sharing the cache.
type Epoch struct {
	local    uint64
	remote   uint64
	remoteOK bool
}

// Epoch returns the invalidation epoch. A caller about to verify a
// credential against the store, after a miss, takes it first and passes it
// to remember.
func (a *CredentialCache) Epoch(ctx context.Context) Epoch {
	ep := Epoch{local: a.epoch.Load()}
	if g, ok := a.cache.(generational); ok && a.usable(ctx) {
		gen, err := g.Generation(ctx)
		if err != nil {
			a.failed(err)
			return ep
		}
		ep.remote, ep.remoteOK = gen, true
	}
	return ep
}

// lookup returns the cached entry under key. sessionID, for session
// entries, is put back into the principal: the cached value does not hold
// it, so that a reader of Redis cannot take over sessions.
func (a *CredentialCache) lookup(ctx context.Context, key, sessionID string) *entry {
	if !a.usable(ctx) {
		a.misses.Inc(1)
		return nil
	}
	raw, ok, err := a.cache.Get(ctx, key)
	if err != nil {
		a.failed(err)
	}
	if !ok {
		a.misses.Inc(1)
		return nil
	}
	if m, ok := a.memo.Get(key); ok && m.raw == string(raw) {
		a.hits.Inc(1)
		return m.e
	}
	e, err := a.decodeEntry(key, raw, sessionID)
	if err != nil {
		a.misses.Inc(1)
		return nil
	}
	a.memo.Add(key, memoEntry{raw: string(raw), e: e})
	a.hits.Inc(1)
	return e
}

func (a *CredentialCache) remember(ctx context.Context, key string, ep Epoch, e *entry, tags ...string) {
	a.fill.RLock()
	defer a.fill.RUnlock()
	if a.epoch.Load() != ep.local || !a.usable(ctx) {
		return
	}
	raw := a.encodeEntry(key, e)
	if a.store(ctx, key, ep, raw, tags) {
		a.memo.Add(key, memoEntry{raw: string(raw), e: e})
	}
}

// store writes a fill unless the shared generation moved since ep; the
// caller holds a.fill for reading and has checked the local epoch.
func (a *CredentialCache) store(ctx context.Context, key string, ep Epoch, raw []byte, tags []string) bool {
	if g, ok := a.cache.(generational); ok {
		if !ep.remoteOK {
			return false // the shared generation is unknown: do not risk it
		}
		stored, err := g.SetAtGeneration(ctx, key, raw, a.ttl, ep.remote, tags...)
		if err != nil {
			a.failed(err)
		}
		return stored
	}
	if err := a.cache.Set(ctx, key, raw, a.ttl, tags...); err != nil {
		a.failed(err)
		return false
	}
	return true
}
