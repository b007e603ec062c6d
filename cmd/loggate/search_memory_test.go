package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
)

// TestSearchMemoryIsBounded runs concurrent searches whose answers are
// pages of large messages against a loggate process and measures its peak
// resident memory (VmHWM): a search streams its answer and holds about one
// message, not the page. The always-on case is 3 searches of 20 × 1 MiB
// messages; LOGGATE_TEST_HEAVY=1 adds 3 of 20 × 4 MiB under 600 MB.
func TestSearchMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts loggate processes")
	}
	cases := []struct {
		size     int
		limitMiB int
	}{{1 << 20, 300}}
	if os.Getenv("LOGGATE_TEST_HEAVY") != "" {
		cases = append(cases, struct {
			size     int
			limitMiB int
		}{4 << 20, 600})
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dMiB", tc.size>>20), func(t *testing.T) {
			const count, searches = 20, 3
			dir := t.TempDir()
			writeLargeMessages(t, filepath.Join(dir, "messages"), count, tc.size)
			c := startChild(t, dir)
			base := peakRSS(t, c.cmd.Process.Pid)
			var wg sync.WaitGroup
			errs := make(chan error, searches)
			start := time.Now()
			for range searches {
				wg.Go(func() {
					req, _ := http.NewRequest("GET", c.url+"search/universal/relative?query=*&range=0&limit="+strconv.Itoa(count), nil)
					req.SetBasicAuth("admin", crashPassword)
					req.Header.Set("Accept-Encoding", "identity")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						errs <- err
						return
					}
					defer resp.Body.Close()
					n, err := io.Copy(io.Discard, resp.Body)
					if err == nil && (resp.StatusCode != http.StatusOK || n < int64(count*tc.size)) {
						err = fmt.Errorf("status %d, %d bytes; want 200 and all %d messages", resp.StatusCode, n, count)
					}
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			peak := peakRSS(t, c.cmd.Process.Pid)
			t.Logf("%d concurrent searches of %d × %d MiB messages in %v: peak RSS %d MiB (%d MiB before the searches)",
				searches, count, tc.size>>20, time.Since(start).Round(time.Millisecond), peak>>20, base>>20)
			if peak > int64(tc.limitMiB)<<20 {
				t.Errorf("peak RSS %d MiB, want under %d MiB", peak>>20, tc.limitMiB)
			}
		})
	}
}

// writeLargeMessages stores count messages of size bytes of words in the
// embedded message store at dir, as the node will open it.
func writeLargeMessages(t *testing.T, dir string, count, size int) {
	t.Helper()
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now().Add(-time.Minute)
	for i := range count {
		var b strings.Builder
		for b.Len() < size {
			fmt.Fprintf(&b, "w%d ", rng.IntN(5000))
		}
		m := messages.Message{ID: fmt.Sprintf("large-%02d", i), Timestamp: now.Add(time.Duration(i) * time.Millisecond),
			Fields: []messages.Field{{Key: messages.FieldSource, Value: "big"}, {Key: messages.FieldMessage, Value: b.String()[:size]}}}
		if err := st.Write(context.Background(), "graylog", []messages.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// peakRSS returns VmHWM of a process, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}
