package embedded

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// TestIDLookup shows that every stored _id is found, whatever its form
// (a UUID, one in capitals, which is stored as a string, any other
// string), and that the filter turns most absent ids away before the
// binary search.
func TestIDLookup(t *testing.T) {
	msgs := messagestest.Generate(1, 3000, messagestest.BenchStart)
	for i := range msgs {
		switch i % 3 {
		case 1:
			msgs[i].ID = strings.ToUpper(uuid.NewString())
		case 2:
			msgs[i].ID = fmt.Sprintf("msg-%d", i)
		}
	}
	c, err := buildChunk(msgs, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := &c.seg.ids
	if len(ids.other) != 2000 {
		t.Fatalf("%d ids stored as strings, want 2000", len(ids.other))
	}
	for i, m := range msgs {
		var found []int
		ids.lookup(m.ID, func(doc int) { found = append(found, doc) })
		if len(found) != 1 || ids.id(found[0]) != m.ID {
			t.Fatalf("message %d (%s): found documents %v", i, m.ID, found)
		}
	}
	const absent = 10000
	passed := 0
	for i := range absent {
		id := uuid.NewString()
		if i%2 == 1 {
			id = fmt.Sprintf("other-%d", i)
		}
		k := newIDKey(id)
		if ids.mayHold(k.hash) {
			passed++
		}
		ids.lookupKey(&k, func(doc int) { t.Fatalf("absent id %s found as document %d", id, doc) })
	}
	// 8 bits and 3 probes per id: about 3% false positives.
	if passed > absent/10 {
		t.Fatalf("the filter let %d of %d absent ids through", passed, absent)
	}
}
