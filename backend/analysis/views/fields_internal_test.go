package views

import (
	"fmt"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

func TestObserve(t *testing.T) {
	f := NewFields(nil, nil, nil)
	msg := func(fields ...messages.Field) messages.Message { return messages.Message{Fields: fields} }
	// A large batch: a field every message has is recorded from the spread.
	var batch []messages.Message
	for i := range 1000 {
		batch = append(batch, msg(messages.Field{Key: "n", Value: int64(i)}, messages.Field{Key: "message", Value: "x"}))
	}
	f.Observe("p", batch)
	// Small batches: every message; types widen or fall back to string.
	f.Observe("p", []messages.Message{msg(messages.Field{Key: "n", Value: 1.5}), msg(messages.Field{Key: "s", Value: int64(1)})})
	f.Observe("p", []messages.Message{msg(messages.Field{Key: "s", Value: "one"}, messages.Field{Key: "b", Value: true})})
	want := map[string]string{"n": typeDouble, "message": typeFullText, "s": typeString, "b": typeBoolean,
		messages.FieldTimestamp: typeDate, messages.FieldStreams: typeString}
	if got := f.seen["p"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("seen %v, want %v", got, want)
	}
}

func TestCompoundType(t *testing.T) {
	got := dto([]string{typeLong, typeString}, []string{"a_0", "b_0"})
	if got.Type != "compound(long,string)" || fmt.Sprint(got.Properties) != "[enumerable compound]" {
		t.Errorf("%+v", got)
	}
	if got := dto([]string{typeFullText}, nil); got.Type != typeString || fmt.Sprint(got.Properties) != "[full-text-search]" {
		t.Errorf("%+v", got)
	}
}
