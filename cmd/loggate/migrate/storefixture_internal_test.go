package migrate

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/systemmessages"
	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// storeFixture is the data_dir of a stopped node with something of every
// kind: a role, a user in it, a token, a session, a stream with a rule,
// and messages in four indices of one series, the first deleted as
// retention would (so the destination must skip graylog_0), some sharing
// a millisecond (so paging must order ties), the last, the write index,
// empty.
type storeFixture struct {
	dir                string // the pristine data_dir; tests copy it
	userID, token, sid string
	streamID           string
	messages           int // messages stored (in graylog_1 and graylog_2)
}

const (
	fixtureUser     = "alice"
	fixturePassword = "alice-password-1"
)

var (
	fixtureOnce sync.Once
	fixture     *storeFixture
	fixtureErr  string
	fixtureRoot string // removed by TestMain
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureRoot != "" {
		_ = os.RemoveAll(fixtureRoot)
	}
	os.Exit(code)
}

// sourceDir returns a fresh copy of the fixture's data_dir, built by the
// first test that asks for it.
func sourceDir(t *testing.T) (string, *storeFixture) {
	t.Helper()
	fixtureOnce.Do(func() {
		var err error
		if fixtureRoot, err = os.MkdirTemp("", "loggate-migrate-store-"); err != nil {
			fixtureErr = err.Error()
			return
		}
		// A sub-test owns the node, so that its temporary directories and
		// cleanups end before the copy is used.
		ok := t.Run("build-fixture", func(t *testing.T) { fixture = buildFixture(t, filepath.Join(fixtureRoot, "data")) })
		if !ok {
			fixtureErr = "building the fixture failed"
		}
	})
	if fixtureErr != "" {
		t.Fatal(fixtureErr)
	}
	dir := filepath.Join(t.TempDir(), "data")
	copyDir(t, fixture.dir, dir)
	return dir, fixture
}

func buildFixture(t *testing.T, keep string) *storeFixture {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	f := &storeFixture{dir: keep}
	h.Do("POST", "/roles", map[string]any{"name": "Auditors", "description": "reads streams",
		"permissions": []string{"streams:read", "messages:read"}, "read_only": false}, root).Want(t, http.StatusCreated)
	f.userID = h.CreateUser(fixtureUser, fixturePassword, "Reader", "Auditors")
	f.token, _ = h.CreateToken(f.userID, "migration", nodetest.Basic(fixtureUser, fixturePassword))
	f.sid = h.Login(fixtureUser, fixturePassword)
	indexSet := h.Do("GET", "/system/indices/index_sets", nil, root).Want(t, http.StatusOK).Get(`index_sets.#(default==true).id`).String()
	f.streamID = h.Do("POST", "/streams", map[string]any{
		"title": "web", "index_set_id": indexSet, "matching_type": "AND",
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "web-1", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+f.streamID+"/resume", nil, root).Want(t, http.StatusNoContent)

	addr := gelfAddr(h)
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	sent := 0
	send := func(n int, tied bool) {
		t.Helper()
		var body bytes.Buffer
		for i := range n {
			ts := base.Add(time.Duration(sent) * time.Second)
			if tied {
				ts = base.Add(time.Duration(sent-i) * time.Second) // one millisecond for all
			}
			host := "web-1"
			if sent%3 == 0 {
				host = "db-1"
			}
			body.Reset()
			fmt.Fprintf(&body, `{"version":"1.1","host":%q,"short_message":"message %d","timestamp":%d.%03d,"level":3,"_seq":%d,"_took":%d.25,"_user.name":"u%d"}`,
				host, sent, ts.Unix(), ts.Nanosecond()/1e6, sent, sent, sent%4)
			resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", &body)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("POST /gelf: %d", resp.StatusCode)
			}
			sent++
		}
		h.WaitProcessed(uint64(sent))
	}
	ctx := context.Background()
	st := h.Node.Messages.Store
	send(4, false) // graylog_0, deleted below
	if _, err := st.Rotate(ctx, "graylog"); err != nil {
		t.Fatal(err)
	}
	send(7, true)
	send(8, false)
	if _, err := st.Rotate(ctx, "graylog"); err != nil {
		t.Fatal(err)
	}
	send(5, false)
	// The write index is empty, as after every rotation.
	if _, err := st.Rotate(ctx, "graylog"); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "graylog_0"); err != nil {
		t.Fatal(err)
	}
	f.messages = sent - 4
	h.Stop()
	dropSystemMessages(t, h.Config.DataDir)
	copyDir(t, h.Config.DataDir, keep)
	return f
}

// copyDir copies a directory tree.
// dropSystemMessages empties the node's system messages: how many a node
// records while the fixture is built depends on timing (input states are
// checked every second), and the golden reports count every collection.
func dropSystemMessages(t *testing.T, dataDir string) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(dataDir, "loggate.db"), node.Indexes())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var ids []string
	if err := st.List(ctx, systemmessages.Collection, func(id string, _ []byte) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := st.Delete(ctx, systemmessages.Collection, id); err != nil {
			t.Fatal(err)
		}
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

// gelfAddr starts a GELF HTTP input on h and returns its address.
func gelfAddr(h *nodetest.Harness) net.Addr {
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	return addr
}
