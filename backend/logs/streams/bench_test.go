package streams_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// benchStreams is the size of the paginated benchmark's fixture.
const benchStreams = 10_000

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureSvc  *streams.Service
	fixtureErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// fixture returns a service over 10,000 stored streams with two rules each.
// It is built once per test binary: storing 10,000 documents one durable
// write at a time takes seconds.
func fixture(b *testing.B) *streams.Service {
	b.Helper()
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "streams-bench")
		if fixtureErr != nil {
			return
		}
		st, err := bolt.Open(filepath.Join(fixtureDir, "db"), nil)
		if err != nil {
			fixtureErr = err
			return
		}
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 2))
		words := []string{"Nginx", "postgres", "Firewall", "auth", "Billing", "kafka", "DNS", "mail"}
		for i := range benchStreams {
			id := primitive.NewObjectID().Hex()
			desc := fmt.Sprintf("Messages of %s cluster %d", words[rng.IntN(len(words))], rng.IntN(100))
			s := streams.Stream{
				ID: id, CreatorUserID: "admin", Title: fmt.Sprintf("%s %05d", words[rng.IntN(len(words))], rng.IntN(benchStreams)),
				Description: &desc, MatchingType: streams.MatchAnd, IndexSetID: defaultSet, Disabled: i%3 == 0,
				Rules: []streams.Rule{
					{ID: primitive.NewObjectID().Hex(), Type: streams.RuleExact, Field: "facility", Value: "nginx", StreamID: id},
					{ID: primitive.NewObjectID().Hex(), Type: streams.RuleRegex, Field: "message", Value: `5\d\d`, StreamID: id},
				},
				Outputs: []string{outputA},
			}
			doc, err := json.Marshal(s)
			if err != nil {
				fixtureErr = err
				return
			}
			if err := st.Insert(ctx, streams.Collection, id, doc); err != nil {
				fixtureErr = err
				return
			}
		}
		outs := &fakeOutputs{byID: map[string]outputs.Summary{}}
		fixtureSvc, fixtureErr = streams.NewService(ctx, st, newIndexSets(), outs, time.Now)
	})
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	return fixtureSvc
}

// BenchmarkPaginated measures GET /streams/paginated over 10,000 streams
// through the real router. The budget is 5 ms per page of 50.
func BenchmarkPaginated(b *testing.B) {
	svc := fixture(b)
	h := routertest.Handler(streams.NewHandler(svc).Routes())
	// A user granted 100 streams one by one.
	some := []string{"streams:edit"}
	for i, st := range svc.All() {
		if i%100 == 0 {
			some = append(some, "streams:read:"+st.ID)
		}
	}
	cases := []struct {
		name  string
		perms []string
		query string
	}{
		{"first page", []string{"streams:read"}, ""},
		{"middle page", []string{"streams:read"}, "page=100"},
		{"query", []string{"streams:read"}, "query=nginx"},
		{"descending", []string{"streams:read"}, "order=desc"},
		{"by description", []string{"streams:read"}, "sort=description"},
		{"per-stream permissions", some, ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := routertest.Principal(b, c.perms...)
			ctx := auth.WithPrincipal(context.Background(), p)
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequestWithContext(ctx, "GET", "/streams/paginated?"+c.query, nil)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// benchStream is a stream with a typical mix of rules, all matching
// benchMessage.
func benchStream(mt streams.MatchingType) *streams.Stream {
	return &streams.Stream{MatchingType: mt, Rules: []streams.Rule{
		{ID: "1", Type: streams.RulePresence, Field: "source"},
		{ID: "2", Type: streams.RuleExact, Field: "facility", Value: "nginx"},
		{ID: "3", Type: streams.RuleGreater, Field: "took_ms", Value: "100"},
		{ID: "4", Type: streams.RuleContains, Field: "message", Value: "GET /api"},
		{ID: "5", Type: streams.RuleRegex, Field: "message", Value: `HTTP/1\.[01]" 5\d\d`},
	}}
}

// BenchmarkMatch measures the matcher the pipeline runs per message and
// stream.
func BenchmarkMatch(b *testing.B) {
	msg := benchMessage()
	numeric := &streams.Stream{MatchingType: streams.MatchAnd, Rules: []streams.Rule{
		{ID: "1", Type: streams.RuleExact, Field: "http_status", Value: "503"},
		{ID: "2", Type: streams.RuleSmaller, Field: "level", Value: "7"},
	}}
	miss := &streams.Stream{MatchingType: streams.MatchAnd, Rules: []streams.Rule{
		{ID: "1", Type: streams.RuleExact, Field: "facility", Value: "postgres"},
		{ID: "2", Type: streams.RuleRegex, Field: "message", Value: `FATAL`},
	}}
	cases := []struct {
		name string
		s    *streams.Stream
		want bool
	}{
		{"AND of 5 rules", benchStream(streams.MatchAnd), true},
		{"OR of 5 rules", benchStream(streams.MatchOr), true},
		{"AND failing early", miss, false},
		{"numeric fields", numeric, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m := streams.Compile(c.s)
			if m.Match(msg) != c.want {
				b.Fatalf("Match = %v, want %v", !c.want, c.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Match(msg)
			}
		})
	}
	b.Run("AND of 5 rules, parallel", func(b *testing.B) {
		m := streams.Compile(benchStream(streams.MatchAnd))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Match(msg)
			}
		})
	})
}
