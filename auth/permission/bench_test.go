package permission_test

import (
	"testing"

	"github.com/loggate/loggate/auth/permission"
)

// readerPerms is Graylog 4.0's built-in Reader role plus the instance
// permissions a typical user holds on top of it.
var readerPerms = []string{
	"buffers:read", "clusterconfigentry:read", "decorators:read", "fieldnames:read",
	"indexercluster:read", "inputs:read", "journal:read", "jvmstats:read",
	"messagecount:read", "messages:analyze", "messages:read", "metrics:read",
	"system:read", "throughput:read",
	"users:edit:alice", "users:tokenlist:alice", "users:tokencreate:alice",
	"streams:read:5f1a2b3c4d5e6f7a8b9c0d1e", "dashboards:read,edit:5f1a2b3c4d5e6f7a8b9c0d2f",
}

func readerSet(tb testing.TB) permission.Set {
	tb.Helper()
	return mustSet(tb, readerPerms...)
}

func BenchmarkPermits(b *testing.B) {
	reader := readerSet(b)
	admin := mustSet(b, "*")
	benchmarks := []struct {
		name     string
		set      permission.Set
		required string
		want     bool
	}{
		{"reader/miss", reader, "streams:edit:5f1a2b3c4d5e6f7a8b9c0d1e", false},
		{"reader/hit-first", reader, "buffers:read", true},
		{"reader/hit-instance", reader, "dashboards:edit:5f1a2b3c4d5e6f7a8b9c0d2f", true},
		{"admin/hit", admin, "streams:edit:5f1a2b3c4d5e6f7a8b9c0d1e", true},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			if got := bm.set.Permits(bm.required); got != bm.want {
				b.Fatalf("Permits(%q) = %v, want %v", bm.required, got, bm.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				bm.set.Permits(bm.required)
			}
		})
	}
}

func BenchmarkNewSet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := permission.NewSet(readerPerms); err != nil {
			b.Fatal(err)
		}
	}
}
