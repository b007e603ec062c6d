package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/servicetest"
)

// childEnv makes the test binary run `loggate serve` with the arguments in
// it (separated by the unit separator, 0x1f) instead of the tests: the crash test's server is a
// separate process it can kill -9.
const childEnv = "LOGGATE_TEST_CHILD_SERVE"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		err := run(context.Background(), strings.Split(args, "\x1f"), nil, os.Stdout, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const crashPassword = "crash-test-password"

// child is a loggate serve process.
type child struct {
	cmd *exec.Cmd
	url string
}

func startChild(t *testing.T, dataDir string) *child {
	t.Helper()
	sum := sha256.Sum256([]byte(crashPassword))
	args := []string{"serve", "--data_dir", dataDir, "--http_bind_address", "127.0.0.1:0",
		"--root_password_sha2", hex.EncodeToString(sum[:])}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd}
	t.Cleanup(func() { c.kill() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case c.url = <-found:
	case <-time.After(60 * time.Second):
		t.Fatalf("loggate did not start:\n%s", stderr.String())
	}
	return c
}

// kill ends the process with SIGKILL: no shutdown, no final flush.
func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		_ = c.cmd.Wait()
	}
}

func (c *child) api(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.url+strings.TrimPrefix(path, "/"), rd)
	req.SetBasicAuth("admin", crashPassword)
	req.Header.Set("X-Requested-By", "crash-test")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestCrashLosesNothingAcknowledged kills loggate with SIGKILL while HTTP
// clients are sending; after a restart, every message that got a 202 is
// searchable exactly once.
func TestCrashLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts loggate processes")
	}
	dir := t.TempDir()
	c := startChild(t, dir)
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	status, body := c.api(t, "POST", "/system/inputs", map[string]any{
		"title": "crash", "type": "org.graylog2.inputs.gelf.http.GELFHttpInput", "global": true,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": port},
	})
	if status != http.StatusCreated {
		t.Fatalf("create input: %d %s", status, body)
	}
	gelfURL := fmt.Sprintf("http://127.0.0.1:%d/gelf", port)

	// Senders post numbered messages until the process dies; a sequence
	// number is recorded only once its 202 arrived.
	const senders, killAfter = 8, 3000
	var (
		mu    sync.Mutex
		acked = map[int64]bool{}
		seq   atomic.Int64
		count atomic.Int64
	)
	killed := make(chan struct{})
	ready := make(chan struct{})
	var readyOnce sync.Once
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for range senders {
		wg.Go(func() {
			for {
				select {
				case <-killed:
					return
				default:
				}
				n := seq.Add(1)
				msg := fmt.Sprintf(`{"version":"1.1","host":"crash","short_message":"message %d","_seq":%d}`, n, n)
				resp, err := client.Post(gelfURL, "application/json", strings.NewReader(msg))
				if err != nil {
					// Not started yet, or gone: only acknowledged
					// messages count.
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusAccepted {
					mu.Lock()
					acked[n] = true
					mu.Unlock()
					readyOnce.Do(func() { close(ready) })
					if count.Add(1) == killAfter {
						c.kill()
						close(killed)
					}
				}
			}
		})
	}
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the GELF HTTP input never accepted a message")
	}
	select {
	case <-killed:
	case <-time.After(2 * time.Minute):
		t.Fatalf("only %d messages acknowledged", count.Load())
	}
	wg.Wait()

	c = startChild(t, dir)
	// Wait until the journal is processed and flushed (it commits only
	// after the store made the messages durable).
	c.processed(t)
	seen := map[int64]int{}
	for offset := 0; ; offset += 5000 {
		status, b := c.api(t, "GET", fmt.Sprintf("/search/universal/relative?query=source:crash&range=0&limit=5000&offset=%d&fields=seq", offset), nil)
		if status != http.StatusOK {
			t.Fatalf("search: %d %s", status, b)
		}
		var res struct {
			Total    int64 `json:"total_results"`
			Messages []struct {
				Message struct {
					Seq int64 `json:"seq"`
				} `json:"message"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Messages {
			seen[m.Message.Seq]++
		}
		if len(res.Messages) < 5000 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	lost := 0
	for n := range acked {
		if seen[n] == 0 {
			lost++
		}
	}
	for n, k := range seen {
		if k != 1 {
			t.Errorf("message %d stored %d times", n, k)
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged messages lost after kill -9", lost, len(acked))
	}
	t.Logf("%d acknowledged before kill -9, all found once; %d stored in all", len(acked), len(seen))
}
