package processing

import (
	"reflect"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

func TestForIndex(t *testing.T) {
	ts := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name string
		in   []messages.Field
		want []messages.Field
	}{
		{
			name: "sizes as Message.getSize: names and values in UTF-16 units, numbers by Java type",
			in: []messages.Field{
				{Key: "message", Value: "héllo 😀"},        // 7 + 8 (the emoji is two units)
				{Key: "source", Value: "web"},             // 6 + 3
				{Key: "level", Value: int64(6)},           // 5 + 4
				{Key: "took", Value: 1.5},                 // 4 + 8
				{Key: "line", Value: int64(42)},           // 4 + 8
				{Key: "gl2_remote_port", Value: int64(9)}, // 15 + 4
				{Key: "ok", Value: true},                  // 2 + 1
			},
			want: []messages.Field{
				{Key: "message", Value: "héllo 😀"}, {Key: "source", Value: "web"}, {Key: "level", Value: int64(6)},
				{Key: "took", Value: 1.5}, {Key: "line", Value: int64(42)}, {Key: "gl2_remote_port", Value: int64(9)}, {Key: "ok", Value: true},
				// + timestamp 9 + 8
				{Key: "gl2_accounted_message_size", Value: int64(15 + 9 + 9 + 12 + 12 + 19 + 3 + 17)},
			},
		},
		{
			name: "dots become underscores; a clash drops the dotted field; a client's size is replaced",
			in: []messages.Field{
				{Key: "a.b", Value: "x"}, // 3 + 1
				{Key: "c.d", Value: "y"}, // 3 + 1, dropped
				{Key: "c_d", Value: "z"}, // 3 + 1
				{Key: "gl2_accounted_message_size", Value: int64(1)},
			},
			want: []messages.Field{
				{Key: "a_b", Value: "x"}, {Key: "c_d", Value: "z"},
				{Key: "gl2_accounted_message_size", Value: int64(4 + 4 + 4 + 17)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := messages.Message{ID: "id", Timestamp: ts, Fields: tt.in}
			before := append([]messages.Field(nil), tt.in...)
			got := new(indexer).forIndex(m)
			if !reflect.DeepEqual(got.Fields, tt.want) {
				t.Errorf("fields %v\nwant   %v", got.Fields, tt.want)
			}
			if !reflect.DeepEqual(m.Fields, before) {
				t.Errorf("the message itself changed: %v", m.Fields)
			}
		})
	}
}

// TestForIndexInPlace: a message whose names need no change is indexed in
// the spare room of its own fields, and the message kept for outputs
// (shared) cannot grow into the indexed copy's field.
func TestForIndexInPlace(t *testing.T) {
	ts := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	fields := func(room int, keys ...string) []messages.Field {
		fs := make([]messages.Field, 0, len(keys)+room)
		for _, k := range keys {
			fs = append(fs, messages.Field{Key: k, Value: "v"})
		}
		return fs
	}
	tests := []struct {
		name    string
		fields  []messages.Field
		inPlace bool
	}{
		{"room and plain names", fields(2, "message", "source"), true},
		{"no room", fields(0, "message", "source"), false},
		{"a dotted name", fields(2, "message", "http.path"), false},
		{"a size of the client's", fields(2, "message", messages.FieldAccountedSize), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := messages.Message{ID: "id", Timestamp: ts, Fields: tt.fields}
			got := new(indexer).forIndex(m)
			last := got.Fields[len(got.Fields)-1]
			if last.Key != messages.FieldAccountedSize {
				t.Fatalf("last indexed field %v", last)
			}
			if same := &got.Fields[0] == &m.Fields[0]; same != tt.inPlace {
				t.Fatalf("indexed in the message's own fields: %v, want %v", same, tt.inPlace)
			}
			kept := append(shared(m.Fields), messages.Field{Key: "added", Value: "by an output"})
			if got.Fields[len(got.Fields)-1] != last || len(kept) != len(m.Fields)+1 {
				t.Fatalf("an append to the kept message changed the indexed one: %v", got.Fields)
			}
		})
	}
}
