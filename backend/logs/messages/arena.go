package messages

import "unsafe"

// Arena allocates the parts of many messages from a few shared blocks
// instead of one allocation each: the text of their records and their field
// slices. Processing reads every message of a batch this way; a message
// costs a few dozen allocations otherwise, and the garbage collector's work
// grows with their count, not their bytes. Field values are still boxed by
// the runtime, one allocation each (small integers none): an interface
// pointing into a shared block would depend on the interface layout, which
// the language does not promise.
//
// What an Arena hands out is never written again, so it may be kept as
// long as needed; a block stays in memory as long as anything cut from it
// does, which for messages read together is about as long as each one.
// Its zero value is ready, and a nil Arena allocates each part on its own;
// it is not safe for concurrent use.
type Arena struct {
	text   []byte
	fields []Field
}

// Block sizes: big enough that a block serves a few dozen messages, small
// enough that one message kept alone does not hold much more than itself.
const (
	arenaText   = 16 << 10
	arenaFields = 512
)

// Text returns a string holding a copy of b.
func (a *Arena) Text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if a == nil || len(b) > arenaText/4 {
		// A large record gets a copy of its own rather than wasting the
		// rest of a block.
		return string(b)
	}
	if cap(a.text)-len(a.text) < len(b) {
		a.text = make([]byte, 0, arenaText)
	}
	at := len(a.text)
	a.text = append(a.text, b...)
	return unsafe.String(&a.text[at], len(b))
}

// Fields returns an empty field slice with room for n fields and spare
// more: processors that add a few fields do not regrow it. Appending past
// its capacity moves it, never into another message's fields.
func (a *Arena) Fields(n, spare int) []Field {
	c := n + spare
	if a == nil || c > arenaFields/4 {
		return make([]Field, 0, c)
	}
	if cap(a.fields)-len(a.fields) < c {
		a.fields = make([]Field, 0, arenaFields)
	}
	at := len(a.fields)
	a.fields = a.fields[:at+c]
	return a.fields[at : at : at+c]
}
