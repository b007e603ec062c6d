package loggers

import (
	"context"
	"log/slog"
)

// Marker counts events; *metrics.Meter satisfies it.
type Marker interface{ Mark(n int64) }

// appenderMetric is the prefix of log4j's appender meters, which Graylog's
// logging page reads ("has written a total of n internal log messages").
const appenderMetric = "org.apache.logging.log4j.core.Appender."

// CountRecords returns next counting each record it writes in log4j's
// appender meters: ….all, and one per level (….trace … ….fatal).
func CountRecords(next slog.Handler, meter func(name string) Marker) slog.Handler {
	c := &counting{next: next, all: meter(appenderMetric + "all")}
	for i, name := range []string{"trace", "debug", "info", "warn", "error", "fatal"} {
		c.levels[i] = meter(appenderMetric + name)
	}
	return c
}

type counting struct {
	next   slog.Handler
	all    Marker
	levels [6]Marker // trace, debug, info, warn, error, fatal
}

func (c *counting) Enabled(ctx context.Context, l slog.Level) bool { return c.next.Enabled(ctx, l) }

func (c *counting) Handle(ctx context.Context, r slog.Record) error {
	c.all.Mark(1)
	c.levels[levelIndex(r.Level)].Mark(1)
	return c.next.Handle(ctx, r)
}

// levelIndex places a record's level among log4j's six.
func levelIndex(l slog.Level) int {
	switch {
	case l < LevelDebug.Slog():
		return 0
	case l < LevelInfo.Slog():
		return 1
	case l < LevelWarn.Slog():
		return 2
	case l < LevelError.Slog():
		return 3
	case l < LevelFatal.Slog():
		return 4
	}
	return 5
}

func (c *counting) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *c
	n.next = c.next.WithAttrs(attrs)
	return &n
}

func (c *counting) WithGroup(name string) slog.Handler {
	n := *c
	n.next = c.next.WithGroup(name)
	return &n
}
