package embedded

import (
	"bytes"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// sortedMessages returns msgs in the order a segment holds them.
func sortedMessages(msgs []messages.Message) []*messages.Message {
	out := make([]*messages.Message, len(msgs))
	for i, k := range timeOrder(msgs) {
		out[i] = &msgs[k]
	}
	return out
}

// TestAddAllMatchesAdd shows that indexing the text fields, the other
// fields and the stored part side by side writes the very segment that
// adding the documents one by one does.
func TestAddAllMatchesAdd(t *testing.T) {
	for name, msgs := range map[string][]messages.Message{
		"generated": messagestest.Generate(5, 3*parallelDocs, messagestest.BenchStart),
		"corpus":    corpusMessages(parallelDocs + 100),
	} {
		t.Run(name, func(t *testing.T) {
			sorted := sortedMessages(msgs)
			var one, all bytes.Buffer
			b := newBuilder(&one)
			b.expect = len(sorted)
			for _, m := range sorted {
				if err := b.add(m); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.finish(); err != nil {
				t.Fatal(err)
			}
			b = newBuilder(&all)
			b.expect = len(sorted)
			if err := b.addAll(sorted); err != nil {
				t.Fatal(err)
			}
			if _, err := b.finish(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), all.Bytes()) {
				t.Fatalf("addAll wrote %d bytes, add %d, not the same", all.Len(), one.Len())
			}
		})
	}
}

// TestAddAllOrder shows that documents out of order are refused when
// they are indexed side by side too.
func TestAddAllOrder(t *testing.T) {
	sorted := sortedMessages(messagestest.Generate(6, parallelDocs, messagestest.BenchStart))
	sorted[10], sorted[parallelDocs-10] = sorted[parallelDocs-10], sorted[10]
	if err := newBuilder(&bytes.Buffer{}).addAll(sorted); err != errOrder {
		t.Fatalf("addAll = %v, want errOrder", err)
	}
}
