package lookup

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// parseRecords splits text into records of fields as a CSV reader with
// the given separator and quote character does: a record ends at a line
// break outside quotes, a quoted field may hold separators and line
// breaks, and a doubled quote inside quotes is one quote. Empty lines are
// no records.
func parseRecords(text string, sep, quote rune) [][]string {
	var out [][]string
	var rec []string
	var field strings.Builder
	inQuote, started := false, false
	endField := func() {
		rec = append(rec, field.String())
		field.Reset()
	}
	endRecord := func() {
		if started || len(rec) > 0 {
			endField()
			out = append(out, rec)
		}
		rec, started = nil, false
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case inQuote && r == quote:
			if next, n := utf8.DecodeRuneInString(text[i:]); i < len(text) && next == quote {
				field.WriteRune(quote)
				i += n
			} else {
				inQuote = false
			}
		case inQuote:
			field.WriteRune(r)
		case r == quote:
			inQuote, started = true, true
		case r == sep:
			started = true
			endField()
		case r == '\n':
			endRecord()
		case r == '\r' && strings.HasPrefix(text[i:], "\n"):
		default:
			started = true
			field.WriteRune(r)
		}
	}
	endRecord()
	return out
}

// firstRune is a one-character setting (separator, quote character); ok
// is false unless it is exactly one character.
func firstRune(s string) (rune, bool) {
	r, size := utf8.DecodeRuneInString(s)
	return r, size > 0 && size == len(s) && r != utf8.RuneError
}

// reloading keeps a key-value table an adapter loaded from a file or a
// URL, loading it again when it is due: at most once per interval, asked
// by a lookup. The first load waits; later ones run while lookups use the
// table loaded before.
type reloading struct {
	// load returns the table, or nil when it has not changed since the
	// last load.
	load       func(ctx context.Context) (map[string]string, error)
	interval   time.Duration
	now        func() time.Time
	background bool

	mu   sync.Mutex // held by the load under way
	data atomic.Pointer[map[string]string]
	next atomic.Int64 // when the next load is due, unix nanoseconds
	err  atomic.Pointer[string]
}

// table returns the loaded table, loading it when due.
func (r *reloading) table(ctx context.Context) map[string]string {
	if p := r.data.Load(); p == nil {
		r.mu.Lock()
		if r.data.Load() == nil {
			r.reload(ctx)
		}
		r.mu.Unlock()
	} else if r.now().UnixNano() >= r.next.Load() && r.mu.TryLock() {
		if r.background {
			go func() {
				defer r.mu.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				r.reload(ctx)
			}()
		} else {
			r.reload(ctx)
			r.mu.Unlock()
		}
	}
	if p := r.data.Load(); p != nil {
		return *p
	}
	return nil
}

// reload loads the table; a failure keeps the table loaded before and is
// the adapter's error state until a load succeeds.
func (r *reloading) reload(ctx context.Context) {
	r.next.Store(r.now().Add(r.interval).UnixNano())
	m, err := r.load(ctx)
	if err != nil {
		msg := err.Error()
		r.err.Store(&msg)
		if r.data.Load() == nil {
			// Lookups answer with errors, not a wait per lookup.
			r.data.Store(&map[string]string{})
		}
		return
	}
	r.err.Store(nil)
	if m != nil || r.data.Load() == nil {
		if m == nil {
			m = map[string]string{}
		}
		r.data.Store(&m)
	}
}

// failure is the error of the last load, if it failed.
func (r *reloading) failure() string {
	if p := r.err.Load(); p != nil {
		return *p
	}
	return ""
}
