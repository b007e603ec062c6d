package views

import (
	"container/list"
	"sync"
	"time"
)

// Bounds of the search jobs a node keeps, as Graylog 4.0's in-memory job
// service keeps them (a cache expiring a minute after the last access, of
// at most 1000 jobs), plus a bound on their encoded size: a job holds its
// results, and a thousand jobs of large pages must not exhaust memory.
const (
	DefaultJobTTL      = time.Minute
	DefaultMaxJobs     = 1000
	DefaultMaxJobBytes = 64 << 20
)

// Jobs keeps the executed search jobs of this node for their status
// requests, each visible to its owner only.
type Jobs struct {
	now      func() time.Time
	ttl      time.Duration
	max      int
	maxBytes int

	mu    sync.Mutex
	bytes int
	byID  map[string]*list.Element
	// lru holds *storedJob, the most recently accessed first.
	lru *list.List
}

type storedJob struct {
	id, owner string
	body      []byte
	accessed  time.Time
}

// NewJobs returns a job store with the default bounds.
func NewJobs(now func() time.Time) *Jobs {
	return NewJobsBounded(now, DefaultJobTTL, DefaultMaxJobs, DefaultMaxJobBytes)
}

// NewJobsBounded returns a job store keeping a job ttl after its last
// access, at most max jobs and maxBytes of encoded jobs.
func NewJobsBounded(now func() time.Time, ttl time.Duration, max, maxBytes int) *Jobs {
	return &Jobs{now: now, ttl: ttl, max: max, maxBytes: maxBytes, byID: map[string]*list.Element{}, lru: list.New()}
}

// Add keeps an encoded job of owner.
func (j *Jobs) Add(id, owner string, body []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.now()
	if e, ok := j.byID[id]; ok {
		j.remove(e)
	}
	j.byID[id] = j.lru.PushFront(&storedJob{id: id, owner: owner, body: body, accessed: now})
	j.bytes += len(body)
	j.evict(now)
}

// Get returns the encoded job of that id when owner owns it; a job of
// someone else is as missing as one that expired.
func (j *Jobs) Get(id, owner string) ([]byte, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.now()
	j.evict(now)
	e, ok := j.byID[id]
	if !ok || e.Value.(*storedJob).owner != owner {
		return nil, false
	}
	sj := e.Value.(*storedJob)
	sj.accessed = now
	j.lru.MoveToFront(e)
	return sj.body, true
}

// Len returns the number of jobs kept.
func (j *Jobs) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.evict(j.now())
	return j.lru.Len()
}

// evict drops the expired jobs and, beyond the bounds, the least recently
// accessed ones; the newest job stays even when it alone is too large.
func (j *Jobs) evict(now time.Time) {
	for e := j.lru.Back(); e != nil; e = j.lru.Back() {
		sj := e.Value.(*storedJob)
		over := j.lru.Len() > j.max || j.bytes > j.maxBytes && j.lru.Len() > 1
		if !over && now.Sub(sj.accessed) < j.ttl {
			return
		}
		j.remove(e)
	}
}

func (j *Jobs) remove(e *list.Element) {
	sj := j.lru.Remove(e).(*storedJob)
	delete(j.byID, sj.id)
	j.bytes -= len(sj.body)
}
