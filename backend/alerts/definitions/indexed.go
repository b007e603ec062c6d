package definitions

import (
	"context"
	"sync"
	"time"
)

// Watermark tells up to when every message a node received is searchable,
// from its journal: Graylog's processing-status check, by journal
// position. Each call notes the journal's end at that time; once
// processing has written everything before a noted end, every message
// received before that note's time is in the store.
type Watermark struct {
	end       func() uint64 // the next offset the journal gives
	processed func() uint64 // the first offset not yet in the store
	now       func() time.Time

	mu    sync.Mutex
	marks []mark // oldest first
	upTo  time.Time
}

type mark struct {
	at  time.Time
	end uint64
}

// maxMarks bounds the notes kept while processing lags; beyond it every
// other note is dropped, the oldest kept, so that the notes span any lag
// (more coarsely) and the answer still moves on.
const maxMarks = 64

// NewWatermark returns the watermark of a journal and the processing
// reading it.
func NewWatermark(end, processed func() uint64, now func() time.Time) *Watermark {
	return &Watermark{end: end, processed: processed, now: now}
}

// Indexed returns the time up to which every received message is
// searchable; it is ProcessorOptions.Indexed.
func (w *Watermark) Indexed(context.Context) (time.Time, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// The end before the processed offset: a message journaled before now
	// is either counted in end or was already processed.
	end, now := w.end(), w.now()
	if n := len(w.marks); n > 0 && w.marks[n-1].end == end {
		// Nothing journaled since the last note: the same end, later.
		w.marks[n-1].at = now
	} else {
		w.marks = append(w.marks, mark{now, end})
	}
	if len(w.marks) > maxMarks {
		kept := w.marks[:0]
		for i, m := range w.marks {
			if i%2 == 0 || i == len(w.marks)-1 {
				kept = append(kept, m)
			}
		}
		w.marks = kept
	}
	done := w.processed()
	i := 0
	for ; i < len(w.marks) && w.marks[i].end <= done; i++ {
		w.upTo = w.marks[i].at
	}
	w.marks = w.marks[i:]
	return w.upTo, nil
}
