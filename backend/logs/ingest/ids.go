package ingest

import (
	crand "crypto/rand"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// newUUID returns a time-based (version 1) UUID, the kind Graylog gives a
// message's _id, falling back to a random one if the clock sequence cannot
// be read.
func newUUID() string {
	u, err := uuid.NewUUID()
	if err != nil {
		return uuid.NewString()
	}
	return u.String()
}

// ulids hands out gl2_message_id values: ULIDs that increase strictly
// within a runner, even when the clock stands still or steps back.
type ulids struct {
	mu      sync.Mutex
	last    uint64 // millisecond timestamp of the last id
	entropy *ulid.MonotonicEntropy
}

func newULIDs() *ulids {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // crypto/rand.Read never fails
	return &ulids{entropy: ulid.Monotonic(rand.NewChaCha8(seed), 0)}
}

// next returns the next id for a message received at t.
func (u *ulids) next(t time.Time) string {
	u.mu.Lock()
	ms := max(ulid.Timestamp(t), u.last)
	id, err := ulid.New(ms, u.entropy)
	if err != nil {
		// The entropy of this millisecond is exhausted (2^80 ids) or ms is
		// beyond the year 10889: move on to the next millisecond.
		ms++
		id, _ = ulid.New(ms, u.entropy)
	}
	u.last = ms
	u.mu.Unlock()
	return id.String()
}
