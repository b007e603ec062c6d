package embedded

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// columnMessages are n messages of varied layouts: streams or none,
// every value type, fields that come and go or change type, values that
// repeat (dictionary columns), are unique (plain) or grow from the one
// before (prefixed), and a few very large ones.
func columnMessages(n int) []messages.Message {
	base := time.UnixMilli(1700000000000)
	msgs := make([]messages.Message, n)
	for i := range msgs {
		m := messages.Message{ID: uuidString([16]byte{byte(i >> 16), byte(i >> 8), byte(i), 9}),
			Timestamp: base.Add(time.Duration(i/3) * time.Millisecond)}
		if i%7 == 3 {
			m.ID = fmt.Sprintf("custom-%d", i)
		}
		switch i % 4 {
		case 1:
			m.Streams = []string{"s1"}
		case 2:
			m.Streams = []string{"s1", fmt.Sprintf("s%d", i%50)}
		}
		m.Fields = []messages.Field{
			{Key: "message", Value: fmt.Sprintf("Request %d took %d ms, ünïcode ✓", i, i%97)},
			{Key: "source", Value: []string{"web-1", "web-2", "db-1"}[i%3]},
			{Key: "seq_id", Value: fmt.Sprintf("01HZX%012d", i*7)},
			{Key: "level", Value: int64(i % 8)},
			{Key: "counter", Value: int64(1000000 + i*13)},
			{Key: "ratio", Value: float64(i) / 3},
			{Key: "ok", Value: i%5 != 0},
			{Key: "empty", Value: ""},
		}
		if i%11 == 0 {
			m.Fields = append(m.Fields, messages.Field{Key: "sparse", Value: int64(-i)}, messages.Field{Key: "neg", Value: math.Inf(-1)})
		}
		if i%13 == 0 {
			// The same name with another type.
			m.Fields = append(m.Fields, messages.Field{Key: "level", Value: "high"})
		}
		if i%997 == 5 {
			m.Fields = append(m.Fields, messages.Field{Key: "full_message", Value: strings.Repeat("x", 5<<20)})
		}
		msgs[i] = m
	}
	return msgs
}

// TestColumnBlocks: every message of a version 3 segment reads back
// exactly as it was added, whatever its layout, across blocks ended by
// their document count and by their size.
func TestColumnBlocks(t *testing.T) {
	msgs := columnMessages(3000)
	s, _ := buildVersion(t, msgs, 0)
	if s.version != metaVersion {
		t.Fatalf("version %d", s.version)
	}
	bySize := 0
	for _, b := range s.blocks {
		if b.docs < blockDocs && b.first+b.docs < s.n {
			bySize++
		}
	}
	if len(s.blocks) < 4 || bySize == 0 {
		t.Fatalf("%d blocks, %d ended by size", len(s.blocks), bySize)
	}
	order := timeOrder(msgs)
	r := &docReader{s: s}
	for doc, i := range order {
		m, err := r.get(doc)
		if err != nil {
			t.Fatalf("doc %d: %v", doc, err)
		}
		want := msgs[i]
		want.Timestamp = want.Timestamp.UTC()
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("doc %d:\n got %v\nwant %v", doc, m, want)
		}
	}
	// Backwards, each document from a fresh block read.
	for doc := s.n - 1; doc >= 0; doc -= 401 {
		m, err := (&docReader{s: s}).get(doc)
		if err != nil || m.ID != msgs[order[doc]].ID {
			t.Fatalf("doc %d: %v, %v", doc, m.ID, err)
		}
	}
}

// TestStringColumnModes: a column of repeated values is a dictionary, of
// values growing from one another prefixed, of other values plain; in
// version 4 hexadecimal values (but the first of a prefixed column) are
// nibbles, half their size. Each reads back.
func TestStringColumnModes(t *testing.T) {
	for _, c := range []struct {
		name         string
		val          func(i int) string
		mode3, mode4 byte
	}{
		{"repeated", func(i int) string { return []string{"a", "bb", ""}[i%3] }, strDict, strDict},
		{"growing", func(i int) string { return fmt.Sprintf("01HZX%010d", i) }, strPrefixed, strPrefixed | hexLower<<4},
		{"growing upper hex", func(i int) string { return fmt.Sprintf("01J%013X%05X", 1700000000000+i, i*7919%99991) },
			strPrefixed, strPrefixed | hexUpper<<4},
		{"growing ulid", func(i int) string { return ulidOf(i) }, strPrefixed, strPrefixed | base32<<4},
		{"growing text", func(i int) string { return fmt.Sprintf("host-%08d-x", i) }, strPrefixed, strPrefixed},
		{"unique hex", func(i int) string { return fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15) }, strPlain, strPlain | hexLower<<4},
		{"unique odd hex", func(i int) string { return fmt.Sprintf("%x", uint64(i)*0x9e3779b97f4a7c15) }, strPlain, strPlain | hexLower<<4},
		{"shuffled ulids", func(i int) string { return ulidOf(i * 7919 % 3000)[8:] }, strPlain, strPlain | base32<<4},
		{"unique text", func(i int) string { return fmt.Sprintf("%x-", uint64(i)*0x9e3779b97f4a7c15) }, strPlain, strPlain},
	} {
		t.Run(c.name, func(t *testing.T) {
			var col strColumn
			var want []string
			for i := range 500 {
				want = append(want, c.val(i))
				col.add(want[i])
			}
			sizes := map[uint64]int{}
			for _, version := range []uint64{3, 4} {
				e := col.encode(nil, version)
				sizes[version] = len(e)
				d := &dec{b: e}
				v, ok := decodeStrings(d)
				if !ok || len(d.b) != 0 || v.count != len(want) {
					t.Fatalf("version %d: decode: %v, %d bytes left, %d values", version, ok, len(d.b), v.count)
				}
				if mode, wantMode := e[binaryLen(uint64(len(want)))], map[uint64]byte{3: c.mode3, 4: c.mode4}[version]; mode != wantMode {
					t.Fatalf("version %d: mode %d, want %d", version, mode, wantMode)
				}
				for i, w := range want {
					if got := v.get(i); got != w {
						t.Fatalf("version %d: value %d = %q, want %q", version, i, got, w)
					}
				}
			}
			if c.mode4 != c.mode3 && sizes[4] >= sizes[3] {
				t.Errorf("nibbles take %d bytes against %d", sizes[4], sizes[3])
			}
		})
	}
}

// ulidOf is the i-th of a series of ULIDs, 7 a millisecond, as the
// GELF input makes them.
func ulidOf(i int) string { return ulidSeries[i] }

var ulidSeries = func() []string {
	entropy := ulid.Monotonic(rand.NewChaCha8([32]byte{7}), 0)
	out := make([]string, 3000)
	for i := range out {
		out[i] = ulid.MustNew(1700000000000+uint64(i/7), entropy).String()
	}
	return out
}()

func binaryLen(v uint64) int {
	var e enc
	e.uvarint(v)
	return len(e)
}

// TestColumnBlockCorrupt: a block whose counts disagree with its shapes is
// refused, not read past or allocated for.
func TestColumnBlockCorrupt(t *testing.T) {
	for _, version := range []uint64{3, 4} {
		raw, nums := versionBlock(t, version)
		docs := 20
		if _, err := decodeColBlock(raw, docs, nums); err != nil {
			t.Fatal(err)
		}
		if _, err := decodeColBlock(raw, docs+1, nums); err == nil {
			t.Fatal("a wrong document count was accepted")
		}
		for i := range raw {
			b := append([]byte(nil), raw...)
			b[i] ^= 0x40
			if blk, err := decodeColBlock(b, docs, nums); err == nil {
				for d := range docs {
					blk.message(d) // must not panic
				}
			}
			if _, err := decodeColBlock(raw[:i], docs, nums); err == nil {
				t.Fatalf("version %d: a block cut at %d was accepted", version, i)
			}
		}
	}
}

// versionBlock is the first block, of 20 documents, of a segment of
// column messages written in version, and the segment's numeric columns.
func versionBlock(tb testing.TB, version uint64) ([]byte, *segmentNums) {
	tb.Helper()
	msgs := columnMessages(20)
	for i := range msgs {
		msgs[i].Fields = append(msgs[i].Fields, messages.Field{Key: "request_id", Value: fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)},
			messages.Field{Key: "gl2_message_id", Value: ulidOf(i)})
	}
	msgs[5].Fields = slices.DeleteFunc(msgs[5].Fields, func(f messages.Field) bool { return f.Key == "full_message" })
	s, _ := buildVersion(tb, msgs, version)
	raw, err := s.readBlock(0)
	if err != nil || s.blocks[0].docs != 20 {
		tb.Fatalf("%d documents: %v", s.blocks[0].docs, err)
	}
	return raw, &segmentNums{fields: s.fields}
}

// TestVersionsReadAlike: segments of versions 1 and 2 (row blocks) and 3
// (column blocks) read back the same messages and terms as one of version
// 4 (hexadecimal nibbles, integers from the numeric columns), which is
// smaller.
func TestVersionsReadAlike(t *testing.T) {
	msgs := columnMessages(1200)
	for i := range msgs {
		msgs[i].Fields = append(msgs[i].Fields, messages.Field{Key: "request_id", Value: fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)},
			messages.Field{Key: "big", Value: int64(1<<60 + i)})
	}
	cur, curSize := buildVersion(t, msgs, 0)
	if cur.version != 4 {
		t.Fatalf("version %d", cur.version)
	}
	for _, v := range []uint64{1, 2, 3} {
		old, oldSize := buildVersion(t, msgs, v)
		if old.version != v || oldSize <= curSize {
			t.Fatalf("version %d: %d bytes against %d", old.version, oldSize, curSize)
		}
		a, b := &docReader{s: old}, &docReader{s: cur}
		for doc := range cur.n {
			x, err := a.get(doc)
			if err != nil {
				t.Fatal(err)
			}
			y, err := b.get(doc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(x, y) {
				t.Fatalf("version %d, doc %d:\n%v\n%v", v, doc, x, y)
			}
		}
		if v >= 2 {
			if a, b := dump(t, old), dump(t, cur); !slices.Equal(a, b) {
				t.Fatalf("version %d: dictionaries differ (%d and %d entries)", v, len(a), len(b))
			}
		}
	}
}

// TestIntegersFromSegment: a version 4 block leaves integers float64
// holds exactly to the segment's numeric columns and stores the others;
// a block whose segment lacks a value it leaves there is corrupt.
func TestIntegersFromSegment(t *testing.T) {
	msgs := columnMessages(300)
	for i := range msgs {
		msgs[i].Fields = append(msgs[i].Fields, messages.Field{Key: "big", Value: int64(1<<60 + i)})
	}
	s, _ := buildVersion(t, msgs, 0)
	raw, err := s.readBlock(0)
	if err != nil {
		t.Fatal(err)
	}
	nums := &segmentNums{fields: s.fields, first: 0}
	b, err := decodeColBlock(raw, s.blocks[0].docs, nums)
	if err != nil {
		t.Fatal(err)
	}
	counter := slices.Index(b.keys, "counter")
	got, want := b.cols[counter].ints, s.fields["counter"].nums
	for i, v := range got {
		if float64(v) != want[i] {
			t.Fatalf("counter %d = %d, want %v", i, v, want[i])
		}
	}
	if len(got) == 0 {
		t.Fatal("no counters")
	}
	for _, broken := range []*segmentNums{nil, {fields: s.fields, first: 1}, {fields: map[string]*fieldMeta{}}} {
		if _, err := decodeColBlock(raw, s.blocks[0].docs, broken); err == nil {
			t.Fatalf("decoded against %+v", broken)
		}
	}
	// Only "big" is stored: the block is that much larger than without it.
	noBig := columnMessages(300)
	s2, _ := buildVersion(t, noBig, 0)
	if d := s.blocks[0].len - s2.blocks[0].len; d < 2*s.blocks[0].docs {
		t.Fatalf("a block with 60-bit integers is %d bytes larger", d)
	}
}

// FuzzColumnBlock: no decompressed block makes the column decoder panic or
// allocate beyond what its size bounds; what it accepts reads through.
// (The segment's checksums keep FuzzSegment's mutations from reaching
// it.)
func FuzzColumnBlock(f *testing.F) {
	f.Add(smallBlock(40), 40)
	// A block of version 4 and its segment's numeric columns.
	raw, nums := versionBlock(f, 4)
	f.Add(raw, 20)
	f.Fuzz(func(t *testing.T, raw []byte, want int) {
		if want < 0 || want > blockDocs {
			return
		}
		b, err := decodeColBlock(raw, want, nums)
		if err != nil {
			return
		}
		for d := range want {
			b.message(d)
		}
	})
}

// smallBlock is the raw block of the first n column messages, without
// the very large ones.
func smallBlock(n int) []byte {
	var w blockWriter
	msgs := columnMessages(n)
	for i := range msgs {
		m := msgs[i]
		m.Fields = slices.DeleteFunc(m.Fields, func(f messages.Field) bool { return f.Key == "full_message" })
		w.add(&m)
	}
	return w.encode(nil, 3)
}

// runBytes returns run r of s decompressed.
func runBytes(tb testing.TB, s *segment, r dictRunRef) []byte {
	tb.Helper()
	buf := make([]byte, r.len)
	if _, err := s.r.ReadAt(buf, s.dictOff+r.off); err != nil {
		tb.Fatal(err)
	}
	if r.raw > 0 {
		var err error
		if buf, err = decompress(buf, r.raw); err != nil {
			tb.Fatal(err)
		}
	}
	return buf
}

// FuzzColumnRun: no decompressed dictionary run makes its decoder panic;
// the terms it hands out are in order.
func FuzzColumnRun(f *testing.F) {
	s, _ := buildVersion(f, dictMessages(300), 0)
	r := s.fields["request_id"].runs[0]
	f.Add(runBytes(f, s, r), r.first, uint64(4))
	f.Fuzz(func(t *testing.T, b []byte, first string, version uint64) {
		prev := ""
		_, _ = readColumnRun(b, first, version, func(e term) bool {
			if prev != "" && e.text <= prev {
				t.Fatalf("%q after %q", e.text, prev)
			}
			prev = e.text
			return true
		})
	})
}

// TestBlockDocsFromSegment: a reader follows the block size a version 3
// segment was written with, so segments of 1,024-message blocks (the
// first writers of version 3) read beside those of today's size.
func TestBlockDocsFromSegment(t *testing.T) {
	msgs := messagestest.Generate(2, 2500, messagestest.BenchStart)
	order := timeOrder(msgs)
	for _, docs := range []int{1, 100, 1024, blockDocs} {
		var buf bytes.Buffer
		bl := newBuilder(&buf)
		bl.blockDocs = docs
		for _, i := range order {
			if err := bl.add(&msgs[i]); err != nil {
				t.Fatal(err)
			}
		}
		size, err := bl.finish()
		if err != nil {
			t.Fatal(err)
		}
		s, err := readSegment(bytes.NewReader(buf.Bytes()), size)
		if err != nil {
			t.Fatalf("%d a block: %v", docs, err)
		}
		full := 0
		for _, b := range s.blocks {
			if b.docs > docs {
				t.Fatalf("%d a block: a block of %d", docs, b.docs)
			}
			if b.docs == docs {
				full++
			}
		}
		if full == 0 {
			t.Errorf("%d a block: no block of that size", docs)
		}
		r := &docReader{s: s}
		for doc := 0; doc < s.n; doc += 7 {
			m, err := r.get(doc)
			if err != nil || m.ID != msgs[order[doc]].ID {
				t.Fatalf("%d a block, doc %d: %v, %v", docs, doc, m.ID, err)
			}
		}
	}
}
