package loggers_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/router/api"
)

// step is one action on Levels: obtain a logger (get) or set a level.
type step struct {
	get   string
	set   string
	level loggers.Level
}

func get(name string) step                      { return step{get: name} }
func set(name string, level loggers.Level) step { return step{set: name, level: level} }

func TestEffectiveLevel(t *testing.T) {
	const (
		trace = loggers.LevelTrace
		debug = loggers.LevelDebug
		info  = loggers.LevelInfo
		warn  = loggers.LevelWarn
		errL  = loggers.LevelError
	)
	tests := []struct {
		name  string
		steps []step
		want  map[string]loggers.Level
	}{
		{
			name:  "defaults",
			steps: []step{get("loggate.auth.ldap")},
			want:  map[string]loggers.Level{"loggate": info, "loggate.auth": info, "loggate.auth.ldap": info, "org.other": info, "": info},
		},
		{
			name:  "child inherits parent",
			steps: []step{get("loggate.auth.ldap"), set("loggate.auth", debug)},
			want:  map[string]loggers.Level{"loggate": info, "loggate.auth": debug, "loggate.auth.ldap": debug, "loggate.auth.ldap.bind": debug},
		},
		{
			name:  "prefix stops at a dot",
			steps: []step{get("loggate.authz"), get("loggate.auth"), set("loggate.auth", errL)},
			want:  map[string]loggers.Level{"loggate.authz": info, "loggate.auth": errL},
		},
		{
			name:  "parent set after child keeps child",
			steps: []step{get("loggate.auth.ldap"), get("loggate.auth.x"), set("loggate.auth.ldap", errL), set("loggate.auth", trace)},
			want:  map[string]loggers.Level{"loggate.auth.ldap": errL, "loggate.auth.x": trace, "loggate.auth": trace, "loggate": info},
		},
		{
			name:  "child explicit overrides parent",
			steps: []step{get("loggate.auth.y"), get("loggate.z"), set("loggate.auth", warn), set("loggate", debug)},
			want:  map[string]loggers.Level{"loggate.auth": warn, "loggate.auth.y": warn, "loggate.z": debug, "loggate": debug},
		},
		{
			name:  "logger created after set inherits",
			steps: []step{set("loggate.inputs", debug), get("loggate.inputs.gelf"), get("loggate.inputs")},
			want:  map[string]loggers.Level{"loggate.inputs.gelf": debug, "loggate.inputs": debug, "loggate.indexer": info},
		},
		{
			name:  "root change reaches existing loggers",
			steps: []step{get("loggate.indexer.bulk"), get("loggate"), get("org.other"), set("loggate", trace)},
			want:  map[string]loggers.Level{"loggate.indexer.bulk": trace, "loggate": trace, "org.other": info},
		},
		{
			name:  "set again replaces",
			steps: []step{get("loggate.auth"), set("loggate.auth", trace), set("loggate.auth", errL)},
			want:  map[string]loggers.Level{"loggate.auth": errL},
		},
		{
			name:  "foreign tree has its own root",
			steps: []step{get("org.graylog2.x"), set("org.graylog2", warn)},
			want:  map[string]loggers.Level{"org.graylog2.x": warn, "org": info, "loggate": info},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels := loggers.New(newCapture(slog.Level(-100)))
			got := map[string]*slog.Logger{}
			for _, s := range tt.steps {
				if s.get != "" {
					got[s.get] = levels.Logger(s.get)
					continue
				}
				if err := levels.SetLevel(s.set, s.level); err != nil {
					t.Fatalf("SetLevel(%q, %v): %v", s.set, s.level, err)
				}
			}
			for name, want := range tt.want {
				if eff := levels.Effective(name); eff != want {
					t.Errorf("Effective(%q) = %v, want %v", name, eff, want)
				}
				if lg, ok := got[name]; ok {
					checkEnabled(t, name, lg, want)
				}
			}
		})
	}
}

// checkEnabled asserts that lg passes want and drops the slog level just
// below it.
func checkEnabled(t *testing.T, name string, lg *slog.Logger, want loggers.Level) {
	t.Helper()
	ctx := context.Background()
	if !lg.Enabled(ctx, want.Slog()) {
		t.Errorf("logger %q drops %v", name, want)
	}
	if lg.Enabled(ctx, want.Slog()-1) {
		t.Errorf("logger %q passes %v, below its level %v", name, want.Slog()-1, want)
	}
}

func TestLoggerIsCached(t *testing.T) {
	levels := loggers.New(newCapture(slog.Level(-100)))
	a, b := levels.Logger("loggate.auth"), levels.Logger("loggate.auth")
	if a != b {
		t.Error("Logger returned two loggers for one name")
	}
	if levels.Logger("loggate.indexer") == a {
		t.Error("Logger returned the same logger for two names")
	}
}

func TestLevelChangeReachesSink(t *testing.T) {
	sink := newCapture(slog.Level(-100))
	levels := loggers.New(sink)
	lg := levels.Logger("loggate.auth")
	derived := lg.With("user", "alice").WithGroup("req")
	ctx := context.Background()

	type want struct {
		msg   string
		level slog.Level
	}
	tests := []struct {
		name string
		set  func(t *testing.T)
		log  func()
		want []want
	}{
		{
			name: "default info drops debug",
			log:  func() { lg.Debug("d1"); lg.Info("i1"); derived.Debug("d2") },
			want: []want{{"i1", slog.LevelInfo}},
		},
		{
			name: "root to debug",
			set:  setLevel(levels, "loggate", loggers.LevelDebug),
			log: func() {
				lg.Log(ctx, loggers.LevelTrace.Slog(), "t1")
				lg.Debug("d3")
				derived.Debug("d4")
			},
			want: []want{{"d3", slog.LevelDebug}, {"d4", slog.LevelDebug}},
		},
		{
			name: "own level to trace",
			set:  setLevel(levels, "loggate.auth", loggers.LevelTrace),
			log:  func() { lg.Log(ctx, loggers.LevelTrace.Slog(), "t2") },
			want: []want{{"t2", loggers.LevelTrace.Slog()}},
		},
		{
			name: "own level to error beats root",
			set:  setLevel(levels, "loggate.auth", loggers.LevelError),
			log:  func() { lg.Warn("w1"); derived.Warn("w2"); lg.Error("e1") },
			want: []want{{"e1", slog.LevelError}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.set != nil {
				tt.set(t)
			}
			tt.log()
			got := sink.take()
			if len(got) != len(tt.want) {
				t.Fatalf("sink got %d records %+v, want %+v", len(got), got, tt.want)
			}
			for i, w := range tt.want {
				if got[i].msg != w.msg || got[i].level != w.level {
					t.Errorf("record %d = %s@%v, want %s@%v", i, got[i].msg, got[i].level, w.msg, w.level)
				}
				if l := got[i].attrs["logger"]; l != "loggate.auth" {
					t.Errorf("record %d has logger=%q, want loggate.auth", i, l)
				}
			}
		})
	}
}

func setLevel(levels *loggers.Levels, name string, l loggers.Level) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if err := levels.SetLevel(name, l); err != nil {
			t.Fatalf("SetLevel(%q, %v): %v", name, l, err)
		}
	}
}

func TestDerivedLoggerKeepsAttrs(t *testing.T) {
	sink := newCapture(slog.Level(-100))
	levels := loggers.New(sink)
	levels.Logger("loggate.inputs").With("input", "gelf").WithGroup("conn").Info("open", "peer", "10.0.0.1")
	got := sink.take()
	if len(got) != 1 {
		t.Fatalf("got %d records, want 1", len(got))
	}
	want := map[string]string{"logger": "loggate.inputs", "input": "gelf", "conn.peer": "10.0.0.1"}
	for k, v := range want {
		if got[0].attrs[k] != v {
			t.Errorf("attr %s = %q, want %q (all: %v)", k, got[0].attrs[k], v, got[0].attrs)
		}
	}
}

func TestSinkThresholdStillApplies(t *testing.T) {
	sink := newCapture(slog.LevelWarn)
	levels := loggers.New(sink)
	if err := levels.SetLevel("loggate", loggers.LevelTrace); err != nil {
		t.Fatal(err)
	}
	lg := levels.Logger("loggate.x")
	lg.Info("dropped by the sink")
	lg.Warn("kept")
	got := sink.take()
	if len(got) != 1 || got[0].msg != "kept" {
		t.Errorf("got %+v, want only the warning", got)
	}
}

func TestSetLevelRejects(t *testing.T) {
	tests := []struct {
		name  string
		level loggers.Level
	}{
		{"", loggers.LevelDebug},
		{"a..b", loggers.LevelDebug},
		{"loggers:edit:*", loggers.LevelDebug},
		{"loggate", loggers.Level(3)},
		{"loggate", loggers.LevelTrace - 2},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.level.String(), func(t *testing.T) {
			levels := loggers.New(newCapture(slog.Level(-100)))
			err := levels.SetLevel(tt.name, tt.level)
			if err == nil {
				t.Fatalf("SetLevel(%q, %d) succeeded", tt.name, tt.level)
			}
			if code := api.ErrorCode(err); code != api.Invalid {
				t.Errorf("code = %v, want Invalid", code)
			}
			if got := levels.Effective("loggate"); got != loggers.LevelInfo {
				t.Errorf("failed SetLevel changed loggate to %v", got)
			}
		})
	}
}

// TestConcurrentUse is for -race: logging, obtaining loggers and changing
// levels at once.
func TestConcurrentUse(t *testing.T) {
	sink := newCapture(slog.Level(-100))
	levels := loggers.New(sink)
	all := []loggers.Level{loggers.LevelTrace, loggers.LevelDebug, loggers.LevelInfo, loggers.LevelWarn, loggers.LevelError}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				levels.Logger("loggate.auth").Debug("x", "i", i)
				if err := levels.SetLevel("loggate", all[(g+i)%len(all)]); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := levels.SetLevel("loggate", loggers.LevelError); err != nil {
		t.Fatal(err)
	}
	sink.take()
	levels.Logger("loggate.auth").Warn("after")
	if got := sink.take(); len(got) != 0 {
		t.Errorf("warning passed after setting error: %+v", got)
	}
}

func TestSetLevelBounded(t *testing.T) {
	levels := loggers.New(newCapture(slog.Level(-100)))
	var err error
	created := 0
	for ; created <= 2*loggers.MaxConfigured && err == nil; created++ {
		err = levels.SetLevel(fmt.Sprintf("x.n%d", created), loggers.LevelDebug)
	}
	if api.ErrorCode(err) != api.Invalid || created < loggers.MaxConfigured-5 || created > loggers.MaxConfigured+1 {
		t.Fatalf("stopped after %d with %v; want a 400 at the bound of %d", created, err, loggers.MaxConfigured)
	}
	// Existing ones can still change.
	if err := levels.SetLevel("x.n0", loggers.LevelWarn); err != nil {
		t.Errorf("changing an existing logger: %v", err)
	}
}
