package migrate

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/elastic"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
)

// TestStoreToElasticsearch copies the fixture's messages to a real
// Elasticsearch, in a namespace of its own.
func TestStoreToElasticsearch(t *testing.T) {
	t.Parallel()
	v := os.Getenv("LOGGATE_TEST_ELASTICSEARCH_URL")
	if v == "" {
		t.Skip("SKIPPED: LOGGATE_TEST_ELASTICSEARCH_URL not set; the copy to Elasticsearch is not tested (the copy to a second embedded store is)")
	}
	hosts := elastic.SplitHosts(v)
	ns := "lgt-migrate-" + strings.ToLower(rand.Text()[:8]) + "-"
	t.Cleanup(func() {
		for _, path := range []string{"/" + ns + "*?expand_wildcards=all", "/_template/" + ns + "*"} {
			req, _ := http.NewRequest(http.MethodDelete, strings.TrimSuffix(hosts[0], "/")+path, nil)
			if res, err := http.DefaultClient.Do(req); err == nil {
				_ = res.Body.Close()
			}
		}
	})
	es, err := elastic.Open(context.Background(), elastic.Options{Hosts: hosts, Namespace: ns, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = es.Close() })
	e, f := newStoreEnvTo(t, es)
	out, _, err := e.run(t, true, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(e.msgDst.writes) != f.messages || !strings.Contains(out, fmt.Sprintf("(%d messages) are identical", f.messages)) {
		t.Errorf("%d messages written:\n%s", len(e.msgDst.writes), out)
	}
	if out, _, err = e.run(t, true, nil); err != nil || !strings.Contains(out, "Nothing to do.") {
		t.Errorf("second run: %v\n%s", err, out)
	}
}

// TestStoreGeneratedSecret names the file of a generated password_secret
// and never shows the secret.
func TestStoreGeneratedSecret(t *testing.T) {
	t.Parallel()
	e, _ := newStoreEnv(t)
	const secret = "generated-secret-0123456789abcdefghij"
	if err := os.WriteFile(filepath.Join(e.dir, "password-secret"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, progress, err := e.run(t, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "it is in <data_dir>/password-secret") {
		t.Errorf("the output does not name the secret's file:\n%s", out)
	}
	if strings.Contains(out+progress, secret) {
		t.Errorf("the output shows the secret:\n%s", out)
	}
}

func TestCanonical(t *testing.T) {
	ts := time.UnixMilli(1_700_000_000_123).UTC()
	base := messages.Message{ID: "a", Timestamp: ts, Streams: []string{"s2", "s1"},
		Fields: []messages.Field{{Key: "n", Value: int64(3)}, {Key: "user.name", Value: "x"}, {Key: "ok", Value: true}}}
	tests := []struct {
		name  string
		other messages.Message
		same  bool
	}{
		{"reordered", messages.Message{ID: "a", Timestamp: ts, Streams: []string{"s1", "s2"},
			Fields: []messages.Field{{Key: "ok", Value: true}, {Key: "user_name", Value: "x"}, {Key: "n", Value: float64(3)}}}, true},
		{"nan dropped", messages.Message{ID: "a", Timestamp: ts, Streams: []string{"s1", "s2"},
			Fields: []messages.Field{{Key: "ok", Value: true}, {Key: "user.name", Value: "x"}, {Key: "n", Value: int64(3)}, {Key: "f", Value: math.NaN()}}}, true},
		{"other id", messages.Message{ID: "b", Timestamp: ts, Streams: base.Streams, Fields: base.Fields}, false},
		{"other time", messages.Message{ID: "a", Timestamp: ts.Add(time.Millisecond), Streams: base.Streams, Fields: base.Fields}, false},
		{"other stream", messages.Message{ID: "a", Timestamp: ts, Streams: []string{"s1"}, Fields: base.Fields}, false},
		{"other value", messages.Message{ID: "a", Timestamp: ts, Streams: base.Streams,
			Fields: []messages.Field{{Key: "n", Value: int64(4)}, {Key: "user.name", Value: "x"}, {Key: "ok", Value: true}}}, false},
		{"field boundary", messages.Message{ID: "a", Timestamp: ts, Streams: base.Streams,
			Fields: []messages.Field{{Key: "n", Value: int64(3)}, {Key: "user.name", Value: "x"}, {Key: "o", Value: "ktrue"}}}, false},
	}
	want := appendCanonical(nil, &base)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := appendCanonical(nil, &tc.other); bytes.Equal(got, want) != tc.same {
				t.Errorf("canonical forms equal = %v, want %v", !tc.same, tc.same)
			}
		})
	}
}

// writeMessages fills a message store with n messages of prefix, many
// sharing a millisecond.
func writeMessages(tb testing.TB, st messages.Store, prefix string, n int) {
	tb.Helper()
	ctx := context.Background()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const chunk = 5000
	for start := 0; start < n; start += chunk {
		var msgs []messages.Message
		for i := start; i < min(n, start+chunk); i++ {
			msgs = append(msgs, messages.Message{ID: fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), Timestamp: base.Add(time.Duration(i/4) * time.Millisecond),
				Streams: []string{"000000000000000000000001"},
				Fields: []messages.Field{{Key: "source", Value: "host-" + fmt.Sprint(i%7)}, {Key: "message", Value: fmt.Sprintf("message number %d of the benchmark", i)},
					{Key: "level", Value: int64(i % 8)}, {Key: "took", Value: float64(i) / 3}}})
		}
		if err := st.Write(ctx, prefix, msgs); err != nil {
			tb.Fatal(err)
		}
	}
	if err := st.Flush(ctx, 1); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkCopyIndex copies an index of 20,000 messages between two
// embedded stores, as copyIndex does: paged reads, batched writes, a
// durable flush per batch.
func BenchmarkCopyIndex(b *testing.B) {
	const n = 20_000
	src, err := embedded.Open(b.TempDir(), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	writeMessages(b, src, "bench", n)
	list, err := src.Indices(context.Background(), "bench")
	if err != nil || len(list) != 1 {
		b.Fatalf("indices %v %v", list, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dst, err := embedded.Open(b.TempDir(), embedded.Options{})
		if err != nil {
			b.Fatal(err)
		}
		m := &storeMigration{o: Options{Stdout: io.Discard, Stderr: io.Discard}, dir: b.TempDir(), msgSrc: src, msgDst: dst,
			batch: defaultBatch, now: time.Now, state: &storeState{Indices: map[string]*indexState{}}}
		st := m.state.index(list[0].Name)
		b.StartTimer()
		if _, err := m.place(context.Background(), "bench", &indexPlan{ix: list[0]}); err != nil {
			b.Fatal(err)
		}
		var cs copyStats
		if err := m.copyIndex(context.Background(), "bench", &indexPlan{ix: list[0]}, st, newProgress(io.Discard, false, "", 0), &cs); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if cs.msgs != n {
			b.Fatalf("copied %d of %d", cs.msgs, n)
		}
		_ = dst.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkDigest sums up messages as the verification does.
func BenchmarkDigest(b *testing.B) {
	m := messages.Message{ID: "0f8fad5b-d9cb-469f-a165-70867728950e", Timestamp: time.Now(), Streams: []string{"000000000000000000000001"},
		Fields: []messages.Field{{Key: "source", Value: "web-1"}, {Key: "message", Value: "GET /index.html 200"}, {Key: "level", Value: int64(6)}, {Key: "took", Value: 0.25}}}
	d := newDigest()
	b.ReportAllocs()
	for b.Loop() {
		d.add(&m)
	}
}

// TestPagerOverlap reads indices of one series whose time ranges
// interleave, with pages of every size: each index yields exactly its own
// messages, in (timestamp, _id) order, ties included.
func TestPagerOverlap(t *testing.T) {
	ctx := context.Background()
	st, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	msg := func(id string, ms int) messages.Message {
		return messages.Message{ID: id, Timestamp: base.Add(time.Duration(ms) * time.Millisecond), Fields: []messages.Field{{Key: "message", Value: id}}}
	}
	// Index 0: a1 at 1, a2 and a3 at 3 (a tie), a4 at 5; index 1: b1 at
	// 2, b2 and b3 at 3 (tied with index 0's), b4 at 9.
	if err := st.Write(ctx, "p", []messages.Message{msg("a3", 3), msg("a1", 1), msg("a4", 5), msg("a2", 3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Rotate(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, "p", []messages.Message{msg("b2", 3), msg("b1", 2), msg("b4", 9), msg("b3", 3)}); err != nil {
		t.Fatal(err)
	}
	list, err := st.Indices(ctx, "p")
	if err != nil || len(list) != 2 {
		t.Fatalf("indices %v, %v", list, err)
	}
	want := []string{"a1 a2 a3 a4", "b1 b2 b3 b4"}
	for batch := 1; batch <= 9; batch++ {
		for i, ix := range list {
			var got []string
			pg := newPager(st, ix, batch, Cursor{})
			for {
				msgs, _, ok, err := pg.next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				for _, m := range msgs {
					got = append(got, m.ID)
				}
			}
			if strings.Join(got, " ") != want[i] {
				t.Errorf("batch %d, %s: %v, want %s", batch, ix.Name, got, want[i])
			}
		}
	}
	// A pager resumed from the cursor of another continues where it stopped.
	pg := newPager(st, list[1], 2, Cursor{})
	first, cur, _, err := pg.next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rest := newPager(st, list[1], 2, cur)
	second, _, _, err := rest.next(ctx)
	if err != nil || len(first) == 0 || len(second) == 0 || first[len(first)-1].ID >= second[0].ID {
		t.Errorf("resumed page %v after %v: %v", second, first, err)
	}
}
