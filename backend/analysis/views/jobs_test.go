package views_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/internal/testclock"
)

func TestJobs(t *testing.T) {
	t.Parallel()
	clock := testclock.New(epoch)
	jobs := views.NewJobsBounded(clock.Now, time.Minute, 3, 100)
	jobs.Add("j1", "alice", []byte(`{"id":"j1"}`))

	// Visible to its owner only.
	if body, ok := jobs.Get("j1", "alice"); !ok || string(body) != `{"id":"j1"}` {
		t.Fatalf("owner: %q %v", body, ok)
	}
	if _, ok := jobs.Get("j1", "bob"); ok {
		t.Fatal("bob sees alice's job")
	}

	// Kept a minute after the last access.
	clock.Advance(59 * time.Second)
	if _, ok := jobs.Get("j1", "alice"); !ok {
		t.Fatal("expired before a minute")
	}
	clock.Advance(59 * time.Second)
	if _, ok := jobs.Get("j1", "alice"); !ok {
		t.Fatal("an access did not keep the job")
	}
	clock.Advance(time.Minute)
	if _, ok := jobs.Get("j1", "alice"); ok || jobs.Len() != 0 {
		t.Fatalf("kept a minute after the last access: %d jobs", jobs.Len())
	}

	// At most three, the least recently accessed go first.
	for i := range 3 {
		jobs.Add(fmt.Sprint("k", i), "alice", []byte("{}"))
	}
	jobs.Get("k0", "alice")
	jobs.Add("k3", "alice", []byte("{}"))
	if _, ok := jobs.Get("k1", "alice"); ok || jobs.Len() != 3 {
		t.Fatalf("k1 kept, %d jobs", jobs.Len())
	}
	for _, id := range []string{"k0", "k2", "k3"} {
		if _, ok := jobs.Get(id, "alice"); !ok {
			t.Errorf("%s evicted", id)
		}
	}

	// At most 100 bytes; a job alone over the bound stays until the next.
	jobs.Add("big", "alice", make([]byte, 150))
	if jobs.Len() != 1 {
		t.Fatalf("%d jobs beside one over the byte bound", jobs.Len())
	}
	jobs.Add("small", "alice", []byte("{}"))
	if _, ok := jobs.Get("big", "alice"); ok || jobs.Len() != 1 {
		t.Fatalf("over the byte bound: %d jobs", jobs.Len())
	}
}
