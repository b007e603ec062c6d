package cache

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Memory is an in-process Cache for a single node: at most maxEntries
// entries, least recently used evicted first, each entry expiring on its own
// TTL. It is safe for concurrent use.
//
// Get returns the stored slice itself, without copying, so that a hit does
// not allocate: callers must not modify it. Set copies the value it is given.
type Memory struct {
	now     func() time.Time
	entries *lru.Cache[string, *memEntry]

	// mu serialises every change to entries, so the eviction callback (which
	// lru runs inside Add and Remove) always runs with mu held and can update
	// tags without locking. Get takes only the lru's own lock.
	mu   sync.Mutex
	tags map[string]map[string]struct{} // tag → keys; only keys present in entries
}

type memEntry struct {
	value   []byte
	expires time.Time
	tags    []string
}

var _ Cache = (*Memory)(nil)

// NewMemory returns an empty Memory holding at most maxEntries entries, which
// must be positive. now is the clock that expiry is measured against; nil
// means time.Now.
func NewMemory(maxEntries int, now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, tags: make(map[string]map[string]struct{})}
	entries, err := lru.NewWithEvict(maxEntries, m.unindex)
	if err != nil {
		panic(fmt.Sprintf("cache: NewMemory(%d): %v", maxEntries, err))
	}
	m.entries = entries
	return m
}

// Get returns the value stored under key. The slice is shared with the cache
// and must not be modified. ctx is unused: Memory never blocks on I/O.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	e, ok := m.entries.Get(key)
	if !ok {
		return nil, false, nil
	}
	if m.now().Before(e.expires) {
		return e.value, true, nil
	}
	m.removeExpired(key, e)
	return nil, false, nil
}

// removeExpired frees the slot of an expired entry, unless a concurrent Set
// has replaced it since Get saw it.
func (m *Memory) removeExpired(key string, e *memEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.entries.Peek(key); ok && cur == e {
		m.entries.Remove(key)
	}
}

// Set stores a copy of value under key for ttl and records key under tags,
// replacing any earlier entry and its tags. ttl must be positive.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	if err := checkTTL(ttl); err != nil {
		return err
	}
	e := &memEntry{value: bytes.Clone(value), expires: m.now().Add(ttl), tags: slices.Clone(tags)}

	m.mu.Lock()
	defer m.mu.Unlock()
	// Replacing a key does not call the eviction callback, so the old
	// entry's tags are dropped here; otherwise invalidating a tag the key no
	// longer has would delete it.
	if old, ok := m.entries.Peek(key); ok {
		m.unindex(key, old)
	}
	m.entries.Add(key, e) // may evict another key, which unindexes it
	for _, tag := range e.tags {
		keys := m.tags[tag]
		if keys == nil {
			keys = make(map[string]struct{})
			m.tags[tag] = keys
		}
		keys[key] = struct{}{}
	}
	return nil
}

// Delete removes keys; absent keys are ignored.
func (m *Memory) Delete(_ context.Context, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, key := range keys {
		m.entries.Remove(key)
	}
	return nil
}

// InvalidateTag removes every key recorded under tag, and the tag.
func (m *Memory) InvalidateTag(_ context.Context, tag string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := m.tags[tag]
	delete(m.tags, tag)
	for key := range keys {
		m.entries.Remove(key)
	}
	return nil
}

// unindex forgets that key is recorded under e's tags. It is the lru's
// eviction callback (called for evictions and for Remove) and so always runs
// with m.mu held.
func (m *Memory) unindex(key string, e *memEntry) {
	for _, tag := range e.tags {
		keys := m.tags[tag]
		delete(keys, key)
		if len(keys) == 0 {
			delete(m.tags, tag)
		}
	}
}
