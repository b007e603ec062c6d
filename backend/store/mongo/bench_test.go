package mongo_test

import (
	"fmt"
	"testing"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/mongo"
)

const benchUsers = 1000

// benchDoc is a user document of about 250 bytes, the size of a stored
// Graylog user.
func benchDoc(i int) []byte {
	return fmt.Appendf(nil, `{"id":"%024x","username":"user%d","full_name":"User Number %d",`+
		`"email":"user%d@example.org","password":"$2y$10$abcdefghijklmnopqrstuv0123456789ABCDEFGHIJKLMNOPQRS",`+
		`"roles":["Reader"],"timezone":"UTC","session_timeout_ms":28800000}`, i, i, i, i)
}

// benchStore returns a store of its own holding benchUsers users. It runs
// only against a real server.
func benchStore(b *testing.B) *mongo.Store {
	b.Helper()
	s := mustOpen(b, []store.Index{{Collection: "users", Field: "username"}})
	for i := range benchUsers {
		if err := s.Insert(b.Context(), "users", fmt.Sprintf("%024x", i), benchDoc(i)); err != nil {
			b.Fatal(err)
		}
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

func BenchmarkInsert(b *testing.B) {
	s := mustOpen(b, []store.Index{{Collection: "users", Field: "username"}})
	ctx := b.Context()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Insert(ctx, "users", fmt.Sprintf("%024x", i), benchDoc(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkUpdate(b *testing.B) {
	s := benchStore(b)
	ctx := b.Context()
	id := fmt.Sprintf("%024x", benchUsers/2)
	doc := benchDoc(benchUsers / 2)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Update(ctx, "users", id, func([]byte) ([]byte, error) { return doc, nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode measures the record codec alone; it needs no server.
func BenchmarkEncode(b *testing.B) {
	doc := benchDoc(1)
	b.ReportAllocs()
	for b.Loop() {
		raw := mongo.Encode("000000000000000000000001", 1, doc, "username", "email")
		if _, _, _, err := mongo.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}
