package embedded

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Postings are the sorted document numbers of a term. A list is stored as
// delta-coded varints, or as a bitmap when that is smaller (frequent
// terms such as level:6 or a common source).
//
//	postings = 0 count:uvarint delta:uvarint*   (first delta from -1)
//	         | 1 words:uint64le*                (ceil(n/64) words)
const (
	postingsList   = 0
	postingsBitmap = 1
)

var errCorrupt = errors.New("embedded: corrupt segment")

// appendPostings encodes docs (sorted, < n).
func appendPostings(b []byte, docs []uint32, n int) []byte {
	if len(docs)*12 > n { // a bitmap costs n/8 bytes, a list ~1.5 per doc
		b = append(b, postingsBitmap)
		words := make([]uint64, (n+63)/64)
		for _, d := range docs {
			words[d>>6] |= 1 << (d & 63)
		}
		for _, w := range words {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		return b
	}
	b = append(b, postingsList)
	b = binary.AppendUvarint(b, uint64(len(docs)))
	prev := int64(-1)
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(int64(d)-prev))
		prev = int64(d)
	}
	return b
}

// orPostings adds the documents of encoded postings to set (sized for n
// documents), validating them: corrupt bytes are an error, never a panic.
func orPostings(set bitset, p []byte, n int) error {
	if len(p) == 0 {
		return errCorrupt
	}
	switch p[0] {
	case postingsBitmap:
		words := (n + 63) / 64
		if len(p) != 1+8*words {
			return errCorrupt
		}
		for i := range words {
			set[i] |= binary.LittleEndian.Uint64(p[1+8*i:])
		}
		if n&63 != 0 && words > 0 && set[words-1]>>(uint(n)&63) != 0 {
			return errCorrupt
		}
		return nil
	case postingsList:
		p = p[1:]
		count, k := binary.Uvarint(p)
		if k <= 0 || count > uint64(len(p)) {
			return errCorrupt
		}
		p = p[k:]
		doc := int64(-1)
		for range count {
			d, k := binary.Uvarint(p)
			if k <= 0 || d == 0 || d > uint64(n) {
				return errCorrupt
			}
			p = p[k:]
			doc += int64(d)
			if doc >= int64(n) {
				return errCorrupt
			}
			set.set(int(doc))
		}
		if len(p) != 0 {
			return errCorrupt
		}
		return nil
	}
	return errCorrupt
}

// appendDocs appends the documents of encoded postings (for a segment of
// n documents) to docs, validating them as orPostings does.
func appendDocs(docs []uint32, p []byte, n int) ([]uint32, error) {
	if len(p) == 0 {
		return docs, errCorrupt
	}
	switch p[0] {
	case postingsBitmap:
		words := (n + 63) / 64
		if len(p) != 1+8*words {
			return docs, errCorrupt
		}
		for i := range words {
			w := binary.LittleEndian.Uint64(p[1+8*i:])
			for w != 0 {
				d := i*64 + bits.TrailingZeros64(w)
				if d >= n {
					return docs, errCorrupt
				}
				docs = append(docs, uint32(d))
				w &= w - 1
			}
		}
		return docs, nil
	case postingsList:
		p = p[1:]
		count, k := binary.Uvarint(p)
		if k <= 0 || count > uint64(len(p)) {
			return docs, errCorrupt
		}
		p = p[k:]
		doc := int64(-1)
		for range count {
			d, k := binary.Uvarint(p)
			if k <= 0 || d == 0 || d > uint64(n) {
				return docs, errCorrupt
			}
			p = p[k:]
			doc += int64(d)
			if doc >= int64(n) {
				return docs, errCorrupt
			}
			docs = append(docs, uint32(doc))
		}
		if len(p) != 0 {
			return docs, errCorrupt
		}
		return docs, nil
	}
	return docs, errCorrupt
}
