package embedded

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

func seedSegment(f *testing.F) []byte {
	f.Helper()
	var buf bytes.Buffer
	b := newBuilder(&buf)
	base := time.UnixMilli(1700000000000)
	for i := range 40 {
		m := messages.Message{ID: uuidString([16]byte{byte(i), 1, 2}), Timestamp: base.Add(time.Duration(i) * time.Second),
			Streams: []string{"s1"}, Fields: []messages.Field{{Key: "message", Value: "Error in foo " + string(rune('a'+i%26))},
				{Key: "source", Value: "Web-1"}, {Key: "n", Value: int64(i)}, {Key: "ok", Value: i%2 == 0}}}
		if i == 3 {
			m.ID = "not-a-uuid"
		}
		if err := b.add(&m); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := b.finish(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzSegment: no bytes make the segment reader panic or allocate beyond
// bounds; whatever it accepts can be searched and read through.
func FuzzSegment(f *testing.F) {
	f.Add(seedSegment(f))
	f.Add(segmentBytes(f, dictMessages(300), 0)) // compressed runs
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := readSegment(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, name := range s.names {
			set := newBitset(s.n)
			_ = s.scanTerms(s.fields[name], "", func(e term) bool {
				return orPostings(set, e.postings, s.n) == nil
			})
		}
		r := &docReader{s: s}
		for d := range s.n {
			if _, err := r.get(d); err != nil {
				return
			}
		}
	})
}

// FuzzManifest: the manifest decoder rejects what it cannot use without
// panicking.
func FuzzManifest(f *testing.F) {
	good, _ := encodeManifest(&manifest{Checkpoint: 7, NextSeq: 3, Indices: []manifestIndex{
		{Prefix: "graylog", Number: 0, Segments: []manifestSegment{{File: segmentFile(1), Deleted: []uint32{1, 5}}}}}})
	f.Add(good)
	f.Add([]byte(manifestMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err != nil {
			return
		}
		again, err := encodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeManifest(again); err != nil {
			t.Fatalf("re-encoded manifest rejected: %v", err)
		}
	})
}

// FuzzWildcard: the matcher never panics, and a pattern without
// wildcards matches exactly itself.
func FuzzWildcard(f *testing.F) {
	f.Add("a*b?c", "axxbyc")
	f.Add(`\*x*`, "*xyz")
	f.Fuzz(func(t *testing.T, p, s string) {
		m := compileWildcard(p)
		m.match(s)
		if !bytes.ContainsAny([]byte(p), `*?\`) && m.match(s) != (p == s) {
			t.Fatalf("literal %q vs %q", p, s)
		}
	})
}

// FuzzPhrase checks the phrase matcher, which follows every partial match
// in one pass over the tokens, against trying each start in turn.
func FuzzPhrase(f *testing.F) {
	f.Add("a a a b", "a a b")
	f.Add("Error in Foo", "in foo")
	f.Add("x y x y x z", "x y x z")
	f.Add("", "a")
	f.Fuzz(func(t *testing.T, text, phrase string) {
		words := tokens(phrase)
		toks := tokens(text)
		want := len(words) == 0
		for i := 0; !want && i+len(words) <= len(toks); i++ {
			want = slices.Equal(toks[i:i+len(words)], words)
		}
		var tk tokenizer
		if got := tk.containsRun(text, words); got != want {
			t.Fatalf("containsRun(%q, %q) = %v, want %v", text, words, got, want)
		}
	})
}

// FuzzPhraseSlop checks the sloppy phrase matcher, which leaps between
// windows of positions, against trying every choice of positions.
func FuzzPhraseSlop(f *testing.F) {
	f.Add("a b c a", "c a", uint8(1))
	f.Add("foo bar baz", "baz foo", uint8(3))
	f.Add("a a b a", "a b a a", uint8(2))
	f.Add("x", "x x", uint8(5))
	f.Fuzz(func(t *testing.T, text, phrase string, slop uint8) {
		words, toks := tokens(phrase), tokens(text)
		if len(words) == 0 || len(words) > 4 || len(toks) > 12 {
			return
		}
		var want bool
		p := make([]int, len(words))
		var try func(i int)
		try = func(i int) {
			if want {
				return
			}
			if i == len(words) {
				lo, hi := p[0], p[0]
				for j := range p {
					lo, hi = min(lo, p[j]-j), max(hi, p[j]-j)
				}
				want = hi-lo <= int(slop)
				return
			}
		next:
			for at, tok := range toks {
				if tok != words[i] {
					continue
				}
				for j := range i {
					if p[j] == at {
						continue next
					}
				}
				p[i] = at
				try(i + 1)
			}
		}
		try(0)
		var tk tokenizer
		if got := tk.containsNear(text, words, int(slop)); got != want {
			t.Fatalf("containsNear(%q, %q, %d) = %v, want %v", text, words, slop, got, want)
		}
	})
}
