package loggers_test

import (
	"context"
	"log/slog"
	"sync"
)

// record is what the capture sink keeps of a record: its level, message and
// every attribute (from With and from the call) flattened to key=value with
// groups as dotted prefixes.
type record struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

// capture is a test sink. min is its own threshold, to show that the sink's
// Enabled still counts.
type capture struct {
	mu      *sync.Mutex
	records *[]record
	min     slog.Level
	group   string
	attrs   []slog.Attr
}

func newCapture(min slog.Level) *capture {
	return &capture{mu: &sync.Mutex{}, records: &[]record{}, min: min}
}

func (c *capture) Enabled(_ context.Context, l slog.Level) bool { return l >= c.min }

func (c *capture) Handle(_ context.Context, r slog.Record) error {
	rec := record{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range c.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[c.group+a.Key] = a.Value.String()
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.records = append(*c.records, rec)
	return nil
}

func (c *capture) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *c
	n.attrs = append([]slog.Attr(nil), c.attrs...)
	for _, a := range attrs {
		n.attrs = append(n.attrs, slog.Attr{Key: c.group + a.Key, Value: a.Value})
	}
	return &n
}

func (c *capture) WithGroup(name string) slog.Handler {
	n := *c
	n.group = c.group + name + "."
	return &n
}

// take returns the records so far and forgets them.
func (c *capture) take() []record {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := *c.records
	*c.records = nil
	return out
}
