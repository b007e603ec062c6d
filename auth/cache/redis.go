package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Cache in Redis, shared by every node that uses the same server
// and prefix. An entry lives at prefix+key, a tag at prefix+"tag:"+tag as a
// set of full entry keys.
//
// A tag set is never shorter-lived than its longest-lived member, and entries
// are not removed from it when they expire or are deleted. InvalidateTag may
// therefore also delete a key that was once recorded under the tag and has
// been set again since; that costs a cache miss, never a stale hit.
//
// With Redis Cluster every key must hash to one slot, because Set and
// InvalidateTag touch an entry and its tag sets in one script: put a hash tag
// in the prefix, e.g. "loggate:{auth}:".
//
// Every error from Redis wraps ErrUnavailable.
type Redis struct {
	client redis.UniversalClient
	prefix string
}

var _ Cache = (*Redis)(nil)

// setScript stores an entry and records it under its tags in one round trip.
// A tag set's TTL is raised to the entry's, never lowered, so the set lives
// as long as its longest-lived member. With a generation in ARGV[3], nothing
// is stored (0 is returned) unless the generation is still that one: an
// invalidation since, on any node, means the value may be stale.
//
// KEYS[1] is the generation, KEYS[2] the entry, KEYS[3..] its tag sets;
// ARGV[1] the value, ARGV[2] the TTL in milliseconds, ARGV[3] the expected
// generation or "".
var setScript = redis.NewScript(`
if ARGV[3] ~= '' and (redis.call('GET', KEYS[1]) or '0') ~= ARGV[3] then
	return 0
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local ttl = tonumber(ARGV[2])
for i = 3, #KEYS do
	redis.call('SADD', KEYS[i], KEYS[2])
	-- PTTL is -1 for a set SADD has just created.
	if redis.call('PTTL', KEYS[i]) < ttl then
		redis.call('PEXPIRE', KEYS[i], ARGV[2])
	end
end
return 1
`)

// invalidateScript bumps the generation, then deletes the members of a tag
// set and the set itself, atomically, so no Set can slip a key in between.
// DEL is called in batches because unpack is limited by the Lua stack.
//
// KEYS[1] is the generation, KEYS[2] the tag set.
var invalidateScript = redis.NewScript(`
redis.call('INCR', KEYS[1])
local members = redis.call('SMEMBERS', KEYS[2])
for i = 1, #members, 1000 do
	redis.call('DEL', unpack(members, i, math.min(i + 999, #members)))
end
redis.call('DEL', KEYS[2])
return #members
`)

// deleteScript bumps the generation and deletes keys.
//
// KEYS[1] is the generation, KEYS[2..] the keys.
var deleteScript = redis.NewScript(`
redis.call('INCR', KEYS[1])
return redis.call('DEL', unpack(KEYS, 2))
`)

// NewRedis returns a Cache that keeps its data in client under prefix.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Get returns the value stored under key; a missing or expired key is a miss,
// not an error.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := r.client.Get(ctx, r.prefix+key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, unavailable("get", err)
	}
	return v, true, nil
}

// Set stores value under key for ttl, which must be positive and is rounded
// up to whole milliseconds, and records key under tags.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	_, err := r.set(ctx, key, value, ttl, "", tags)
	return err
}

// Generation returns the invalidation generation: every Delete and
// InvalidateTag, from any node, increments it.
func (r *Redis) Generation(ctx context.Context) (uint64, error) {
	g, err := r.client.Get(ctx, r.genKey()).Uint64()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, nil
	case err != nil:
		return 0, unavailable("generation", err)
	}
	return g, nil
}

// SetAtGeneration is Set, done only if the generation is still gen; it
// reports whether the value was stored. A node that read the store after
// taking gen thus never caches what another node invalidated meanwhile.
func (r *Redis) SetAtGeneration(ctx context.Context, key string, value []byte, ttl time.Duration, gen uint64, tags ...string) (bool, error) {
	return r.set(ctx, key, value, ttl, strconv.FormatUint(gen, 10), tags)
}

func (r *Redis) set(ctx context.Context, key string, value []byte, ttl time.Duration, gen string, tags []string) (bool, error) {
	if err := checkTTL(ttl); err != nil {
		return false, err
	}
	ms := (ttl + time.Millisecond - 1) / time.Millisecond
	keys := make([]string, 2, 2+len(tags))
	keys[0], keys[1] = r.genKey(), r.prefix+key
	for _, tag := range tags {
		keys = append(keys, r.tagKey(tag))
	}
	stored, err := setScript.Run(ctx, r.client, keys, value, int64(ms), gen).Int()
	if err != nil {
		return false, unavailable("set", err)
	}
	return stored == 1, nil
}

// Delete removes keys; absent keys are ignored. Their tag sets are left alone
// (see Redis).
func (r *Redis) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	full := make([]string, 1, 1+len(keys))
	full[0] = r.genKey()
	for _, key := range keys {
		full = append(full, r.prefix+key)
	}
	if err := deleteScript.Run(ctx, r.client, full).Err(); err != nil {
		return unavailable("delete", err)
	}
	return nil
}

// InvalidateTag deletes every key recorded under tag, and the tag, atomically.
func (r *Redis) InvalidateTag(ctx context.Context, tag string) error {
	if err := invalidateScript.Run(ctx, r.client, []string{r.genKey(), r.tagKey(tag)}).Err(); err != nil {
		return unavailable("invalidate tag", err)
	}
	return nil
}

func (r *Redis) tagKey(tag string) string { return r.prefix + "tag:" + tag }

func (r *Redis) genKey() string { return r.prefix + "generation" }

func unavailable(op string, err error) error {
	return fmt.Errorf("redis cache: %s: %w: %w", op, ErrUnavailable, err)
}
