package node_test

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestGELFFieldsAsGraylogStores sends a GELF message with a dotted field
// and an _id: the stored message has them as Graylog 4.0 stores them
// (dotted_field, id), and its gl2_accounted_message_size.
func TestGELFFieldsAsGraylogStores(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	id, addr := h.CreateInput(httpInput)
	body := `{"version":"1.1","host":"fid","short_message":"m","timestamp":1600000000,"_dotted.field":"v","_id":"client-id","_n":7}`
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /gelf: %d", resp.StatusCode)
	}
	h.WaitProcessed(1)
	msg := h.Do("GET", "/search/universal/relative?query=source:fid&range=0", nil, root).Want(t, http.StatusOK).Get("messages.0.message")
	if got := msg.Get("dotted_field").String(); got != "v" || msg.Get(`dotted\.field`).Exists() {
		t.Errorf("dotted field stored as %s, want dotted_field", msg.Raw)
	}
	if got := msg.Get("id").String(); got != "client-id" || msg.Get("_id").String() == "client-id" {
		t.Errorf("_id stored as %s, want the field id (the message keeps its own _id)", msg.Raw)
	}
	// Message.getSize: each field's name and value (strings in UTF-16
	// units, a long 8, the int gl2_remote_port 4, the timestamp 8), not _id.
	want := len("message") + 1 + len("source") + 3 + len("timestamp") + 8 +
		len("dotted.field") + 1 + len("id") + len("client-id") + len("n") + 8 +
		len("gl2_source_input") + len(id) + len("gl2_source_node") + len(h.Node.Info.ID) +
		len("gl2_remote_ip") + len("127.0.0.1") + len("gl2_remote_port") + 4 +
		len("gl2_message_id") + len(msg.Get("gl2_message_id").String())
	if got := msg.Get("gl2_accounted_message_size").Int(); got != int64(want) {
		t.Errorf("gl2_accounted_message_size = %d, want %d: %s", got, want, msg.Raw)
	}
}

// TestDataDirPrivate: after a node wrote and flushed messages, every file
// under data_dir (journal included) is 0600 and every directory 0700; a
// file an older version left readable is made private at the next start.
func TestDataDirPrivate(t *testing.T) {
	h := nodetest.Start(t)
	_, addr := h.CreateInput(httpInput)
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(`{"host":"p","short_message":"private"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.WaitProcessed(1)
	ctx := t.Context()
	deadline := time.Now().Add(30 * time.Second)
	for h.Node.Messages.Processor.State().Flushed < 1 {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatal("the message was never flushed")
		}
		time.Sleep(5 * time.Millisecond) // polling an observable condition
	}
	old := filepath.Join(h.Config.DataDir, "left-by-an-older-version")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	h.Restart()

	files := 0
	err = filepath.WalkDir(h.Config.DataDir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // merged away while the node runs
		}
		if err != nil {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			files++
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", strings.TrimPrefix(path, h.Config.DataDir), got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Errorf("only %d files under data_dir: the walk missed the journal or the message segments", files)
	}
}
