package lookup_test

import (
	"testing"

	"github.com/loggate/loggate/internal/testclock"
)

// BenchmarkLookup is one lookup of a CSV-backed table through its cache,
// as an extractor or a rule makes it per message: a hit, and a miss
// answered with the table's default.
func BenchmarkLookup(b *testing.B) {
	for _, c := range []struct{ name, key string }{{"hit", "10.0.0.1"}, {"miss", "10.9.9.9"}} {
		b.Run(c.name, func(b *testing.B) {
			f := newFixture(b, embedded(b), testclock.New(epoch))
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.svc.Lookup(ctx, "hosts", c.key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
