package loggers

import (
	"io"
	"log/slog"
	"math"
	"strconv"

	"github.com/loggate/loggate/router/api"
)

// Level is the severity threshold of a logger. Its values are slog levels, so
// a Level converts to slog.Level without a table; trace sits one slog step
// below debug, where slog leaves room for finer levels.
type Level slog.Level

// Log4j's levels, as Graylog's logger resource and web interface offer them,
// from the most verbose. all and off are thresholds only: nothing is logged
// at them.
const (
	LevelAll   = Level(slog.LevelDebug - 8)
	LevelTrace = Level(slog.LevelDebug - 4)
	LevelDebug = Level(slog.LevelDebug)
	LevelInfo  = Level(slog.LevelInfo)
	LevelWarn  = Level(slog.LevelWarn)
	LevelError = Level(slog.LevelError)
	LevelFatal = Level(slog.LevelError + 4)
	LevelOff   = Level(1 << 30)
)

// levelNames is in the order of the error message for an unknown level.
var levelNames = [...]struct {
	name   string
	level  Level
	syslog int
}{
	{"trace", LevelTrace, 600},
	{"debug", LevelDebug, 500},
	{"info", LevelInfo, 400},
	{"warn", LevelWarn, 300},
	{"error", LevelError, 200},
	{"fatal", LevelFatal, 100},
	{"off", LevelOff, 0},
	{"all", LevelAll, math.MaxInt32},
}

const knownLevels = "trace, debug, info, warn, error, fatal, off, all"

// ParseLevel parses a level name case-insensitively. Unlike Graylog, which
// quietly falls back to DEBUG, an unknown name is an api.Invalid error: a
// typo should not flood the log.
func ParseLevel(s string) (Level, error) {
	for _, n := range levelNames {
		if equalFoldASCII(s, n.name) {
			return n.level, nil
		}
	}
	return 0, api.Errorf(api.Invalid, "Unknown log level %q; use one of %s", s, knownLevels)
}

// equalFoldASCII is strings.EqualFold without Unicode folding, so that no
// look-alike such as the Kelvin sign spells a level name.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// String returns the lower-case name Graylog shows, or level(n) for a value
// that is none of the named levels.
func (l Level) String() string {
	for _, n := range levelNames {
		if n.level == l {
			return n.name
		}
	}
	return "level(" + strconv.Itoa(int(l)) + ")"
}

// Syslog returns Log4j2's intLevel, which Graylog reports as level_syslog:
// OFF 0, FATAL 100, ERROR 200, WARN 300, INFO 400, DEBUG 500, TRACE 600,
// ALL MaxInt32. It is 0 for a value that is none of the levels.
func (l Level) Syslog() int {
	for _, n := range levelNames {
		if n.level == l {
			return n.syslog
		}
	}
	return 0
}

// Slog returns the level as a slog.Level, for Logger.Log at trace.
func (l Level) Slog() slog.Level { return slog.Level(l) }

// valid reports whether l is one of the named levels.
func (l Level) valid() bool {
	for _, n := range levelNames {
		if n.level == l {
			return true
		}
	}
	return false
}

// MarshalText writes the level's name, so that configuration files and JSON
// carry "debug" rather than -4.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses a level name with ParseLevel.
func (l *Level) UnmarshalText(text []byte) error {
	v, err := ParseLevel(string(text))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ReplaceAttr is a slog.HandlerOptions.ReplaceAttr for the sink that names
// loggate's levels as Log4j does (TRACE, FATAL) instead of slog's DEBUG-4
// and ERROR+4.
func ReplaceAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.LevelKey {
		if lvl, ok := a.Value.Any().(slog.Level); ok {
			switch Level(lvl) {
			case LevelTrace:
				a.Value = slog.StringValue("TRACE")
			case LevelFatal:
				a.Value = slog.StringValue("FATAL")
			}
		}
	}
	return a
}

// NewTextSink returns the text sink loggate logs to: every level passes (the
// Levels decide), level names as Log4j's.
func NewTextSink(w io.Writer) slog.Handler {
	return slog.NewTextHandler(w, &slog.HandlerOptions{Level: LevelAll.Slog(), ReplaceAttr: ReplaceAttr})
}

func invalidLevel(l Level) error {
	return api.Errorf(api.Invalid, "Unknown log level %s; use one of %s", l, knownLevels)
}
