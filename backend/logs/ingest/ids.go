package ingest

import (
	crand "crypto/rand"
	"encoding/hex"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// putUUID writes a time-based (version 1) UUID, the kind Graylog gives a
// message's _id, into text and returns it; a random one if the clock
// sequence cannot be read. Written in place: a UUID's String allocates,
// once per message.
func putUUID(text *[36]byte) []byte {
	u, err := uuid.NewUUID()
	if err != nil {
		u = uuid.New()
	}
	hex.Encode(text[0:8], u[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], u[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], u[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], u[8:10])
	text[23] = '-'
	hex.Encode(text[24:36], u[10:16])
	return text[:]
}

// ulids hands out gl2_message_id values: ULIDs that increase strictly
// within a runner, even when the clock stands still or steps back.
type ulids struct {
	mu      sync.Mutex
	last    uint64 // millisecond timestamp of the last id
	entropy *ulid.MonotonicEntropy
	id      ulid.ULID // being made: ulid.New's makes each id escape
}

func newULIDs() *ulids {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // crypto/rand.Read never fails
	return &ulids{entropy: ulid.Monotonic(rand.NewChaCha8(seed), 0)}
}

// next returns the next id for a message received at t.
func (u *ulids) next(t time.Time) ulid.ULID {
	u.mu.Lock()
	defer u.mu.Unlock()
	ms := max(ulid.Timestamp(t), u.last)
	if err := u.make(ms); err != nil {
		// The entropy of this millisecond is exhausted (2^80 ids) or ms is
		// beyond the year 10889: move on to the next millisecond.
		ms++
		_ = u.make(ms)
	}
	u.last = ms
	return u.id
}

// make makes u.id as ulid.New(ms, u.entropy) does.
func (u *ulids) make(ms uint64) error {
	if err := u.id.SetTime(ms); err != nil {
		return err
	}
	return u.entropy.MonotonicRead(ms, u.id[6:])
}
