// Package cache holds the stores behind the credential cache of package auth:
// Memory, a bounded in-process LRU, and Redis, shared by every loggate node of
// a cluster. Both map a key to bytes that expire after a TTL, and record each
// key under tags so that everything cached about one user, token or session
// can be dropped at once.
package cache

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Cache is what package auth needs from a cache; both Memory and Redis
// implement it. The contract is checked by cachetest.Run.
type Cache interface {
	// Get returns the value and true, or nil and false when absent or expired.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl and records key under each tag, so that InvalidateTag(tag) deletes it.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error
	// Delete removes keys; absent keys are not an error.
	Delete(ctx context.Context, keys ...string) error
	// InvalidateTag deletes every key recorded under tag, and the tag.
	InvalidateTag(ctx context.Context, tag string) error
}

// ErrUnavailable is wrapped by every error that comes from the cache's
// backing service (Redis down, timed out, cancelled). A caller that sees it
// should fall back to the store and must not trust the cache until an
// invalidation it could not perform has gone through.
var ErrUnavailable = errors.New("cache unavailable")

// checkTTL rejects a TTL that would store nothing (Memory) or that Redis
// refuses (SET PX 0). It is a programming error, not an outage, so it does
// not wrap ErrUnavailable.
func checkTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("cache: ttl %v is not positive", ttl)
	}
	return nil
}
