package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/loggate/loggate/backend/logs/messages"
)

// docDigest sums up a collection: its document count and a SHA-256 over
// every id and document in id order (the order both stores list in).
type docDigest struct {
	n int
	h hash.Hash
}

func newDocDigest() *docDigest { return &docDigest{h: sha256.New()} }

func (d *docDigest) add(id string, doc []byte) {
	d.n++
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(len(id)))
	_, _ = d.h.Write(b[:])
	_, _ = d.h.Write([]byte(id))
	binary.BigEndian.PutUint32(b[:], uint32(len(doc)))
	_, _ = d.h.Write(b[:])
	_, _ = d.h.Write(doc)
}

func (d *docDigest) sum() (int, [sha256.Size]byte) {
	var out [sha256.Size]byte
	d.h.Sum(out[:0])
	return d.n, out
}

// verification is the outcome of comparing source and destination.
type verification struct {
	collections, indices int
	docs                 int
	msgs                 int64
	// badCollections and badIndices name what differs.
	badCollections, badIndices []string
}

func (v *verification) ok() bool { return len(v.badCollections) == 0 && len(v.badIndices) == 0 }

// verify compares every collection of the source with the destination's,
// and every message index with the destination's index of the same name,
// by count and checksum; it prints each difference.
func (m *storeMigration) verify(ctx context.Context, p *plan) (*verification, error) {
	v := &verification{}
	out := m.o.Stdout
	for _, c := range p.collections {
		src := newDocDigest()
		if err := m.src.each(c.name, func(id string, doc []byte) error { src.add(id, doc); return nil }); err != nil {
			return nil, fmt.Errorf("verify %s: %w", c.name, err)
		}
		dst := newDocDigest()
		if err := m.dst.List(ctx, c.name, func(id string, doc []byte) error { dst.add(id, doc); return nil }); err != nil {
			return nil, fmt.Errorf("verify %s at the destination: %w", c.name, err)
		}
		sn, ss := src.sum()
		dn, ds := dst.sum()
		v.collections++
		v.docs += sn
		if sn != dn || ss != ds {
			v.badCollections = append(v.badCollections, c.name)
			fmt.Fprintf(out, "  MISMATCH collection %s: source %d documents (sha256 %x), destination %d (sha256 %x)\n", c.name, sn, ss[:6], dn, ds[:6])
		}
	}
	for _, s := range p.series {
		dstIndices, err := m.msgDst.Indices(ctx, s.prefix)
		if err != nil {
			return nil, fmt.Errorf("verify %s at the destination: %w", s.prefix, err)
		}
		for _, ip := range s.indices {
			sn, ss, err := m.digestIndex(ctx, m.msgSrc, ip.ix)
			if err != nil {
				return nil, fmt.Errorf("verify %s: %w", ip.ix.Name, err)
			}
			var dn int64
			var ds [sha256.Size]byte
			found := false
			for _, d := range dstIndices {
				if d.Name == ip.ix.Name {
					found = true
					if dn, ds, err = m.digestIndex(ctx, m.msgDst, d); err != nil {
						return nil, fmt.Errorf("verify %s at the destination: %w", ip.ix.Name, err)
					}
				}
			}
			if !found {
				// An empty index is no data; its absence is no loss.
				_, ds = newDigest().sum()
			}
			v.indices++
			v.msgs += sn
			if sn != dn || ss != ds {
				v.badIndices = append(v.badIndices, ip.ix.Name)
				fmt.Fprintf(out, "  MISMATCH index %s: source %d messages (sha256 %x), destination %d (sha256 %x)\n", ip.ix.Name, sn, ss[:6], dn, ds[:6])
			}
		}
	}
	return v, nil
}

// digestIndex reads one index whole and sums it up.
func (m *storeMigration) digestIndex(ctx context.Context, st messages.Store, ix messages.Index) (int64, [sha256.Size]byte, error) {
	d := newDigest()
	pg := newPager(st, ix, m.batch, Cursor{})
	for {
		msgs, _, ok, err := pg.next(ctx)
		if err != nil {
			return 0, [sha256.Size]byte{}, err
		}
		if !ok {
			n, sum := d.sum()
			return n, sum, nil
		}
		for i := range msgs {
			d.add(&msgs[i])
		}
	}
}
