package ingest

import (
	"context"
	"errors"

	"github.com/loggate/loggate/backend/logs/journal"
)

// appendResult tells what became of a batch.
type appendResult struct {
	journaled int   // records now durable in the journal
	tooLarge  int   // records the journal can never take; counted as failures
	err       error // why the other records were not journaled
}

// appendAll appends records to the journal. With wait, a full journal
// blocks it until there is room (TCP back-pressure); without, records that
// find it full are not journaled and err wraps journal.ErrFull.
//
// A batch the journal refuses as a whole is split in halves, appended in
// order: when it is full, so that records go in as soon as there is room for
// some rather than for all (the journal may never have room for a whole
// batch while its consumer waits for more records); when it holds a record
// the journal can never take, so that only that record is lost.
func (inst *instance) appendAll(ctx context.Context, records [][]byte, wait bool) appendResult {
	for {
		_, _, err := inst.r.j.Append(ctx, records...)
		switch {
		case err == nil:
			return appendResult{journaled: len(records)}
		case errors.Is(err, journal.ErrFull) && wait && len(records) == 1:
			werr := inst.r.j.WaitNotFull(ctx, size(records))
			if werr == nil {
				continue
			}
			if errors.Is(werr, journal.ErrTooLarge) {
				inst.metrics.failures.Mark(1)
				return appendResult{tooLarge: 1}
			}
			return appendResult{err: werr}
		case errors.Is(err, journal.ErrFull) && wait:
		case errors.Is(err, journal.ErrTooLarge):
			if len(records) == 1 {
				inst.metrics.failures.Mark(1)
				return appendResult{tooLarge: 1}
			}
		default:
			return appendResult{err: err}
		}
		half := len(records) / 2
		a := inst.appendAll(ctx, records[:half], wait)
		if a.err != nil && wait {
			return appendResult{journaled: a.journaled, tooLarge: a.tooLarge, err: a.err}
		}
		b := inst.appendAll(ctx, records[half:], wait)
		return appendResult{journaled: a.journaled + b.journaled, tooLarge: a.tooLarge + b.tooLarge, err: cmpOr(a.err, b.err)}
	}
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// frameOverhead is at least the journal's per-record framing (8 bytes), so
// that WaitNotFull waits for all the room Append needs: asking for less
// would let Append fail again at once and spin.
const frameOverhead = 16

// size is the space to wait for before appending records.
func size(records [][]byte) int {
	n := 0
	for _, r := range records {
		n += len(r) + frameOverhead
	}
	return n
}
