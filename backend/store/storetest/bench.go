package storetest

import (
	"fmt"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

// benchUsers is how many user documents the read benchmarks run among.
const benchUsers = 1000

// BenchDoc is a user document of about 250 bytes, the size of a stored
// Graylog user, with id i.
func BenchDoc(i int) []byte {
	return fmt.Appendf(nil, `{"id":"%024x","username":"user%d","full_name":"User Number %d",`+
		`"email":"user%d@example.org","password":"$2y$10$abcdefghijklmnopqrstuv0123456789ABCDEFGHIJKLMNOPQRS",`+
		`"roles":["Reader"],"timezone":"UTC","session_timeout_ms":28800000}`, i, i, i, i)
}

// BulkInserter fills a store faster than one durable Insert per document;
// implementations offer it to their benchmarks (bolt: one transaction).
type BulkInserter interface {
	InsertMany(coll string, ids []string, docs [][]byte) error
}

// Bench runs the same benchmarks on every implementation, so that their
// figures compare: Get, Get in parallel, FindUnique, Insert and Update of
// user documents. open returns an empty store with the given indexes.
func Bench(b *testing.B, open func(b *testing.B, indexes []store.Index) store.Store) {
	indexes := []store.Index{{Collection: "users", Field: "username"}}
	filled := func(b *testing.B) store.Store {
		b.Helper()
		s := open(b, indexes)
		ids, docs := make([]string, benchUsers), make([][]byte, benchUsers)
		for i := range benchUsers {
			ids[i], docs[i] = fmt.Sprintf("%024x", i), BenchDoc(i)
		}
		if bulk, ok := s.(BulkInserter); ok {
			if err := bulk.InsertMany("users", ids, docs); err != nil {
				b.Fatal(err)
			}
			return s
		}
		for i := range ids {
			if err := s.Insert(b.Context(), "users", ids[i], docs[i]); err != nil {
				b.Fatal(err)
			}
		}
		return s
	}
	middle := fmt.Sprintf("%024x", benchUsers/2)

	b.Run("Get", func(b *testing.B) {
		s, ctx := filled(b), b.Context()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Get(ctx, "users", middle); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GetParallel", func(b *testing.B) {
		s, ctx := filled(b), b.Context()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Get(ctx, "users", middle); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("FindUnique", func(b *testing.B) {
		s, ctx := filled(b), b.Context()
		name := fmt.Sprint("user", benchUsers/2)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.FindUnique(ctx, "users", "username", name); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Insert", func(b *testing.B) {
		s, ctx := open(b, indexes), b.Context()
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Insert(ctx, "users", fmt.Sprintf("%024x", i), BenchDoc(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("Update", func(b *testing.B) {
		s, ctx := filled(b), b.Context()
		doc := BenchDoc(benchUsers / 2)
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Update(ctx, "users", middle, func([]byte) ([]byte, error) { return doc, nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}
