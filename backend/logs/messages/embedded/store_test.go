package embedded_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// mustOpen opens a store in dir, closed when the test ends unless the
// test closed it.
func mustOpen(tb testing.TB, dir string, opts embedded.Options) *embedded.Store {
	tb.Helper()
	s, err := embedded.Open(dir, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// factory runs the contract suite; Close does not flush, so closing and
// reopening is a crash as far as unflushed messages go.
func factory() messagestest.Factory {
	var dirs sync.Map // messages.Store → its directory
	reopen := func(t *testing.T, s messages.Store) messages.Store {
		t.Helper()
		d, _ := dirs.Load(s)
		dir := d.(string)
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		ns := mustOpen(t, dir, embedded.Options{})
		dirs.Store(ns, dir)
		return ns
	}
	return messagestest.Factory{
		Open: func(t *testing.T) messages.Store {
			dir := t.TempDir()
			s := mustOpen(t, dir, embedded.Options{})
			dirs.Store(s, dir)
			return s
		},
		Reopen: reopen,
		Crash:  reopen,
	}
}

func TestContract(t *testing.T) {
	messagestest.Run(t, factory())
}

// TestFieldSortPages: a search sorted by a field keeps only a page's worth
// of candidates as it goes (twice offset+limit); its pages are those of
// sorting every match: by the value, missing values last, then _id.
func TestFieldSortPages(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, t.TempDir(), embedded.Options{MergeFactor: -1})
	at := messagestest.BenchStart
	var all []messages.Message
	for i := range 600 {
		m := messages.Message{ID: fmt.Sprintf("m%04d", (i*379)%600), Timestamp: at.Add(time.Duration(i) * time.Millisecond),
			Fields: []messages.Field{{Key: "source", Value: "s"}}}
		if i%7 != 0 { // some have no value
			m.Fields = append(m.Fields, messages.Field{Key: "n", Value: int64((i * 31) % 50)})
		}
		all = append(all, m)
	}
	// Two segments and a buffer.
	for _, part := range [][]messages.Message{all[:250], all[250:500], all[500:]} {
		if err := s.Write(ctx, "f", part); err != nil {
			t.Fatal(err)
		}
		if part[0].ID != all[500].ID {
			if err := s.Flush(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	value := func(m messages.Message) (int64, bool) {
		v, ok := m.Get("n")
		n, _ := v.(int64)
		return n, ok
	}
	for _, asc := range []bool{true, false} {
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b messages.Message) int {
			av, aok := value(a)
			bv, bok := value(b)
			switch {
			case aok != bok: // missing last either way
				if aok {
					return -1
				}
				return 1
			case av != bv:
				if asc {
					return cmp.Compare(av, bv)
				}
				return cmp.Compare(bv, av)
			}
			if asc {
				return strings.Compare(a.ID, b.ID)
			}
			return strings.Compare(b.ID, a.ID)
		})
		for _, page := range []struct{ offset, limit int }{{0, 7}, {5, 7}, {100, 13}, {590, 20}} {
			r, err := s.Search(ctx, messages.Query{Offset: page.offset, Limit: page.limit, Sort: messages.Sort{Field: "n", Asc: asc}})
			if err != nil {
				t.Fatal(err)
			}
			var got, exp []string
			for _, h := range r.Hits {
				got = append(got, h.Message.ID)
			}
			for _, m := range want[page.offset:min(len(want), page.offset+page.limit)] {
				exp = append(exp, m.ID)
			}
			if !slices.Equal(got, exp) {
				t.Errorf("asc=%v offset %d limit %d: %v, want %v", asc, page.offset, page.limit, got, exp)
			}
		}
	}
}
