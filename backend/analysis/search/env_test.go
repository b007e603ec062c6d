package search

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/routertest"
)

// Streams of the generated messages: every message is in the default
// stream, access logs also in the web stream.
const (
	defaultStream = "000000000000000000000001"
	webStream     = "5f1a2b3c4d5e6f7a8b9c0d1e"
)

type fakeStreams []*streams.Stream

func (f fakeStreams) All() []*streams.Stream { return f }

type fakeSets []indexsets.IndexSet

func (f fakeSets) All(context.Context) ([]indexsets.IndexSet, error) { return f, nil }

// testEnv is a search service over a real embedded store.
type testEnv struct {
	svc   *Service
	store *embedded.Store
	msgs  []messages.Message
	now   time.Time
}

// newEnv stores msgs in an embedded store behind a service whose clock is
// now.
func newEnv(tb testing.TB, msgs []messages.Message, now time.Time, opts Options) *testEnv {
	tb.Helper()
	st, err := embedded.Open(filepath.Join(tb.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	for i := 0; i < len(msgs); i += 1000 {
		if err := st.Write(context.Background(), "graylog", msgs[i:min(i+1000, len(msgs))]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := st.Flush(context.Background(), 1); err != nil {
		tb.Fatal(err)
	}
	ss := fakeStreams{{ID: defaultStream, IndexSetID: "is1"}, {ID: webStream, IndexSetID: "is1"}}
	sets := fakeSets{{ID: "is1", IndexPrefix: "graylog"}}
	opts.Now = func() time.Time { return now }
	return &testEnv{svc: NewService(st, ss, sets, opts), store: st, msgs: msgs, now: now}
}

// generated returns n generated messages starting at messagestest.BenchStart.
func generated(n int) []messages.Message {
	return messagestest.Generate(7, n, messagestest.BenchStart)
}

// as returns a context with a principal holding perms.
func as(t testing.TB, perms ...string) context.Context {
	t.Helper()
	return auth.WithPrincipal(context.Background(), routertest.Principal(t, perms...))
}
