package mongo

import (
	"hash/maphash"
	"sync"
)

// lockStripes is the number of mutexes writes of one store share. Writes to
// different documents rarely wait for each other with this many.
const lockStripes = 256

// locks serialises the writes of one process to the same document. MongoDB
// applies a filtered update atomically, so the revision check of Update is
// enough between nodes; some wire-compatible servers (FerretDB) match the
// filter and write in two steps, and lose updates of concurrent writers
// without these locks. With them, only writers on different nodes can race
// on such a server.
type locks struct {
	seed    maphash.Seed
	stripes [lockStripes]sync.Mutex
}

func newLocks() *locks { return &locks{seed: maphash.MakeSeed()} }

// lock locks the document's stripe and returns its unlock.
func (l *locks) lock(coll, id string) func() {
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(coll)
	h.WriteByte(0)
	h.WriteString(id)
	m := &l.stripes[h.Sum64()%lockStripes]
	m.Lock()
	return m.Unlock
}
