package mongo_test

import (
	"testing"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/mongo"
	"github.com/loggate/loggate/backend/store/storetest"
)

// BenchmarkStore runs the benchmarks every document store runs, against a
// real server only.
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, indexes []store.Index) store.Store { return mustOpen(b, indexes) })
}

// BenchmarkEncode measures the record codec alone; it needs no server.
func BenchmarkEncode(b *testing.B) {
	doc := storetest.BenchDoc(1)
	b.ReportAllocs()
	for b.Loop() {
		raw := mongo.Encode("000000000000000000000001", 1, doc, "username", "email")
		if _, _, _, err := mongo.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}
