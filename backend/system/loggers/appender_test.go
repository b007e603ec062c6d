package loggers_test

import (
	"log/slog"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
)

type count struct{ n int64 }

func (c *count) Mark(n int64) { c.n += n }

// Every record written is counted once in ….all and once in its level's
// meter; records below the threshold are not written, so not counted.
func TestCountRecords(t *testing.T) {
	meters := map[string]*count{}
	sink := loggers.CountRecords(newCapture(slog.LevelDebug), func(name string) loggers.Marker {
		meters[name] = &count{}
		return meters[name]
	})
	levels := loggers.New(sink)
	log := levels.Logger("loggate.test").With("k", "v").WithGroup("g")
	log.Info("one")
	log.Warn("two")
	log.Error("three")
	log.Error("four")
	log.Debug("not written at the default info level")
	for name, want := range map[string]int64{"all": 4, "info": 1, "warn": 1, "error": 2, "debug": 0, "trace": 0, "fatal": 0} {
		if got := meters["org.apache.logging.log4j.core.Appender."+name].n; got != want {
			t.Errorf("Appender.%s = %d, want %d", name, got, want)
		}
	}
}
