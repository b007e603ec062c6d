package extractors_test

import (
	"context"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/extractors"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/internal/testclock"
)

// TestChangesReachOtherNodes: a node sharing the store runs another
// node's new extractor and static field within a second of the change.
func TestChangesReachOtherNodes(t *testing.T) {
	e := newEnv(t)
	clk := testclock.New(epoch)
	other, err := extractors.NewService(context.Background(), e.st, grokStore.svc, extractors.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	run := func() *messages.Message {
		m := &messages.Message{Fields: []messages.Field{{Key: "message", Value: "took 7 ms"}, {Key: messages.FieldSourceInput, Value: e.input}}}
		other.Filter().Process(context.Background(), []*messages.Message{m})
		return m
	}
	run() // the other node has checked for changes now
	e.create(terraformBody)
	if _, ok := run().Get("took_ms"); ok {
		t.Fatal("the other node saw the change before it asked the store")
	}
	clk.Advance(time.Second)
	if v, _ := run().Get("took_ms"); v != int64(7) {
		t.Errorf("a second later the other node extracted %v, want 7", v)
	}
	if err := e.svc.AddStaticField(context.Background(), e.input, ptr("dc"), ptr("ber")); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if v, _ := run().Get("dc"); v != "ber" {
		t.Errorf("static field on the other node: %v", v)
	}
}

func ptr(s string) *string { return &s }
