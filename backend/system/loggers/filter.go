package loggers

import (
	"context"
	"log/slog"
)

// filter passes the records of one logger that reach its effective level.
// The level is shared with the logger's node, so SetLevel takes effect
// without rebuilding loggers, and Enabled stays one atomic load.
type filter struct {
	level *slog.LevelVar
	next  slog.Handler
}

func (f *filter) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= f.level.Level() && f.next.Enabled(ctx, level)
}

func (f *filter) Handle(ctx context.Context, r slog.Record) error {
	return f.next.Handle(ctx, r)
}

func (f *filter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &filter{level: f.level, next: f.next.WithAttrs(attrs)}
}

func (f *filter) WithGroup(name string) slog.Handler {
	return &filter{level: f.level, next: f.next.WithGroup(name)}
}
