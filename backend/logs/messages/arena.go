package messages

import "unsafe"

// Arena allocates the parts of many messages from a few shared blocks
// instead of one allocation each: the text of their records, their field
// slices and their boxed values. Processing reads every message of a batch
// this way; a message costs a few dozen allocations otherwise, and the
// garbage collector's work grows with their count, not their bytes.
//
// What an Arena hands out is never written again, so it may be kept as
// long as needed; a block stays in memory as long as anything cut from it
// does, which for messages read together is about as long as each one.
// Its zero value is ready, and a nil Arena allocates each part on its own;
// it is not safe for concurrent use.
type Arena struct {
	text   []byte
	strs   []string
	ints   []int64
	floats []float64
	fields []Field
}

// Block sizes: big enough that a block serves a few dozen messages, small
// enough that one message kept alone does not hold much more than itself.
const (
	arenaText   = 16 << 10
	arenaValues = 256
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

// String returns s as an interface value.
func (a *Arena) String(s string) any {
	if a == nil {
		return s
	}
	return box(stringType, put(&a.strs, s))
}

// Int returns v as an interface value holding an int64.
func (a *Arena) Int(v int64) any {
	if a == nil || v >= 0 && v < 256 {
		// The runtime boxes these without allocating.
		return v
	}
	return box(int64Type, put(&a.ints, v))
}

// Float returns v as an interface value holding a float64.
func (a *Arena) Float(v float64) any {
	if a == nil {
		return v
	}
	return box(float64Type, put(&a.floats, v))
}

// put appends v to the block and returns where it is, starting a new block
// when the block is full: values handed out never move.
func put[T any](block *[]T, v T) unsafe.Pointer {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, arenaValues)
	}
	*block = append(*block, v)
	return unsafe.Pointer(&(*block)[len(*block)-1])
}

// eface is the layout of an interface value: its dynamic type and a
// pointer to its value. Boxing a string, an int64 or a float64 makes the
// runtime allocate a copy of the value to point at; an Arena points into
// its blocks instead. The pointed-to value is never written again, which
// is what the runtime assumes of an interface's value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

var (
	stringType  = typeOf("")
	int64Type   = typeOf(int64(0))
	float64Type = typeOf(float64(0))
)

func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

func box(typ, data unsafe.Pointer) any {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, data
	return v
}
