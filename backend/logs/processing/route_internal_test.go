package processing

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store/bolt"
)

// referenceRoute is routing as the matcher documents it, on the full
// Message.MatchMap, without the router's shortcuts (a match map of only
// the fields the rules read, prefixes resolved once per batch).
func referenceRoute(m *messages.Message, all []*streams.Stream, prefixOf func(string) (string, bool)) (ids, prefixes []string) {
	fields := m.MatchMap()
	removeDefault := false
	add := func(set string) {
		if p, ok := prefixOf(set); ok && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	for _, st := range all {
		if st.Disabled || streams.IsBuiltin(st.ID) || !st.Matches(fields) {
			continue
		}
		ids = append(ids, st.ID)
		removeDefault = removeDefault || st.RemoveMatchesFromDefaultStream
		add(st.IndexSetID)
	}
	if !removeDefault {
		ids = append(ids, streams.DefaultStreamID)
		for _, st := range all {
			if st.ID == streams.DefaultStreamID {
				add(st.IndexSetID)
			}
		}
	}
	return ids, prefixes
}

// routeStreams are streams whose rules read every kind of field: strings,
// numbers, the input, _id and timestamp, absent fields, inverted. They are
// stored and loaded by a stream service, so that their rules are compiled
// once as in production.
func routeStreams(tb testing.TB) []*streams.Stream {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, st := range routeStreamDocs() {
		doc, err := json.Marshal(st)
		if err != nil {
			tb.Fatal(err)
		}
		if err := db.Insert(ctx, streams.Collection, st.ID, doc); err != nil {
			tb.Fatal(err)
		}
	}
	// Every built-in stream is stored: the service seeds nothing and
	// needs no index sets.
	svc, err := streams.NewService(ctx, db, nil, nil, time.Now)
	if err != nil {
		tb.Fatal(err)
	}
	return svc.All()
}

func routeStreamDocs() []*streams.Stream {
	r := func(typ streams.RuleType, field, value string, inv bool) streams.Rule {
		return streams.Rule{Type: typ, Field: field, Value: value, Inverted: inv}
	}
	mk := func(i int, mt streams.MatchingType, set string, remove bool, rules ...streams.Rule) *streams.Stream {
		return &streams.Stream{ID: fmt.Sprintf("5f00000000000000000000%02x", i), Title: fmt.Sprint("s", i),
			MatchingType: mt, IndexSetID: set, RemoveMatchesFromDefaultStream: remove, Rules: rules}
	}
	return []*streams.Stream{
		{ID: streams.DefaultStreamID, IndexSetID: "set-default", IsDefault: true},
		{ID: streams.EventsStreamID, IndexSetID: "set-events", RemoveMatchesFromDefaultStream: true,
			Rules: []streams.Rule{r(streams.RuleAlways, "", "", false)}},
		{ID: streams.SystemEventsStreamID, IndexSetID: "set-events", RemoveMatchesFromDefaultStream: true},
		mk(1, streams.MatchAnd, "set-web", true, r(streams.RuleExact, "facility", "nginx", false), r(streams.RuleGreater, "http_status", "499", false)),
		mk(2, streams.MatchOr, "set-default", false, r(streams.RuleGreater, "took", "1.5", false), r(streams.RuleRegex, "message", "Slow query|exhausted", false)),
		mk(3, streams.MatchAnd, "set-app", false, r(streams.RuleExact, "facility", "app", false),
			r(streams.RuleSmaller, "level", "5", false), r(streams.RulePresence, "trace_id", "", false)),
		mk(4, streams.MatchAnd, "set-gone", true, r(streams.RuleRegex, messages.FieldID, "^[0-7]", false)),
		mk(5, streams.MatchOr, "set-app", false, r(streams.RuleContains, messages.FieldTimestamp, ":07", false),
			r(streams.RuleMatchInput, "", "5FD0E2A1C1D2E3F4A5B6C7D9", false)),
		mk(6, streams.MatchAnd, "set-web", false, r(streams.RulePresence, "full_message", "", true), r(streams.RuleContains, "http_path", "/static/", false)),
		{ID: "5f0000000000000000000007", IndexSetID: "set-web", Disabled: true,
			Rules: []streams.Rule{r(streams.RuleAlways, "", "", false)}},
		{ID: "5f0000000000000000000008", IndexSetID: "set-web"},
	}
}

func routePrefix(set string) (string, bool) {
	if set == "set-gone" {
		return "", false
	}
	return set[len("set-"):], true
}

// TestRouterMatchesReference routes generated messages with the router
// and with the reference: the streams and prefixes must be the same.
func TestRouterMatchesReference(t *testing.T) {
	all := routeStreams(t)
	rt := newRouter(all, routePrefix)
	var prefixes []string
	matched := map[string]int{}
	for i, m := range messagestest.Generate(7, 5000, messagestest.BenchStart) {
		wantIDs, wantPrefixes := referenceRoute(&m, all, routePrefix)
		prefixes = rt.route(&m, prefixes)
		if !slices.Equal(m.Streams, wantIDs) || !slices.Equal(prefixes, wantPrefixes) {
			t.Fatalf("message %d: routed to %v in %v, want %v in %v", i, m.Streams, prefixes, wantIDs, wantPrefixes)
		}
		for _, id := range m.Streams {
			matched[id]++
		}
	}
	// Every stream that can match did, and not every time: the messages
	// exercise both outcomes.
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("5f00000000000000000000%02x", i)
		if n := matched[id]; n == 0 || n == 5000 {
			t.Errorf("stream %s matched %d of 5000 messages", id, n)
		}
	}
}

// BenchmarkRoute routes generated messages through the streams of
// routeStreams: the processing cost per message beyond decoding it, with
// the router and, for comparison, with the reference's full match map.
func BenchmarkRoute(b *testing.B) {
	all := routeStreams(b)
	msgs := messagestest.Generate(7, 4096, messagestest.BenchStart)
	b.Run("router", func(b *testing.B) {
		var prefixes []string
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			// A router per batch of 64, as the processor's batches are.
			rt := newRouter(all, routePrefix)
			for range 64 {
				prefixes = rt.route(&msgs[i%len(msgs)], prefixes)
				i++
			}
		}
		b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "msgs/s")
	})
	b.Run("matchmap", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			for range 64 {
				referenceRoute(&msgs[i%len(msgs)], all, routePrefix)
				i++
			}
		}
		b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "msgs/s")
	})
}

// FuzzRouter routes journal records as the processor reads them and
// compares the router with the reference. The streams are not compiled
// once here (each match compiles its rules), which is slower but the same.
func FuzzRouter(f *testing.F) {
	for _, m := range messagestest.Generate(3, 16, messagestest.BenchStart) {
		m.Streams = nil
		rec, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(rec)
	}
	odd := messages.Message{ID: "", Fields: []messages.Field{
		{Key: "facility", Value: " nginx "}, {Key: "http_status", Value: "500.0"}, {Key: "took", Value: int64(2)},
		{Key: "trace_id", Value: "   "}, {Key: messages.FieldID, Value: "shadowed"}, {Key: "level", Value: false}}}
	rec, err := odd.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(rec)
	all := routeStreamDocs()
	rt := newRouter(all, routePrefix)
	f.Fuzz(func(t *testing.T, rec []byte) {
		var m messages.Message
		if m.UnmarshalBinary(rec) != nil {
			return
		}
		wantIDs, wantPrefixes := referenceRoute(&m, all, routePrefix)
		prefixes := rt.route(&m, nil)
		if !slices.Equal(m.Streams, wantIDs) || !slices.Equal(prefixes, wantPrefixes) {
			t.Fatalf("routed to %v in %v, want %v in %v", m.Streams, prefixes, wantIDs, wantPrefixes)
		}
	})
}

// TestRouterKeepsPipelineStreams: streams a pipeline put a message on are
// kept and written to their index sets; a matching stream that removes
// its matches from the default stream takes the message off it; a
// pipeline that took the message off the default stream is obeyed.
func TestRouterKeepsPipelineStreams(t *testing.T) {
	all := routeStreams(t)
	rt := newRouter(all, routePrefix)
	// Stream 8 has no rules, so only a pipeline can put a message there.
	m := messages.Message{ID: "a1", Streams: []string{streams.DefaultStreamID, "5f0000000000000000000008"},
		Fields: []messages.Field{{Key: "facility", Value: "nginx"}, {Key: "http_status", Value: int64(503)}}}
	// As processing runs stream matching after the pipelines: the
	// message's streams are what the pipeline left.
	rt.match(&m)
	prefixes := rt.prefixesOf(&m, nil)
	if want := []string{"5f0000000000000000000008", "5f0000000000000000000001"}; !slices.Equal(m.Streams, want) {
		t.Errorf("streams = %v, want %v", m.Streams, want)
	}
	if want := []string{"web"}; !slices.Equal(prefixes, want) {
		t.Errorf("prefixes = %v, want %v", prefixes, want)
	}
	m = messages.Message{ID: "a2", Streams: []string{"5f0000000000000000000008"}}
	rt.match(&m)
	prefixes = rt.prefixesOf(&m, prefixes)
	if !slices.Equal(m.Streams, []string{"5f0000000000000000000008"}) || !slices.Equal(prefixes, []string{"web"}) {
		t.Errorf("taken off the default stream by a pipeline: %v in %v", m.Streams, prefixes)
	}
}
