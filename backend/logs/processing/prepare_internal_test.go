package processing

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
)

// batchJournal serves one batch of records at every offset.
type batchJournal struct{ entries []journal.Entry }

func (j batchJournal) Committed() uint64                  { return 0 }
func (j batchJournal) End() uint64                        { return uint64(len(j.entries)) }
func (j batchJournal) Wait(context.Context, uint64) error { return nil }
func (j batchJournal) Commit(uint64) error                { return nil }
func (j batchJournal) ReadInto(_ []journal.Entry, buf []byte, _ uint64, _ int) ([]journal.Entry, []byte, error) {
	return j.entries, buf, nil
}

type defaultOnly struct{}

func (defaultOnly) All() []*streams.Stream {
	return []*streams.Stream{{ID: streams.DefaultStreamID, IndexSetID: "set"}}
}
func (defaultOnly) Refresh(context.Context) error { return nil }

type oneSet struct{}

func (oneSet) Prefix(context.Context, string) (string, bool) { return "graylog", true }
func (oneSet) DefaultPrefix(context.Context) (string, error) { return "graylog", nil }

// TestPrepareAllocations: reading and routing a batch allocates per batch,
// not per message: the records' text and fields, the streams and
// the indexed copies are cut from shared blocks. Allocations are what the
// garbage collector's work grows with, on the node's hottest path.
func TestPrepareAllocations(t *testing.T) {
	const n = 1000
	p := New(batchJournal{testEntries(t, n)}, nil, defaultOnly{}, oneSet{}, Options{BatchSize: n})
	ctx := context.Background()
	var b *prepared
	allocs := testing.AllocsPerRun(20, func() {
		var err error
		if b, err = p.prepare(ctx, 0); err != nil {
			t.Fatal(err)
		}
	})
	if len(b.writes) != 1 || len(b.writes[0].msgs) != n {
		t.Fatalf("writes %+v", b.writes)
	}
	got := b.writes[0].msgs[n-1]
	if v, _ := got.Get("http_path"); v != "/orders" || len(got.Streams) != 1 || got.Streams[0] != streams.DefaultStreamID {
		t.Fatalf("indexed message %+v", got)
	}
	// The runtime boxes each value but level (a small integer): the four
	// strings, user_id and took. Everything else comes from the batch's
	// arena and buffers, a small part of an allocation per message.
	const boxed = 6
	t.Logf("%.3f allocations per message", allocs/n)
	if per := allocs/n - boxed; per > 0.2 {
		t.Errorf("%.2f allocations per message besides the %d boxed values, want at most 0.2", per, boxed)
	}
}

// testEntries is n journal records of messages of seven fields.
func testEntries(t *testing.T, n int) []journal.Entry {
	t.Helper()
	entries := make([]journal.Entry, n)
	for i := range entries {
		m := messages.Message{ID: fmt.Sprintf("id-%d", i), Timestamp: time.UnixMilli(int64(i)).UTC(), Fields: []messages.Field{
			{Key: "message", Value: fmt.Sprintf("GET /orders/%d 200", i)}, {Key: "source", Value: "web-1"},
			{Key: "level", Value: int64(6)}, {Key: "user_id", Value: int64(100000 + i)}, {Key: "took", Value: 0.25},
			{Key: "service", Value: "checkout"}, {Key: "http.path", Value: "/orders"},
		}}
		rec, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		entries[i] = journal.Entry{Offset: uint64(i), Data: rec}
	}
	return entries
}

// adder is a processor that says it adds n fields to every message; it
// records the room each message it sees has.
type adder struct {
	n    int
	room []int
}

func (a *adder) AddedFields() int { return a.n }

func (a *adder) Process(_ context.Context, msgs []*messages.Message) []*messages.Message {
	for _, m := range msgs {
		a.room = append(a.room, cap(m.Fields)-len(m.Fields))
	}
	return msgs
}

// TestSpareFieldsForFieldAdders: messages are read with the room for the
// fields a FieldAdder says it adds, within bounds, so that adding them
// does not copy every message's fields.
func TestSpareFieldsForFieldAdders(t *testing.T) {
	for _, tc := range []struct{ added, want int }{
		{0, messages.SpareFields},
		{2, messages.SpareFields},
		{9, 9},
		{1 << 20, maxSpareFields},
	} {
		p := New(batchJournal{testEntries(t, 10)}, nil, defaultOnly{}, oneSet{}, Options{BatchSize: 10})
		a := &adder{n: tc.added}
		p.Register(PipelineClass, a)
		if _, err := p.prepare(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		if len(a.room) != 10 {
			t.Fatalf("added %d: the processor saw %d messages", tc.added, len(a.room))
		}
		for i, r := range a.room {
			if r != tc.want {
				t.Errorf("added %d: message %d has room for %d fields, want %d", tc.added, i, r, tc.want)
			}
		}
	}
}
