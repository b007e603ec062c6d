package bolt_test

import (
	"fmt"
	"testing"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

const benchUsers = 1000

// benchStore returns a store holding benchUsers user documents of about
// 250 bytes, the size of a stored Graylog user.
func benchStore(b *testing.B) *bolt.Store {
	b.Helper()
	s := mustOpen(b, []store.Index{{Collection: "users", Field: "username"}})
	ids, docs := make([]string, benchUsers), make([][]byte, benchUsers)
	for i := range benchUsers {
		ids[i] = fmt.Sprintf("%024x", i)
		docs[i] = fmt.Appendf(nil, `{"id":%q,"username":"user%d","full_name":"User Number %d",`+
			`"email":"user%d@example.org","password":"$2y$10$abcdefghijklmnopqrstuv0123456789ABCDEFGHIJKLMNOPQRS",`+
			`"roles":["Reader"],"timezone":"UTC","session_timeout_ms":28800000}`, ids[i], i, i, i)
	}
	if err := s.InsertMany("users", ids, docs); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkGet(b *testing.B) {
	s := benchStore(b)
	ctx := b.Context()
	id := fmt.Sprintf("%024x", benchUsers/2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Get(ctx, "users", id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetParallel(b *testing.B) {
	s := benchStore(b)
	ctx := b.Context()
	id := fmt.Sprintf("%024x", benchUsers/2)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Get(ctx, "users", id); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkFindUnique(b *testing.B) {
	s := benchStore(b)
	ctx := b.Context()
	name := fmt.Sprint("user", benchUsers/2)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.FindUnique(ctx, "users", "username", name); err != nil {
			b.Fatal(err)
		}
	}
}
