package indexsets_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/router/api"
)

// BenchmarkList is GET /system/indices/index_sets with stats, as the web
// interface's index set page asks, over 50 index sets.
func BenchmarkList(b *testing.B) {
	e := newEnv(b)
	for i := range 45 {
		e.create(fmt.Sprintf("Set %02d", i), fmt.Sprintf("set%02dx", i), true)
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := e.do("GET", "/system/indices/index_sets?stats=true", "", all); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkWritable is the check streams make on every create and update.
func BenchmarkWritable(b *testing.B) {
	e := newEnv(b)
	ctx := b.Context()
	id := e.ids["custom"]
	b.ReportAllocs()
	for b.Loop() {
		if w, err := e.svc.Writable(ctx, id); err != nil || !w {
			b.Fatalf("Writable = %v, %v", w, err)
		}
	}
}

func BenchmarkParsePeriod(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := indexsets.ParsePeriod("P1Y2M3W4DT5H6M7.890S"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateRequest decodes and validates a POST body.
func BenchmarkCreateRequest(b *testing.B) {
	in := []byte(body(nil))
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var req indexsets.CreateRequest
		if err := api.DecodeBytes(in, &req, true); err != nil {
			b.Fatal(err)
		}
		if _, err := req.IndexSet(epoch); err != nil {
			b.Fatal(err)
		}
	}
}
