package rewrite

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrInvalidJSON is wrapped by the error a field edit returns when the
// document, or the value to set, is not valid JSON.
var ErrInvalidJSON = errors.New("rewrite: invalid JSON")

// RenameField renames the member from to to in every object path addresses
// (see the package documentation) that has it, keeping its raw value and
// position. A member already named to in
// such an object is dropped, so the result has no duplicate keys.
func RenameField(doc []byte, path, from, to string) ([]byte, error) {
	if err := prepare(doc, path); err != nil {
		return nil, fmt.Errorf("rename %q: %w", from, err)
	}
	if from == to {
		return doc, nil
	}
	e := editor{doc: doc, op: opRename, field: from, to: to}
	return e.run(path), nil
}

// DeleteField removes the member field from every object path addresses.
func DeleteField(doc []byte, path, field string) ([]byte, error) {
	if err := prepare(doc, path); err != nil {
		return nil, fmt.Errorf("delete %q: %w", field, err)
	}
	e := editor{doc: doc, op: opDelete, field: field}
	return e.run(path), nil
}

// Member names a member of the objects a path addresses.
type Member struct{ Path, Field string }

// DeleteFields removes each member from the objects its path addresses, as
// DeleteField one after the other, the document checked once.
func DeleteFields(doc []byte, members ...Member) ([]byte, error) {
	if !valid(doc) {
		return nil, ErrInvalidJSON
	}
	for _, m := range members {
		if err := checkPath(m.Path); err != nil {
			return nil, fmt.Errorf("delete %q: %w", m.Field, err)
		}
		// An edit keeps a valid document valid.
		e := editor{doc: doc, op: opDelete, field: m.Field}
		doc = e.run(m.Path)
	}
	return doc, nil
}

// SetField sets the member field of every object path addresses to rawValue, a
// JSON value copied as it is. An existing member keeps its position; a new
// one is appended to the object.
func SetField(doc []byte, path, field string, rawValue []byte) ([]byte, error) {
	if err := prepare(doc, path); err != nil {
		return nil, fmt.Errorf("set %q: %w", field, err)
	}
	if !valid(rawValue) {
		return nil, fmt.Errorf("set %q: value: %w", field, ErrInvalidJSON)
	}
	e := editor{doc: doc, op: opSet, field: field, value: bytes.TrimSpace(rawValue)}
	return e.run(path), nil
}

func prepare(doc []byte, path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if !valid(doc) {
		return ErrInvalidJSON
	}
	return nil
}

var comma = []byte{','}

type op uint8

const (
	opRename op = iota
	opDelete
	opSet
)

// editor walks a valid document to the addressed objects and splices their
// edits into out, in document order.
type editor struct {
	doc   []byte
	op    op
	field string // the member renamed, deleted or set
	to    string // the new name, for opRename
	value []byte // the raw value, for opSet

	repl []byte // the quoted new name, or `"field":value`; built on first use
	out  []byte // nil until the first edit
	last int    // doc[:last] has been copied to out
}

func (e *editor) run(path string) []byte {
	e.walk(skipWS(e.doc, 0), path, false)
	if e.out == nil {
		return e.doc
	}
	return append(e.out, e.doc[e.last:]...)
}

// emit replaces doc[start:end] with repl. Calls come in document order.
func (e *editor) emit(start, end int, repl []byte) {
	if e.out == nil {
		e.out = make([]byte, 0, len(e.doc)+len(e.doc)/8+2*len(e.repl)+16)
	}
	e.out = append(e.out, e.doc[e.last:start]...)
	e.out = append(e.out, repl...)
	e.last = end
}

// walk follows path from the value at doc[i]. With needEnd it returns the
// index after that value, which an enclosing array needs to go on to the
// next element; without, it stops as soon as path is done and may return -1.
func (e *editor) walk(i int, path string, needEnd bool) int {
	b := e.doc
	if path == "" {
		if b[i] == '{' {
			return e.object(i)
		}
		return skipIf(b, i, needEnd)
	}
	seg, rest := nextSegment(path)
	switch b[i] {
	case '{':
		found := false
		for j := i + 1; ; {
			m, end, ok := nextMember(b, j)
			switch {
			case !ok:
				return end
			case !found && keyEqual(b, m, seg, true):
				found = true
				if j = e.walk(m.valStart, rest, needEnd); !needEnd {
					return -1
				}
			default:
				j = skipValue(b, m.valStart)
			}
		}
	case '[':
		n, isIndex := arrayIndex(seg)
		all := seg == "#"
		if !all && !isIndex {
			return skipIf(b, i, needEnd)
		}
		for j, k := i+1, 0; ; k++ {
			start, ok := nextElement(b, j)
			switch {
			case !ok:
				return start
			case all:
				j = e.walk(start, rest, true)
			case k == n:
				if j = e.walk(start, rest, needEnd); !needEnd {
					return -1
				}
			default:
				j = skipValue(b, start)
			}
		}
	}
	return skipIf(b, i, needEnd)
}

// skipIf returns the end of the value at b[i] if it is needed.
func skipIf(b []byte, i int, needEnd bool) int {
	if needEnd {
		return skipValue(b, i)
	}
	return -1
}

// object applies the edit to the object at doc[o] and returns the index
// after it.
func (e *editor) object(o int) int {
	if e.op != opRename {
		_, _, end := e.members(o, false)
		return end
	}
	// A member already named to has to go, but only if the object has a
	// member from, which may come later. Renaming is optimistic: if both
	// turn up, the object's output is taken back and written again.
	outLen, last := len(e.out), e.last
	found, sawTo, end := e.members(o, false)
	if found && sawTo {
		e.out, e.last = e.out[:outLen], last
		e.members(o, true)
	}
	return end
}

// members edits the members of the object at doc[o], dropping those named
// to if dropTo is set, reports whether it met members named field and to,
// and returns the index after the object. Members are dropped by splicing
// out runs of them: a run followed by a kept member goes up to that member's
// name; a run that ends the object goes back to the end of the last kept
// member, taking its comma.
func (e *editor) members(o int, dropTo bool) (found, sawTo bool, end int) {
	b := e.doc
	lastKept, lastEnd, pending := -1, -1, -1
	for j := o + 1; ; {
		m, objEnd, ok := nextMember(b, j)
		if !ok {
			end = objEnd
			break
		}
		valEnd := skipValue(b, m.valStart)
		j = valEnd
		isField := keyEqual(b, m, e.field, false)
		isTo := e.op == opRename && !isField && keyEqual(b, m, e.to, false)
		sawTo = sawTo || isTo
		lastEnd = valEnd
		if (e.op == opDelete && isField) || (dropTo && isTo) {
			if pending < 0 {
				pending = m.keyStart
			}
			continue
		}
		if pending >= 0 {
			e.emit(pending, m.keyStart, nil)
			pending = -1
		}
		lastKept = valEnd
		if !isField {
			continue
		}
		found = true
		switch e.op {
		case opRename:
			if e.repl == nil {
				e.repl = appendQuoted(nil, e.to)
			}
			e.emit(m.keyStart, m.keyEnd, e.repl)
		case opSet:
			e.emit(m.valStart, valEnd, e.value)
		}
	}
	switch {
	case pending >= 0 && lastKept >= 0:
		e.emit(lastKept, lastEnd, nil)
	case pending >= 0:
		e.emit(pending, lastEnd, nil)
	case e.op == opSet && !found:
		if e.repl == nil {
			e.repl = append(appendQuoted(nil, e.field), ':')
			e.repl = append(e.repl, e.value...)
		}
		if lastEnd < 0 {
			e.emit(o+1, o+1, e.repl)
		} else {
			e.emit(lastEnd, lastEnd, comma)
			e.emit(lastEnd, lastEnd, e.repl)
		}
	}
	return found, sawTo, end
}
