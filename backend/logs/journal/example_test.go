package journal_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/loggate/loggate/backend/logs/journal"
)

// Example shows an input appending and the processing loop reading,
// storing and committing.
func Example() {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()

	// Input side: acknowledge only after Append returns.
	first, last, err := j.Append(ctx, []byte(`{"short_message":"a"}`), []byte(`{"short_message":"b"}`))
	if err != nil {
		log.Fatal(err) // errors.Is(err, journal.ErrFull): answer 503 / stop reading
	}
	fmt.Println("acknowledged", first, last)

	// Processing side: resume at the commit, store, then commit.
	off := j.Committed()
	if err := j.Wait(ctx, off); err != nil {
		log.Fatal(err)
	}
	entries, err := j.Read(off, 500)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries {
		fmt.Printf("store %d %s\n", e.Offset, e.Data)
	}
	if err := j.Commit(entries[len(entries)-1].Offset); err != nil {
		log.Fatal(err)
	}
	fmt.Println("uncommitted", j.Stats().UncommittedJournalEntries)
	// Output:
	// acknowledged 0 1
	// store 0 {"short_message":"a"}
	// store 1 {"short_message":"b"}
	// uncommitted 0
}
