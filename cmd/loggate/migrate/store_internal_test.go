package migrate

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/cmd/loggate/node"
)

// countingStore counts the writes of each document.
type countingStore struct {
	store.Store
	mu     sync.Mutex
	writes map[string]int // by collection/id
}

func (s *countingStore) count(coll, id string) {
	s.mu.Lock()
	s.writes[coll+"/"+id]++
	s.mu.Unlock()
}

func (s *countingStore) Insert(ctx context.Context, coll, id string, doc []byte) error {
	err := s.Store.Insert(ctx, coll, id, doc)
	if err == nil {
		s.count(coll, id)
	}
	return err
}

func (s *countingStore) Put(ctx context.Context, coll, id string, doc []byte) error {
	err := s.Store.Put(ctx, coll, id, doc)
	if err == nil {
		s.count(coll, id)
	}
	return err
}

// countingMessages counts the writes of each message.
type countingMessages struct {
	messages.Store
	writes map[string]int // by _id
}

func (s *countingMessages) Write(ctx context.Context, prefix string, msgs []messages.Message) error {
	err := s.Store.Write(ctx, prefix, msgs)
	if err == nil {
		for _, m := range msgs {
			s.writes[m.ID]++
		}
	}
	return err
}

// storeEnv is a copy of the fixture's data_dir and two real embedded
// destinations: a bbolt document store and an embedded message store.
type storeEnv struct {
	dir     string
	dst     *countingStore
	msgDst  *countingMessages
	dstPath string
}

func newStoreEnv(t *testing.T) (*storeEnv, *storeFixture) {
	t.Helper()
	ms, err := embedded.Open(filepath.Join(t.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ms.Close() })
	return newStoreEnvTo(t, ms)
}

// newStoreEnvTo is newStoreEnv with another message store destination.
func newStoreEnvTo(t *testing.T, ms messages.Store) (*storeEnv, *storeFixture) {
	t.Helper()
	dir, f := sourceDir(t)
	dest := t.TempDir()
	st, err := bolt.Open(filepath.Join(dest, "dest.db"), node.Indexes())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &storeEnv{dir: dir, dstPath: dest,
		dst:    &countingStore{Store: st, writes: map[string]int{}},
		msgDst: &countingMessages{Store: ms, writes: map[string]int{}}}, f
}

// run runs the migration as runStore does, on the embedded destinations,
// with the source opened afresh; edit changes the run's settings.
func (e *storeEnv) run(t *testing.T, apply bool, edit func(*storeMigration)) (stdout, stderr string, err error) {
	t.Helper()
	src, err := openBoltSource(filepath.Join(e.dir, "loggate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	msgSrc, err := embedded.Open(filepath.Join(e.dir, "messages"), embedded.Options{MergeFactor: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer msgSrc.Close()
	var out, errOut bytes.Buffer
	m := &storeMigration{
		o: Options{Stdout: &out, Stderr: &errOut}, dir: e.dir, src: src, dst: e.dst, dstName: "bbolt <dest>",
		msgSrc: msgSrc, msgDst: e.msgDst, msgDstName: "embedded <dest>", batch: 3, now: time.Now,
	}
	if edit != nil {
		edit(m)
	}
	if m.state, err = loadState(e.dir, "test destination"); err != nil {
		t.Fatal(err)
	}
	err = m.run(context.Background(), apply)
	got := out.String() + errOut.String()
	if strings.Contains(got, "loggate-test-secret") {
		t.Errorf("the output shows the password_secret:\n%s", got)
	}
	return strings.ReplaceAll(out.String(), e.dir, "<data_dir>"), errOut.String(), err
}

func TestStoreDryRun(t *testing.T) {
	t.Parallel()
	e, _ := newStoreEnv(t)
	out, progress, err := e.run(t, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "store_dry_run", out)
	if progress != "" {
		t.Errorf("a dry run drew progress: %q", progress)
	}
	if n := len(e.dst.writes) + len(e.msgDst.writes); n != 0 {
		t.Errorf("the dry run wrote %d documents and messages", n)
	}
	if _, err := os.Stat(filepath.Join(e.dir, stateFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dry run saved progress: %v", err)
	}
}

// TestStoreResume interrupts a copy twice, among the documents and among
// the messages; the third run finishes, and every document and message
// was written exactly once. A fourth run has nothing to do.
func TestStoreResume(t *testing.T) {
	t.Parallel()
	e, f := newStoreEnv(t)
	srcDocs := sourceDocs(t, e.dir)

	_, _, err := e.run(t, true, func(m *storeMigration) { m.stopAfter = 5 })
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("first run: %v, want it interrupted", err)
	}
	if got := len(e.dst.writes); got != 5 {
		t.Fatalf("the first run copied %d documents before stopping, want 5", got)
	}
	// Stops in the messages: all documents and 4 messages (pages of 3,
	// one of them spanning the deleted index's neighbour).
	_, _, err = e.run(t, true, func(m *storeMigration) { m.stopAfter = len(srcDocs) - 5 + 4 })
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("second run: %v, want it interrupted", err)
	}
	if got := len(e.msgDst.writes); got == 0 || got >= f.messages {
		t.Fatalf("the second run copied %d of %d messages before stopping", got, f.messages)
	}
	out, progress, err := e.run(t, true, nil)
	if err != nil {
		t.Fatalf("third run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "are identical at the destination") || !strings.Contains(progress, "copying messages:") {
		t.Errorf("third run:\n%s\nstderr:\n%s", out, progress)
	}
	for key, n := range e.dst.writes {
		if n != 1 {
			t.Errorf("document %s written %d times", key, n)
		}
	}
	if len(e.dst.writes) != len(srcDocs) {
		t.Errorf("%d documents written, the source has %d", len(e.dst.writes), len(srcDocs))
	}
	for id, n := range e.msgDst.writes {
		if n != 1 {
			t.Errorf("message %s written %d times", id, n)
		}
	}
	if len(e.msgDst.writes) != f.messages {
		t.Errorf("%d messages written, the source has %d", len(e.msgDst.writes), f.messages)
	}
	for key, doc := range srcDocs {
		coll, id, _ := strings.Cut(key, "/")
		got, err := e.dst.Get(context.Background(), coll, id)
		if err != nil || !bytes.Equal(got, doc) {
			t.Errorf("%s at the destination: %s, %v; want %s", key, got, err, doc)
		}
	}
	// The destination's series has the source's indices, by name, and
	// not the graylog_0 that retention deleted.
	list, err := e.msgDst.Indices(context.Background(), "graylog")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ix := range list {
		names = append(names, ix.Name)
	}
	if strings.Join(names, ",") != "graylog_1,graylog_2,graylog_3" || !list[2].Write {
		t.Errorf("destination indices %v", list)
	}

	out, _, err = e.run(t, true, nil)
	if err != nil || !strings.Contains(out, "Nothing to do.") {
		t.Errorf("fourth run: %v\n%s", err, out)
	}
	for key, n := range e.dst.writes {
		if n != 1 {
			t.Errorf("after the fourth run, document %s was written %d times", key, n)
		}
	}
	for id, n := range e.msgDst.writes {
		if n != 1 {
			t.Errorf("after the fourth run, message %s was written %d times", id, n)
		}
	}
}

// sourceDocs reads every document of the data_dir.
func sourceDocs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	src, err := openBoltSource(filepath.Join(dir, "loggate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	colls, err := src.collections()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, c := range colls {
		err := src.each(c, func(id string, doc []byte) error {
			out[c+"/"+id] = bytes.Clone(doc)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("the source has no documents")
	}
	return out
}

// TestStoreConflict finds a user that differs at the destination: it is
// reported and left alone, the verification fails naming its collection;
// --overwrite replaces it.
func TestStoreConflict(t *testing.T) {
	t.Parallel()
	e, f := newStoreEnv(t)
	ctx := context.Background()
	theirs := []byte(`{"id":"` + f.userID + `","username":"someone-else"}`)
	if err := e.dst.Store.Put(ctx, "users", f.userID, theirs); err != nil {
		t.Fatal(err)
	}
	out, _, err := e.run(t, false, nil)
	if err != nil || !strings.Contains(out, "conflict: users/"+f.userID+" differs at the destination") ||
		!strings.Contains(out, "--overwrite replaces them") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	out, _, err = e.run(t, true, nil)
	if err == nil || !strings.Contains(err.Error(), "verification failed") || !strings.Contains(err.Error(), "collections users") {
		t.Fatalf("apply: %v, want a verification failure naming users\n%s", err, out)
	}
	if !strings.Contains(out, "MISMATCH collection users") {
		t.Errorf("apply output:\n%s", out)
	}
	if got, _ := e.dst.Get(ctx, "users", f.userID); !bytes.Equal(got, theirs) {
		t.Errorf("the conflicting document was overwritten: %s", got)
	}
	out, _, err = e.run(t, true, func(m *storeMigration) { m.overwrite = true })
	if err != nil {
		t.Fatalf("--overwrite: %v\n%s", err, out)
	}
	if got, _ := e.dst.Get(ctx, "users", f.userID); bytes.Equal(got, theirs) || !bytes.Contains(got, []byte(fixtureUser)) {
		t.Errorf("--overwrite left %s", got)
	}
}

// TestStoreVerifyFailure changes the destination behind a finished copy:
// the next run has nothing to copy, but its verification fails naming the
// collection and the index that differ.
func TestStoreVerifyFailure(t *testing.T) {
	t.Parallel()
	e, _ := newStoreEnv(t)
	ctx := context.Background()
	if out, _, err := e.run(t, true, nil); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	// An extra stream, and a message of the write index changed.
	if err := e.dst.Store.Insert(ctx, "streams", "5f0000000000000000000abc", []byte(`{"title":"extra"}`)); err != nil {
		t.Fatal(err)
	}
	// A message slipped into the write index, which the source has empty.
	list, err := e.msgDst.Indices(ctx, "graylog")
	if err != nil || len(list) == 0 {
		t.Fatalf("destination indices %v, %v", list, err)
	}
	write := list[len(list)-1].Name
	extra := messages.Message{ID: "5d2b3c1e-0000-4000-8000-000000000001", Timestamp: time.Now().UTC().Truncate(time.Millisecond),
		Fields: []messages.Field{{Key: "message", Value: "tampered"}}}
	if err := e.msgDst.Store.Write(ctx, "graylog", []messages.Message{extra}); err != nil {
		t.Fatal(err)
	}
	out, _, err := e.run(t, true, nil)
	if err == nil || !strings.Contains(err.Error(), "collections streams") || !strings.Contains(err.Error(), "indices "+write) {
		t.Fatalf("got %v, want a verification failure naming streams and %s\n%s", err, write, out)
	}
	if !strings.Contains(out, "Nothing to do.") || !strings.Contains(out, "MISMATCH index "+write) {
		t.Errorf("output:\n%s", out)
	}
}

// A node running on the data_dir holds its document store: the command
// says to stop it rather than waiting.
func TestStoreWhileNodeRuns(t *testing.T) {
	t.Parallel()
	dir, _ := sourceDir(t)
	st, err := bolt.Open(filepath.Join(dir, "loggate.db"), node.Indexes())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out bytes.Buffer
	err = Run(context.Background(), []string{"store", "--data_dir", dir, "--to-mongodb", "mongodb://127.0.0.1:1/x"}, nil, Options{Stdout: &out, Stderr: &out})
	if err == nil || !strings.Contains(err.Error(), "stop the node first") {
		t.Errorf("got %v, want the lock message", err)
	}
}

func TestStoreFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"store"}, "--data_dir DIR"},
		{[]string{"store", "--data_dir", "x"}, "--to-mongodb URI"},
		{[]string{"store", "--data_dir", "x", "--to-mongodb", "mongodb://h/", "--batch", "0"}, "at least 1"},
		{[]string{"store", "--data_dir", "x", "--to-mongodb", "mongodb://h/", "--batch", "many"}, "invalid value"},
		{[]string{"store", "--data_dir", "x", "--to-mongodb", "mongodb://h/", "extra"}, `unexpected argument "extra"`},
		{[]string{"store", "--to-somewhere", "x"}, "not defined"},
		{[]string{"store", "--data_dir", "/nonexistent/dir", "--to-mongodb", "mongodb://h/"}, "no such file"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		err := Run(context.Background(), tc.args, nil, Options{Stdout: &out, Stderr: &out})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"store", "--help"}, nil, Options{Stdout: &out}); err != nil || !strings.Contains(out.String(), "--to-elasticsearch") {
		t.Errorf("store --help: %v %s", err, out.String())
	}
}

// goldenUpdate reports whether -update was given. The flag is declared by
// the package's external tests, which share the test binary.
func goldenUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if goldenUpdate() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file missing (go test ./cmd/loggate/migrate -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (-update rewrites it):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestStoreClosedIndex refuses to migrate a series with a closed index,
// whose messages no search reads: the copy would be empty.
func TestStoreClosedIndex(t *testing.T) {
	t.Parallel()
	e, _ := newStoreEnv(t)
	ms, err := embedded.Open(filepath.Join(e.dir, "messages"), embedded.Options{MergeFactor: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ms.CloseIndex(context.Background(), "graylog_1"); err != nil {
		t.Fatal(err)
	}
	if err := ms.Close(); err != nil {
		t.Fatal(err)
	}
	out, _, err := e.run(t, false, nil)
	if err == nil || !strings.Contains(err.Error(), "index graylog_1 is closed") {
		t.Errorf("migration of a closed index: %v, want it refused\n%s", err, out)
	}
}
