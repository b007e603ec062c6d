package processing

import "fmt"

// batchAt is a batch of journal records: n records from offset from.
type batchAt struct {
	from uint64
	n    int
}

// DumpKey is the name Graylog's process buffer dump gives its first
// processor; loggate's pipeline is one processor.
const DumpKey = "ProcessBufferProcessor #0"

// Dump tells what the processor is doing now, for
// /system/processbufferdump: "idle", "paused", or the journal offsets of
// the batch it is reading, routing and writing to the store (and that the
// store is failing, while it retries). It names offsets, never message
// contents: Graylog's dump shows the message, but a dump is readable by
// anyone holding processbuffer:dump, who may not read the message's
// streams.
func (p *Processor) Dump() map[string]string {
	cur := p.current.Load()
	st := p.State()
	var what string
	switch {
	case cur != nil:
		what = fmt.Sprintf("processing journal offsets %d to %d (%d records)", cur.from, cur.from+uint64(cur.n)-1, cur.n)
		if st.Failing != "" {
			what += ", retrying: the message store is failing"
		}
	case !p.opts.Processing():
		what = "idle (processing paused)"
	default:
		what = "idle"
	}
	return map[string]string{DumpKey: what}
}
