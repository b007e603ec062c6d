package bolt_test

import (
	"testing"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/storetest"
)

// BenchmarkStore runs the benchmarks every document store runs.
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, indexes []store.Index) store.Store { return mustOpen(b, indexes) })
}
