// Package loggers is loggate's own logging: slog loggers named with dots,
// each with a level that can change at run time, and Graylog's
// /system/loggers resource that shows and changes those levels.
//
// Levels follow Log4j: a logger's effective level is that of its nearest
// configured ancestor by dotted prefix, so configuring "loggate.auth" to
// debug makes "loggate.auth.ldap" log at debug unless it is configured
// itself.
package loggers

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/loggate/loggate/router/api"
)

// RootName is the logger all of loggate's loggers descend from.
const RootName = "loggate"

// defaultLevel applies to RootName until it is changed, and to names outside
// it that have no configured ancestor.
const defaultLevel = LevelInfo

// Levels holds the configured levels and the loggers handed out. Changing a
// level recomputes the effective level of every affected logger once, so that
// a logging call only does an atomic load to decide whether to log.
type Levels struct {
	sink slog.Handler
	// recent answers /system/loggers/messages/recent; nil when not kept.
	recent *Recent

	mu         sync.Mutex
	configured map[string]Level
	loggers    map[string]*node
}

// node is one logger handed out by Logger. Its level is the effective level,
// kept up to date by SetLevel.
type node struct {
	level  slog.LevelVar
	logger *slog.Logger
}

// New returns levels that send records to sink. The sink should let every
// level through (its own level at trace or below): the per-logger levels
// decide, and the sink's own Enabled is still consulted.
func New(sink slog.Handler) *Levels {
	return &Levels{
		sink:       sink,
		configured: map[string]Level{RootName: defaultLevel},
		loggers:    map[string]*node{},
	}
}

// Logger returns the logger called name, such as "loggate.auth". Its records
// carry the attribute logger=<name> and pass when their level is at least the
// effective level of name. The same name always yields the same logger.
//
// Names are not checked: a name that is not a dotted identifier still
// inherits from its dotted prefixes but cannot be set through the API.
func (l *Levels) Logger(name string) *slog.Logger {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.loggers[name]; ok {
		return n.logger
	}
	n := &node{}
	n.level.Set(l.effectiveLocked(name).Slog())
	n.logger = slog.New(&filter{
		level: &n.level,
		next:  l.sink.WithAttrs([]slog.Attr{slog.String("logger", name)}),
	})
	l.loggers[name] = n
	return n.logger
}

// SetLevel configures the level of name, creating the configuration if there
// is none, as Graylog does. Loggers already handed out under name, and those
// below it without a configuration of their own, change at once. It returns
// an api.Invalid error for a name that is not a dotted identifier (see
// CheckName) or a level that is none of the five.
// MaxConfigured bounds the logger configurations SetLevel creates: names
// come from API callers, and each one is kept for the process's life.
const MaxConfigured = 1000

func (l *Levels) SetLevel(name string, level Level) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if !level.valid() {
		return invalidLevel(level)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.configured[name]; !ok && len(l.configured) >= MaxConfigured {
		return api.Errorf(api.Invalid, "Too many logger configurations (%d); set the level of a parent logger instead", MaxConfigured)
	}
	l.configured[name] = level
	prefix := name + "."
	for n, nd := range l.loggers {
		if n == name || strings.HasPrefix(n, prefix) {
			nd.level.Set(l.effectiveLocked(n).Slog())
		}
	}
	return nil
}

// Effective returns the level that applies to name: its own if configured,
// else that of its nearest configured ancestor, else info.
func (l *Levels) Effective(name string) Level {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.effectiveLocked(name)
}

func (l *Levels) effectiveLocked(name string) Level {
	for {
		if lvl, ok := l.configured[name]; ok {
			return lvl
		}
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			return defaultLevel
		}
		name = name[:i]
	}
}

// snapshot returns the effective level of every configured logger and every
// logger handed out, the listing of GET /system/loggers.
func (l *Levels) snapshot() map[string]Level {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]Level, len(l.configured)+len(l.loggers))
	for name, lvl := range l.configured {
		out[name] = lvl
	}
	for name := range l.loggers {
		if _, ok := out[name]; !ok {
			out[name] = l.effectiveLocked(name)
		}
	}
	return out
}
