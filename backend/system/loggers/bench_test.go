package loggers_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
)

// nopSink passes everything and keeps nothing, so that the benchmarks
// measure the filter and not a formatter.
type nopSink struct{}

func (nopSink) Enabled(context.Context, slog.Level) bool  { return true }
func (nopSink) Handle(context.Context, slog.Record) error { return nil }
func (s nopSink) WithAttrs([]slog.Attr) slog.Handler      { return s }
func (s nopSink) WithGroup(string) slog.Handler           { return s }

func benchLogger(b *testing.B) *slog.Logger {
	b.Helper()
	levels := loggers.New(nopSink{})
	lg := levels.Logger("loggate.inputs.gelf.udp")
	if err := levels.SetLevel("loggate.inputs", loggers.LevelInfo); err != nil {
		b.Fatal(err)
	}
	return lg
}

func BenchmarkEnabled(b *testing.B) {
	h := benchLogger(b).Handler()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if h.Enabled(ctx, slog.LevelDebug) {
			b.Fatal("debug enabled at info")
		}
	}
}

func BenchmarkDisabledDebug(b *testing.B) {
	lg := benchLogger(b)
	b.ReportAllocs()
	for b.Loop() {
		lg.Debug("message received", "size", 42, "source", "10.0.0.1")
	}
}

func BenchmarkEnabledInfo(b *testing.B) {
	lg := benchLogger(b)
	b.ReportAllocs()
	for b.Loop() {
		lg.Info("message received", "size", 42, "source", "10.0.0.1")
	}
}

// BenchmarkEnabledParallel shows that concurrent loggers share no lock.
func BenchmarkEnabledParallel(b *testing.B) {
	h := benchLogger(b).Handler()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			h.Enabled(ctx, slog.LevelDebug)
		}
	})
}
