package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/loggate/loggate/internal/servicetest"
)

// memoryEnv runs the heavy decompression bomb tests, which take a loggate
// process to hundreds of megabytes (make memtest).
const memoryEnv = "LOGGATE_TEST_MEMORY"

// gzipBomb is a gzip GELF message whose short_message is one letter
// repeated to make the message size bytes: about a kilobyte per megabyte
// inflated. Once the compressor's window is all that letter, each further
// megabyte compresses to the same bytes, which are repeated rather than
// computed, so a gigabyte takes a moment.
func gzipBomb(t *testing.T, size int) []byte {
	t.Helper()
	const head, tail = `{"version":"1.1","host":"bomb","short_message":"`, `"}`
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	var out bytes.Buffer
	fw, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	crc := crc32.NewIEEE()
	write := func(p []byte) {
		_, _ = crc.Write(p)
		if _, err := fw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	write([]byte(head))
	n := size - len(head) - len(tail)
	var steady []byte
	for ; n >= len(chunk); n -= len(chunk) {
		if steady != nil {
			out.Write(steady)
			_, _ = crc.Write(chunk)
			continue
		}
		before := out.Len()
		write(chunk)
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
		if seg := out.Bytes()[before:]; bytes.Equal(seg, out.Bytes()[max(0, before-len(seg)):before]) {
			steady = bytes.Clone(seg)
		}
	}
	write(chunk[:n])
	write([]byte(tail))
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	gz := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	gz = append(gz, out.Bytes()...)
	gz = binary.LittleEndian.AppendUint32(gz, crc.Sum32())
	return binary.LittleEndian.AppendUint32(gz, uint32(size))
}

// TestGzipBomb checks the bomb the memory test sends on a size small
// enough to inflate here.
func TestGzipBomb(t *testing.T) {
	const size = 5<<20 + 123
	zr, err := gzip.NewReader(bytes.NewReader(gzipBomb(t, size)))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Message string `json:"short_message"`
	}
	if err := json.Unmarshal(text, &m); err != nil || len(text) != size || strings.Trim(m.Message, "a") != "" {
		t.Fatalf("inflated to %d bytes (%v), want %d bytes of GELF", len(text), err, size)
	}
}

// peakRSS is the child's peak resident set size (VmHWM) in bytes.
func (c *child) peakRSS(t *testing.T) int64 {
	t.Helper()
	return peakRSS(t, c.cmd.Process.Pid)
}

// gelfInput creates a global GELF HTTP input on a free port with the given
// configuration and returns its /gelf URL.
func (c *child) gelfInput(t *testing.T, config map[string]any) (id, url string) {
	t.Helper()
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	config["bind_address"], config["port"] = "127.0.0.1", port
	status, body := c.api(t, "POST", "/system/inputs", map[string]any{
		"title": "bomb", "type": "org.graylog2.inputs.gelf.http.GELFHttpInput", "global": true, "configuration": config,
	})
	if status != http.StatusCreated {
		t.Fatalf("create input: %d %s", status, body)
	}
	var in struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &in)
	return in.ID, fmt.Sprintf("http://127.0.0.1:%d/gelf", port)
}

// postAll posts body n times at once and counts the answers by status.
func postAll(t *testing.T, url string, body []byte, n int) map[int]int {
	t.Helper()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		wg       sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			status := 0
			resp, err := http.Post(url, "application/json", bytes.NewReader(body))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				status = resp.StatusCode
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return statuses
}

// processed waits until the child's journal has no unprocessed entries:
// the store has taken every accepted message.
func (c *child) processed(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, b := c.api(t, "GET", "/system/journal", nil)
		var j struct {
			Uncommitted int64 `json:"uncommitted_journal_entries"`
		}
		_ = json.Unmarshal(b, &j)
		if j.Uncommitted == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("journal still has %d uncommitted entries", j.Uncommitted)
		}
		time.Sleep(50 * time.Millisecond) // polling an observable condition
	}
}

// TestDecompressionBombsStayBounded posts 100 gzip bodies of 8 KB that
// inflate to 8 MiB each at once; and, to another loggate, two of 1 MB that
// inflate to 1 GiB to an input whose decompress_size_limit was raised as
// high as allowed. Each process's peak RSS (VmHWM), read once the accepted
// messages are stored, stays under 500 MB.
func TestDecompressionBombsStayBounded(t *testing.T) {
	if os.Getenv(memoryEnv) == "" {
		t.Skipf("set %s=1 (make memtest) to run the decompression bomb tests", memoryEnv)
	}
	const limit = 500 << 20
	t.Run("100 × 8 KB → 8 MiB", func(t *testing.T) {
		c := startChild(t, t.TempDir())
		_, url := c.gelfInput(t, map[string]any{})
		bomb := gzipBomb(t, 8<<20-1)
		statuses := postAll(t, url, bomb, 100)
		c.processed(t)
		peak := c.peakRSS(t)
		t.Logf("100 concurrent %d B gzip bodies inflating to 8 MiB: statuses %v; peak RSS %d MB", len(bomb), statuses, peak>>20)
		if statuses[http.StatusAccepted] == 0 || statuses[http.StatusAccepted]+statuses[http.StatusServiceUnavailable] != 100 {
			t.Errorf("statuses %v, want 202 for some and 503 for the others", statuses)
		}
		if peak > limit {
			t.Errorf("peak RSS %d MB, want under %d MB", peak>>20, limit>>20)
		}
	})
	t.Run("2 × 1 MB → 1 GiB", func(t *testing.T) {
		c := startChild(t, t.TempDir())
		const recordLimit = 32 << 20
		config := map[string]any{"max_chunk_size": 2 << 20}
		id, url := c.gelfInput(t, config)
		update := func(decompressLimit int) (int, []byte) {
			config["decompress_size_limit"] = decompressLimit
			return c.api(t, "PUT", "/system/inputs/"+id, map[string]any{
				"title": "bomb", "type": "org.graylog2.inputs.gelf.http.GELFHttpInput", "global": true, "configuration": config,
			})
		}
		status, body := update(2147483647)
		if status != http.StatusBadRequest || !strings.Contains(string(body), "2147483647") || !strings.Contains(string(body), strconv.Itoa(recordLimit)) {
			t.Errorf("raising decompress_size_limit to 2147483647: %d %s, want 400 naming both limits", status, body)
		}
		if status, body := update(recordLimit); status != http.StatusCreated {
			t.Fatalf("raising decompress_size_limit to %d: %d %s", recordLimit, status, body)
		}
		bomb := gzipBomb(t, 1<<30)
		// The input restarts with the new limit: wait until it answers.
		for postAll(t, url, []byte("{}"), 1)[0] != 0 {
			time.Sleep(10 * time.Millisecond) // polling an observable condition
		}
		statuses := postAll(t, url, bomb, 2)
		peak := c.peakRSS(t)
		t.Logf("2 concurrent %d B gzip bodies inflating to 1 GiB (limit %d): statuses %v; peak RSS %d MB", len(bomb), recordLimit, statuses, peak>>20)
		// Both need more than half the budget: one may be answered 503.
		if statuses[http.StatusRequestEntityTooLarge] == 0 || statuses[http.StatusRequestEntityTooLarge]+statuses[http.StatusServiceUnavailable] != 2 {
			t.Errorf("statuses %v, want 413, or 503 for one", statuses)
		}
		if peak > limit {
			t.Errorf("peak RSS %d MB, want under %d MB", peak>>20, limit>>20)
		}
	})
}
