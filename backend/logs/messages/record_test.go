package messages

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

func TestRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
	}{
		{"minimal", Message{ID: "a", Timestamp: time.UnixMilli(0).UTC(), Fields: []Field{}}},
		{"every type", Message{
			ID:        "2b7e4c1a-0f0e-4d7a-9c6d-8f5d3b1a2c3d",
			Timestamp: time.UnixMilli(1700000000123).UTC(),
			Streams:   []string{"000000000000000000000001", "s2"},
			Fields: []Field{
				{"source", "web-1"}, {"message", "GET / 200"},
				{"level", int64(6)}, {"big", int64(math.MaxInt64)}, {"neg", int64(-42)},
				{"ratio", 0.25}, {"nan", math.Inf(-1)}, {"ok", true}, {"bad", false},
				{"empty", ""}, {"utf8", "grüße ✓"},
			},
		}},
		{"before epoch", Message{ID: "x", Timestamp: time.UnixMilli(-5000).UTC(), Fields: []Field{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.msg.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Message
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.msg) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, tt.msg)
			}
		})
	}
}

func TestRecordRejects(t *testing.T) {
	good, _ := (&Message{ID: "id", Timestamp: time.UnixMilli(1).UTC(), Fields: []Field{{"k", "v"}}}).MarshalBinary()
	tests := map[string][]byte{
		"empty":        nil,
		"version":      append([]byte{9}, good[1:]...),
		"truncated":    good[:len(good)-1],
		"trailing":     append(append([]byte{}, good...), 0),
		"huge count":   {recordVersion, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"unknown type": {recordVersion, 0, 0, 0, 1, 1, 'k', 'x'},
	}
	for name, b := range tests {
		t.Run(name, func(t *testing.T) {
			var m Message
			if err := m.UnmarshalBinary(b); !errors.Is(err, ErrBadRecord) {
				t.Fatalf("err = %v, want ErrBadRecord", err)
			}
		})
	}
	if _, err := (&Message{Fields: []Field{{"k", []int{1}}}}).MarshalBinary(); err == nil {
		t.Fatal("MarshalBinary accepted an unsupported type")
	}
}

// TestRecordReader reads records as UnmarshalBinary does, with a field
// name read before shared, not copied again, and no more names remembered
// than maxRecordKeys.
func TestRecordReader(t *testing.T) {
	var rr RecordReader
	read := func(m Message) Message {
		t.Helper()
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var got, want Message
		if err := rr.Read(&got, b); err != nil {
			t.Fatal(err)
		}
		if err := want.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Read:\n got %#v\nwant %#v", got, want)
		}
		return got
	}
	msg := func(key string) Message {
		return Message{ID: "id", Timestamp: time.UnixMilli(1).UTC(), Streams: []string{"s"},
			Fields: []Field{{key, "v"}, {"n", int64(300)}, {"f", 0.5}, {"t", true}}}
	}
	first, second := read(msg("service")), read(msg("service"))
	if unsafe.StringData(first.Fields[0].Key) != unsafe.StringData(second.Fields[0].Key) {
		t.Error("a field name read twice is two strings")
	}
	for i := len(rr.keys); i < maxRecordKeys+10; i++ {
		read(msg(fmt.Sprintf("k%d", i)))
	}
	if len(rr.keys) != maxRecordKeys {
		t.Errorf("%d field names remembered, want at most %d", len(rr.keys), maxRecordKeys)
	}
}

// FuzzRecord: no input panics the decoder or makes it allocate beyond the
// input's size, and whatever it accepts re-encodes to the same bytes.
func FuzzRecord(f *testing.F) {
	seed, _ := (&Message{ID: "id", Timestamp: time.UnixMilli(1700000000000).UTC(), Streams: []string{"s"},
		Fields: []Field{{"a", "b"}, {"n", int64(1)}, {"f", 1.5}, {"t", true}}}).MarshalBinary()
	f.Add(seed)
	f.Add([]byte{recordVersion})
	var rr RecordReader
	f.Fuzz(func(t *testing.T, b []byte) {
		var m, read Message
		err := m.UnmarshalBinary(b)
		if rerr := rr.Read(&read, b); (rerr == nil) != (err == nil) {
			t.Fatalf("RecordReader.Read: %v, UnmarshalBinary: %v", rerr, err)
		}
		if err != nil {
			return
		}
		again, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if viaReader, _ := read.MarshalBinary(); !bytes.Equal(viaReader, again) {
			t.Fatalf("RecordReader.Read and UnmarshalBinary differ:\n%x\n%x", viaReader, again)
		}
		var m2 Message
		if err := m2.UnmarshalBinary(again); err != nil {
			t.Fatalf("re-encoded record rejected: %v", err)
		}
		// Bytes, not DeepEqual: a NaN field is stable but never equal.
		third, _ := m2.MarshalBinary()
		if !bytes.Equal(again, third) {
			t.Fatalf("not stable:\n%x\n%x", again, third)
		}
	})
}

func BenchmarkRecord(b *testing.B) {
	m := Message{ID: "2b7e4c1a-0f0e-4d7a-9c6d-8f5d3b1a2c3d", Timestamp: time.Now().UTC(),
		Fields: []Field{{"source", "web-1"}, {"message", "GET /index.html 200 1532 0.012"}, {"level", int64(6)},
			{"gl2_source_input", "5fd0e2a1c1d2e3f4a5b6c7d8"}, {"user_id", "u-1234"}, {"took", 0.012}}}
	buf, _ := m.MarshalBinary()
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		out := make([]byte, 0, 512)
		for b.Loop() {
			out, _ = m.AppendBinary(out[:0])
		}
	})
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		var rr RecordReader
		var got Message
		for b.Loop() {
			_ = rr.Read(&got, buf)
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		var got Message
		for b.Loop() {
			_ = got.UnmarshalBinary(buf)
		}
	})
}

// TestRecordReaderShared: what a RecordReader read stays as it was when
// the record's bytes are reused and more records are read, and every
// message has SpareFields of room that is its own.
func TestRecordReaderShared(t *testing.T) {
	var rr RecordReader
	var got []Message
	var want []Message
	buf := make([]byte, 0, 1024)
	for i := range 500 {
		m := Message{ID: fmt.Sprintf("id-%d", i), Timestamp: time.UnixMilli(int64(i)).UTC(),
			Fields: []Field{{"message", fmt.Sprintf("text %d", i)}, {"n", int64(i * 1000)}, {"f", float64(i) / 7}, {"b", i%2 == 0}}}
		var err error
		if buf, err = m.AppendBinary(buf[:0]); err != nil {
			t.Fatal(err)
		}
		var read Message
		if err := rr.Read(&read, buf); err != nil {
			t.Fatal(err)
		}
		clear(buf[:cap(buf)])
		if cap(read.Fields)-len(read.Fields) != SpareFields {
			t.Fatalf("message %d: %d spare fields, want %d", i, cap(read.Fields)-len(read.Fields), SpareFields)
		}
		got, want = append(got, read), append(want, m)
	}
	for i := range got {
		// Filling one message's spare room leaves the others as they were.
		for k := range SpareFields + 1 {
			got[i].Fields = append(got[i].Fields, Field{fmt.Sprintf("added%d", k), "x"})
		}
		got[i].Fields = got[i].Fields[:len(want[i].Fields)]
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("messages read changed")
	}
}

// TestAppendRecordHead: a record written from its parts is the record of
// the Message with those parts.
func TestAppendRecordHead(t *testing.T) {
	m := Message{ID: "2b7e4c1a-0f0e-4d7a-9c6d-8f5d3b1a2c3d", Timestamp: time.UnixMilli(1700000000123).UTC(),
		Fields: []Field{{"message", "GET / 200"}, {"level", int64(6)}, {"big", int64(-math.MaxInt64)}, {"took", 0.25}, {"empty", ""}}}
	want, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got := AppendRecordHead([]byte("prefix"), []byte(m.ID), m.Timestamp, len(m.Fields))
	got = AppendStringField(got, "message", []byte("GET / 200"))
	got = AppendIntField(got, "level", 6)
	got = AppendIntField(got, "big", -math.MaxInt64)
	got = AppendFloatField(got, "took", 0.25)
	got = AppendStringField(got, "empty", "")
	if !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("record from parts:\n%x\nwant\n%x", got[len("prefix"):], want)
	}
}
