package loggers_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/router/api"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in     string
		want   loggers.Level
		name   string
		syslog int
	}{
		{"trace", loggers.LevelTrace, "trace", 600},
		{"TRACE", loggers.LevelTrace, "trace", 600},
		{"debug", loggers.LevelDebug, "debug", 500},
		{"Debug", loggers.LevelDebug, "debug", 500},
		{"info", loggers.LevelInfo, "info", 400},
		{"INFO", loggers.LevelInfo, "info", 400},
		{"warn", loggers.LevelWarn, "warn", 300},
		{"wArN", loggers.LevelWarn, "warn", 300},
		{"error", loggers.LevelError, "error", 200},
		{"ERROR", loggers.LevelError, "error", 200},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := loggers.ParseLevel(tt.in)
			if err != nil {
				t.Fatalf("ParseLevel(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseLevel(%q) = %d, want %d", tt.in, got, tt.want)
			}
			if got.String() != tt.name {
				t.Errorf("String() = %q, want %q", got.String(), tt.name)
			}
			if got.Syslog() != tt.syslog {
				t.Errorf("Syslog() = %d, want %d", got.Syslog(), tt.syslog)
			}
		})
	}
}

func TestLog4jLevels(t *testing.T) {
	for name, syslog := range map[string]int{"fatal": 100, "off": 0, "all": 2147483647, "ERROR": 200} {
		l, err := loggers.ParseLevel(name)
		if err != nil || l.Syslog() != syslog {
			t.Errorf("%s: %v syslog %d, want %d", name, err, l.Syslog(), syslog)
		}
	}
	if !(loggers.LevelAll < loggers.LevelTrace && loggers.LevelFatal > loggers.LevelError && loggers.LevelOff > loggers.LevelFatal) {
		t.Error("levels out of order")
	}
}

func TestParseLevelUnknown(t *testing.T) {
	// Graylog would fall back to DEBUG for all of these; loggate refuses.
	for _, in := range []string{"", "verbose", "warning", "info ", " info", "inf", "infoo", "\u212Aelvin", "İNFO"} {
		t.Run(in, func(t *testing.T) {
			_, err := loggers.ParseLevel(in)
			if err == nil {
				t.Fatalf("ParseLevel(%q) succeeded", in)
			}
			if code := api.ErrorCode(err); code != api.Invalid {
				t.Errorf("code = %v, want Invalid", code)
			}
			var ae *api.Error
			if !errors.As(err, &ae) {
				t.Fatalf("error %T is not an *api.Error", err)
			}
			want := `Unknown log level ` + strconv.Quote(in) + `; use one of trace, debug, info, warn, error, fatal, off, all`
			if ae.Message != want {
				t.Errorf("message = %q, want %q", ae.Message, want)
			}
		})
	}
}

func TestLevelOutsideTheFive(t *testing.T) {
	l := loggers.Level(3)
	if got := l.String(); got != "level(3)" {
		t.Errorf("String() = %q, want level(3)", got)
	}
	if got := l.Syslog(); got != 0 {
		t.Errorf("Syslog() = %d, want 0", got)
	}
}

func TestLevelSlogOrder(t *testing.T) {
	order := []loggers.Level{loggers.LevelTrace, loggers.LevelDebug, loggers.LevelInfo, loggers.LevelWarn, loggers.LevelError}
	for i := 1; i < len(order); i++ {
		if order[i-1].Slog() >= order[i].Slog() {
			t.Errorf("%v (%d) is not below %v (%d)", order[i-1], order[i-1].Slog(), order[i], order[i].Slog())
		}
	}
	if loggers.LevelDebug.Slog() != slog.LevelDebug || loggers.LevelError.Slog() != slog.LevelError {
		t.Errorf("debug/error do not match slog's levels")
	}
}

func TestLevelText(t *testing.T) {
	for _, l := range []loggers.Level{loggers.LevelTrace, loggers.LevelDebug, loggers.LevelInfo, loggers.LevelWarn, loggers.LevelError} {
		text, err := l.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%v): %v", l, err)
		}
		var back loggers.Level
		if err := back.UnmarshalText(bytes.ToUpper(text)); err != nil {
			t.Fatalf("UnmarshalText(%q): %v", text, err)
		}
		if back != l {
			t.Errorf("round trip of %v gave %v", l, back)
		}
	}
	back := loggers.LevelWarn
	if err := back.UnmarshalText([]byte("loud")); err == nil {
		t.Error("UnmarshalText(loud) succeeded")
	}
	if back != loggers.LevelWarn {
		t.Errorf("failed UnmarshalText changed the level to %v", back)
	}
}

func TestReplaceAttr(t *testing.T) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: loggers.LevelTrace.Slog(), ReplaceAttr: loggers.ReplaceAttr})
	logger := slog.New(h)
	logger.Log(t.Context(), loggers.LevelTrace.Slog(), "t")
	logger.Debug("d")
	out := buf.String()
	for _, want := range []string{"level=TRACE msg=t", "level=DEBUG msg=d"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}
