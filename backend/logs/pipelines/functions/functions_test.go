package functions_test

import (
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/pipelines/functions"
)

var testNow = time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)

func library() *functions.Library {
	return functions.New(functions.Deps{Now: func() time.Time { return testNow }, Streams: fakeStreams{}})
}

type fakeStreams struct{}

func (fakeStreams) Enabled(id string) bool { return id == "s1" || id == "s2" }
func (fakeStreams) EnabledTitled(title string) []string {
	if title == "Errors" {
		return []string{"s1"}
	}
	return nil
}

func TestFunctionCount(t *testing.T) {
	n := len(library().All())
	t.Logf("%d functions", n)
	if n < 90 {
		t.Errorf("%d functions", n)
	}
}
