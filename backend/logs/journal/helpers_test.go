package journal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"
)

func newClock() *testclock.Clock { return testclock.New(time.Date(2021, 1, 2, 3, 4, 5, 0, time.UTC)) }

// open opens a journal in dir and closes it when the test ends.
func open(t testing.TB, dir string, opts Options) *Journal {
	t.Helper()
	j, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// record is the deterministic payload of record i of writer g.
func record(g, i int) []byte {
	p := fmt.Appendf(nil, "g=%d i=%d ", g, i)
	return append(p, bytes.Repeat([]byte{byte('a' + (g+i)%26)}, 40+(i*7)%60)...)
}

// appendN appends records 0..n-1 of writer g, ten per call to keep the
// fsyncs few, and checks they get consecutive offsets.
func appendN(t testing.TB, j *Journal, g, n int) {
	t.Helper()
	start := j.End()
	for i := 0; i < n; i += 10 {
		var recs [][]byte
		for k := i; k < min(i+10, n); k++ {
			recs = append(recs, record(g, k))
		}
		first, last, err := j.Append(context.Background(), recs...)
		if err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
		if first != start+uint64(i) || last != first+uint64(len(recs))-1 {
			t.Fatalf("Append of records %d.. got offsets %d..%d, want from %d", i, first, last, start+uint64(i))
		}
	}
}

// readAll reads every record from offset from up to the end.
func readAll(t testing.TB, j *Journal, from uint64) []Entry {
	t.Helper()
	var all []Entry
	for {
		es, err := j.Read(from, 100)
		if err != nil {
			t.Fatalf("Read(%d): %v", from, err)
		}
		if len(es) == 0 {
			return all
		}
		all = append(all, es...)
		from = es[len(es)-1].Offset + 1
	}
}

// segmentFiles lists the segment files of dir.
func segmentFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+segmentExt))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lastSegment returns the path of the newest segment in dir.
func lastSegment(t testing.TB, dir string) string {
	t.Helper()
	m := segmentFiles(t, dir)
	if len(m) == 0 {
		t.Fatal("no segments")
	}
	return m[len(m)-1]
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
