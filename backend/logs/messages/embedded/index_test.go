package embedded

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// sortedMessages returns msgs in the order a segment holds them.
func sortedMessages(msgs []messages.Message) []*messages.Message {
	out := make([]*messages.Message, len(msgs))
	for i, k := range timeOrder(msgs) {
		out[i] = &msgs[k]
	}
	return out
}

// TestAddAllMatchesAdd shows that indexing the text fields, the other
// fields and the stored part side by side writes the very segment that
// adding the documents one by one does.
func TestAddAllMatchesAdd(t *testing.T) {
	for name, msgs := range map[string][]messages.Message{
		"generated": messagestest.Generate(5, 3*parallelDocs, messagestest.BenchStart),
		"corpus":    corpusMessages(parallelDocs + 100),
	} {
		t.Run(name, func(t *testing.T) {
			sorted := sortedMessages(msgs)
			var one, all bytes.Buffer
			b := newBuilder(&one)
			b.expect = len(sorted)
			for _, m := range sorted {
				if err := b.add(m); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.finish(); err != nil {
				t.Fatal(err)
			}
			b = newBuilder(&all)
			b.expect = len(sorted)
			if err := b.addAll(sorted); err != nil {
				t.Fatal(err)
			}
			if _, err := b.finish(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), all.Bytes()) {
				t.Fatalf("addAll wrote %d bytes, add %d, not the same", all.Len(), one.Len())
			}
		})
	}
}

// TestAddAllOrder shows that documents out of order are refused when
// they are indexed side by side too.
func TestAddAllOrder(t *testing.T) {
	sorted := sortedMessages(messagestest.Generate(6, parallelDocs, messagestest.BenchStart))
	sorted[10], sorted[parallelDocs-10] = sorted[parallelDocs-10], sorted[10]
	if err := newBuilder(&bytes.Buffer{}).addAll(sorted); err != errOrder {
		t.Fatalf("addAll = %v, want errOrder", err)
	}
}

// TestPostings compares the postings the builder lays out with those of
// a plain map of every term of every document.
func TestPostings(t *testing.T) {
	msgs := append(messagestest.Generate(8, 3000, messagestest.BenchStart), corpusMessages(3000)...)
	sorted := sortedMessages(msgs)
	// A field of ids, some repeated before and after addTerm stops
	// looking them up, and named twice by some messages.
	for d := range sorted {
		m := *sorted[d]
		id := m.ID
		if d%97 == 0 {
			id = sorted[d*7%len(sorted)].ID
		}
		m.Fields = append(slices.Clone(m.Fields), messages.Field{Key: "trace", Value: id})
		if d%5 == 0 {
			m.Fields = append(m.Fields, m.Fields[len(m.Fields)-1])
		}
		sorted[d] = &m
	}
	want := map[string]map[string][]uint32{}
	post := func(field, term string, doc uint32) {
		if want[field] == nil {
			want[field] = map[string][]uint32{}
		}
		if docs := want[field][term]; len(docs) == 0 || docs[len(docs)-1] != doc {
			want[field][term] = append(docs, doc)
		}
	}
	for d, m := range sorted {
		for _, s := range m.Streams {
			post(messages.FieldStreams, s, uint32(d))
		}
		for _, kv := range m.Fields {
			switch v := kv.Value.(type) {
			case string:
				switch analysisOf(kv.Key) {
				case text:
					for _, tok := range tokens(v) {
						post(kv.Key, tok, uint32(d))
					}
				case lowerKeyword:
					post(kv.Key, strings.Clone(new(tokenizer).lower(v)), uint32(d))
				default:
					post(kv.Key, v, uint32(d))
				}
			case bool:
				post(kv.Key, messages.FormatValue(v), uint32(d))
			}
		}
	}
	for _, parallel := range []bool{false, true} {
		b := newBuilder(&bytes.Buffer{})
		b.expect = len(sorted)
		if parallel {
			if err := b.addAll(sorted); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, m := range sorted {
				if err := b.add(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !parallel && !b.fields["trace"].unique {
			t.Fatal("the field of ids is looked up still")
		}
		b.seal()
		got := map[string]map[string][]uint32{}
		for name, f := range b.fields {
			if len(f.list) == 0 {
				continue
			}
			got[name] = map[string][]uint32{}
			for i, term := range f.list {
				got[name][term] = f.docs[i]
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parallel %v: the postings differ from a map of every term", parallel)
		}
	}
}

// TestNextBufferReserves shows that after a flush the write buffer has
// room for as many messages as the last one took.
func TestNextBufferReserves(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := messagestest.Generate(10, 300, messagestest.BenchStart)
	if err := s.Write(t.Context(), "graylog", msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	b := s.series["graylog"][0].active
	s.mu.Unlock()
	if cap(b.msgs) < len(msgs) {
		t.Fatalf("the next buffer has room for %d messages, want %d", cap(b.msgs), len(msgs))
	}
}

// TestSortTerms compares sortTerms with a plain sort of strings, on terms
// that share their first eight bytes, are shorter, or hold zero bytes.
func TestSortTerms(t *testing.T) {
	list := []string{"b", "abcdefgh2", "abcdefgh1", "ab", "ab\x00", "ab\x00c", "", "abcdefgh", "b", "ab", "\x00", "zz", "abcdefgh1"}
	order := sortTerms(list)
	got := make([]string, len(order))
	for k, i := range order {
		got[k] = list[i]
		if k > 0 && got[k] == got[k-1] && order[k] < order[k-1] {
			t.Errorf("the copies of %q are out of order", got[k])
		}
	}
	want := slices.Clone(list)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("sortTerms = %q, want %q", got, want)
	}
	if order := sortTerms(want); !slices.IsSorted(order) {
		t.Fatalf("sortTerms of sorted terms = %d", order)
	}
}
