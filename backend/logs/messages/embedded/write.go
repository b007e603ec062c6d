package embedded

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Write adds msgs to the write index of prefix. The messages are held in
// memory, searchable at once, until the next Flush.
func (s *Store) Write(ctx context.Context, prefix string, msgs []messages.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !prefixPattern.MatchString(prefix) {
		return fmt.Errorf("embedded: invalid index prefix %q", prefix)
	}
	for i := range msgs {
		if err := checkMessage(&msgs[i]); err != nil {
			return err
		}
	}
	if err := checkFault(s.opts.Fault); err != nil {
		return unavailable("write", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return unavailable("write", errClosed)
	}
	ix := s.writeIndex(prefix)
	w := replacer{segs: map[*segRef]bool{}, bufs: map[*buffer]bool{}, in: ix.buffers()}
	for i := range msgs {
		m := msgs[i]
		// Kept to the millisecond, as segments keep it: a buffer ordering
		// by finer time than its segment would page differently once
		// flushed, repeating one hit and skipping another.
		m.Timestamp = time.UnixMilli(m.Timestamp.UnixMilli()).UTC()
		w.remove(ix, m.ID)
		ix.active.add(m)
	}
	return nil
}

func checkMessage(m *messages.Message) error {
	if m.ID == "" {
		return fmt.Errorf("embedded: message without %s", messages.FieldID)
	}
	for _, f := range m.Fields {
		switch f.Value.(type) {
		case string, int64, float64, bool:
		default:
			return fmt.Errorf("embedded: field %q has unsupported type %T", f.Key, f.Value)
		}
		if f.Key == "" || strings.ContainsRune(f.Key, 0) {
			return fmt.Errorf("embedded: invalid field name %q", f.Key)
		}
	}
	return nil
}

// writeIndex returns the write index of prefix, creating <prefix>_0 for a
// new series; the caller holds mu.
func (s *Store) writeIndex(prefix string) *index {
	if list := s.series[prefix]; len(list) > 0 {
		return list[len(list)-1]
	}
	return s.newIndex(prefix, 0, s.opts.Now().UTC())
}

// replacer marks earlier copies of rewritten messages deleted, copying
// each deleted set once per Write.
type replacer struct {
	segs map[*segRef]bool
	bufs map[*buffer]bool
	in   []*buffer // the index's buffers, listed once per Write
}

func (w *replacer) remove(ix *index, id string) {
	for _, b := range w.in {
		pos, ok := b.byID[id]
		if !ok {
			continue
		}
		if !w.bufs[b] {
			w.bufs[b] = true
			grown := newBitset(len(b.msgs) + chunkSize)
			copy(grown, b.deleted)
			b.deleted = grown
		}
		if pos>>6 >= len(b.deleted) {
			grown := newBitset(len(b.msgs) + chunkSize)
			copy(grown, b.deleted)
			b.deleted = grown
		}
		b.deleted.set(pos)
		delete(b.byID, id)
	}
	if len(ix.segs) == 0 {
		return
	}
	k := newIDKey(id)
	for _, r := range ix.segs {
		r.seg.ids.lookupKey(&k, func(doc int) {
			if r.deleted.has(doc) {
				return
			}
			if !w.segs[r] {
				w.segs[r] = true
				if r.deleted == nil {
					r.deleted = newBitset(r.seg.n)
				} else {
					r.deleted = r.deleted.clone()
				}
			}
			r.deleted.set(doc)
		})
	}
}
