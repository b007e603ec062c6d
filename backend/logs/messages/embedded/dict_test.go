package embedded

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// dictMessages are n messages with a field of unique values (whose runs
// are compressed), one of few values and a text field.
func dictMessages(n int) []messages.Message {
	base := time.UnixMilli(1700000000000)
	msgs := make([]messages.Message, n)
	for i := range msgs {
		msgs[i] = messages.Message{ID: uuidString([16]byte{byte(i >> 8), byte(i), 7}), Timestamp: base.Add(time.Duration(i) * time.Millisecond),
			Fields: []messages.Field{{Key: "request_id", Value: fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)},
				{Key: "service", Value: []string{"cart", "auth", "search"}[i%3]},
				{Key: "message", Value: fmt.Sprintf("request %d completed for user %d", i%17, i%101)},
				{Key: "duration_ms", Value: int64(i*7%2000 - 3)}, {Key: "took", Value: float64(i) / 8}}}
		if i%5 == 0 {
			msgs[i].Fields = append(msgs[i].Fields, messages.Field{Key: "sparse", Value: int64(-i)})
		}
	}
	return msgs
}

// buildVersion builds a segment of msgs in the layout of version (the
// current one if 0) and returns it with its size.
func buildVersion(t testing.TB, msgs []messages.Message, version uint64) (*segment, int) {
	t.Helper()
	b := segmentBytes(t, msgs, version)
	s, err := readSegment(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return s, len(b)
}

// segmentBytes is the file of a segment of msgs.
func segmentBytes(t testing.TB, msgs []messages.Message, version uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	b := newBuilder(&buf)
	if version != 0 {
		b.version = version
	}
	for _, i := range timeOrder(msgs) {
		if err := b.add(&msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.finish(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dump lists a segment's dictionary: every term and its documents.
func dump(t *testing.T, s *segment) []string {
	t.Helper()
	var out []string
	for _, name := range s.names {
		err := s.scanTerms(s.fields[name], "", func(e term) bool {
			set := newBitset(s.n)
			if err := orPostings(set, e.postings, s.n); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(name, ":", e.text, set))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestFormatVersions: a segment written in the version 1 layout (plain
// runs of 32 terms, float64 columns) reads back the same terms, postings
// and numbers as the current one, which compresses runs, writes integer
// columns as varints and is smaller.
func TestFormatVersions(t *testing.T) {
	msgs := dictMessages(3000)
	old, oldSize := buildVersion(t, msgs, 1)
	cur, curSize := buildVersion(t, msgs, 0)
	if old.version != 1 || cur.version != metaVersion {
		t.Fatalf("versions %d and %d", old.version, cur.version)
	}
	if a, b := dump(t, old), dump(t, cur); !slices.Equal(a, b) || len(a) < 3000 {
		t.Fatalf("dictionaries differ (%d and %d entries)", len(a), len(b))
	}
	for _, name := range []string{"duration_ms", "took", "sparse"} {
		a, b := old.fields[name], cur.fields[name]
		if !slices.Equal(a.numDocs, b.numDocs) || !slices.Equal(a.nums, b.nums) || len(a.nums) == 0 {
			t.Fatalf("column %s differs: %d and %d values", name, len(a.nums), len(b.nums))
		}
	}
	compressed := 0
	for _, r := range cur.fields["request_id"].runs {
		if r.raw > 0 {
			compressed++
		}
	}
	if compressed == 0 || curSize >= oldSize {
		t.Fatalf("%d compressed runs, %d bytes against %d in version 1", compressed, curSize, oldSize)
	}
	for _, i := range []int{0, 1, 127, 128, 2999} {
		want := msgs[i].Fields[0].Value.(string)
		for _, s := range []*segment{old, cur} {
			p, err := s.lookupTerm(s.fields["request_id"], want)
			if err != nil || p == nil {
				t.Fatalf("version %d: lookup of %s: %v, %v", s.version, want, p, err)
			}
		}
	}
	if p, err := cur.lookupTerm(cur.fields["request_id"], "zzz"); p != nil || err != nil {
		t.Fatalf("lookup of an absent term: %v, %v", p, err)
	}
}

// TestRunModes: in version 4 a run of a field of unique values keeps only
// each term's document (as a difference to the one before for ids that
// grow with time) and writes hexadecimal ids as nibbles; such runs are
// smaller than in version 3 and read back the same terms and postings.
func TestRunModes(t *testing.T) {
	for _, c := range []struct {
		name     string
		val      func(i int) string
		hex      byte
		postings byte
	}{
		{"random hex", func(i int) string { return fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15) }, hexLower, postingsSingles},
		{"growing ulid", func(i int) string { return fmt.Sprintf("01J%013X%05X", 1700000000000+i, i*7919%99991) }, hexUpper, postingsSinglesDelta},
		{"ulid", ulidOf, base32, postingsSinglesDelta},
		{"repeated words", func(i int) string { return fmt.Sprintf("word-%c", 'g'+i%20) }, hexNone, postingsPlain},
	} {
		t.Run(c.name, func(t *testing.T) {
			msgs := make([]messages.Message, 3000)
			base := time.UnixMilli(1700000000000)
			for i := range msgs {
				msgs[i] = messages.Message{ID: uuidString([16]byte{byte(i >> 8), byte(i), 3}), Timestamp: base.Add(time.Duration(i) * time.Millisecond),
					Fields: []messages.Field{{Key: "id", Value: c.val(i)}}}
			}
			v3, _ := buildVersion(t, msgs, 3)
			v4, _ := buildVersion(t, msgs, 0)
			if a, b := dump(t, v3), dump(t, v4); !slices.Equal(a, b) {
				t.Fatalf("dictionaries differ (%d and %d entries)", len(a), len(b))
			}
			size := func(s *segment) (n int) {
				for _, r := range s.fields["id"].runs {
					n += r.len
				}
				return n
			}
			if c.postings != postingsPlain && size(v4) >= size(v3)*9/10 {
				t.Errorf("runs take %d bytes against %d in version 3", size(v4), size(v3))
			}
			buf := runBytes(t, v4, v4.fields["id"].runs[0])
			// count, shared and whole lengths, hex, text, postings mode
			d := &dec{b: buf}
			n := int(d.uvarint())
			for range 2 * n {
				d.uvarint()
			}
			if hc := d.byte(); hc != c.hex {
				t.Errorf("hex %d, want %d", hc, c.hex)
			}
			for _, i := range []int{0, 1, 1500, 2999} {
				p, err := v4.lookupTerm(v4.fields["id"], c.val(i))
				if err != nil || p == nil {
					t.Fatalf("lookup of %s: %v, %v", c.val(i), p, err)
				}
			}
		})
	}
}
