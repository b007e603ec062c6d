package processing_test

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/logs/streams"
)

// benchStreams are three streams of the kind an installation has: server
// errors of the web tier into an index set of their own, slow requests,
// and application warnings.
func benchStreams(e *env) {
	e.stream(streams.Stream{Title: "web errors", MatchingType: streams.MatchAnd, IndexSetID: e.indexSet("web"),
		RemoveMatchesFromDefaultStream: true, Rules: []streams.Rule{
			rule(streams.RuleExact, "facility", "nginx"),
			rule(streams.RuleGreater, "http_status", "499"),
		}})
	e.stream(streams.Stream{Title: "slow", MatchingType: streams.MatchOr, Rules: []streams.Rule{
		rule(streams.RuleGreater, "took", "1.5"),
		rule(streams.RuleRegex, "message", `Slow query|exhausted`),
	}})
	e.stream(streams.Stream{Title: "app warnings", MatchingType: streams.MatchAnd, Rules: []streams.Rule{
		rule(streams.RuleExact, "facility", "app"),
		rule(streams.RuleSmaller, "level", "5"),
		rule(streams.RulePresence, "trace_id", ""),
	}})
}

// BenchmarkProcess processes journaled messages of ~400 bytes into the
// embedded store through three streams with rules: the whole pipeline of
// a node, from journal read to flush and commit.
func BenchmarkProcess(b *testing.B) {
	const n = 20000
	msgs := messagestest.Generate(1, n, messagestest.BenchStart)
	recs := make([][]byte, n)
	size := 0
	for i := range msgs {
		msgs[i].Streams = nil // inputs journal messages unrouted
		rec, err := msgs[i].MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		recs[i] = rec
		size += len(rec)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		e := newEnv(b)
		benchStreams(e)
		end := e.appendRecords(recs...)
		b.StartTimer()
		// Batches that add up to FlushEvery, so that the last flush is
		// not the one FlushInterval forces on a drained journal.
		r := e.start(processing.Options{BatchSize: 1000, FlushEvery: n / 2})
		r.flushed(end)
		b.StopTimer()
		if err := r.stop(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(size)/n, "B/record")
}
