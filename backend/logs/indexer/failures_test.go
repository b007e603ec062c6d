package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/indexer"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/internal/testclock"
)

// Failures are listed newest first and counted from a date.
func TestFailures(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clock := testclock.New(start)
	f := indexer.NewFailures(st, clock.Now)
	ctx := context.Background()
	for i := range 5 {
		if err := f.Record(ctx, fmt.Sprintf("msg-%d", i), "graylog_deflector", errors.New("mapper_parsing_exception")); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	page, total, err := f.List(ctx, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if total != 5 || len(page) != 2 || page[0].LetterID != "msg-3" || page[1].LetterID != "msg-2" ||
		page[0].Type != "indexing" || page[0].Index != "graylog_deflector" || page[0].Message != "mapper_parsing_exception" {
		t.Fatalf("List(1, 2) = %+v, %d", page, total)
	}
	for since, want := range map[time.Time]int{start: 5, start.Add(3 * time.Minute): 2, start.Add(time.Hour): 0} {
		if n, err := f.CountSince(ctx, since); err != nil || n != want {
			t.Errorf("CountSince(%s) = %d, %v; want %d", since, n, err, want)
		}
	}
}
