package loggers_test

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
)

func FuzzParseLevel(f *testing.F) {
	for _, s := range []string{"trace", "DEBUG", "Info", "warn", "error", "", "warning", "fatal", "OFF", "All", "İNFO", "\u212Aelvin", "info\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lvl, err := loggers.ParseLevel(s)
		if err != nil {
			if !strings.Contains(err.Error(), "Unknown log level") {
				t.Fatalf("ParseLevel(%q): unexpected error text %q", s, err)
			}
			return
		}
		// Only ASCII case variants of the level names parse. (Syslog is 0
		// for a value that is no level, but also for OFF: the name tells.)
		if strings.ToLower(s) != lvl.String() {
			t.Fatalf("ParseLevel(%q) = %v", s, lvl)
		}
		if strings.HasPrefix(lvl.String(), "level(") {
			t.Fatalf("ParseLevel(%q) = %d, none of the named levels", s, lvl)
		}
		back, err := loggers.ParseLevel(lvl.String())
		if err != nil || back != lvl {
			t.Fatalf("round trip of %v gave %v, %v", lvl, back, err)
		}
	})
}

// dotted is CheckName's rule, said the other way.
var dotted = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// FuzzSetLevel feeds the two path values of PUT /system/loggers/{loggerName}/
// level/{level} to the parsing the handler does, and checks that what is
// accepted takes effect on a logger below the name.
func FuzzSetLevel(f *testing.F) {
	f.Add("loggate.auth", "debug")
	f.Add("org.graylog2", "TRACE")
	f.Add("a..b", "info")
	f.Add(".", "warn")
	f.Add("loggers:edit:*", "error")
	f.Add("a,b", "Info")
	f.Add("x", "verbose")
	f.Add(strings.Repeat("a", loggers.MaxNameLen+1), "info")
	f.Fuzz(func(t *testing.T, name, level string) {
		nameErr := loggers.CheckName(name)
		wantOK := dotted.MatchString(name) && len(name) <= loggers.MaxNameLen
		if (nameErr == nil) != wantOK {
			t.Fatalf("CheckName(%q) = %v, want ok=%v", name, nameErr, wantOK)
		}
		lvl, levelErr := loggers.ParseLevel(level)
		if nameErr != nil || levelErr != nil {
			return
		}
		levels := loggers.New(newCapture(slog.Level(-100)))
		child := levels.Logger(name + ".child")
		if err := levels.SetLevel(name, lvl); err != nil {
			t.Fatalf("SetLevel(%q, %v): %v", name, lvl, err)
		}
		if got := levels.Effective(name + ".child"); got != lvl {
			t.Fatalf("child of %q is %v, want %v", name, got, lvl)
		}
		checkEnabled(t, name+".child", child, lvl)
	})
}
