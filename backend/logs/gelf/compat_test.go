package gelf_test

// The public Go client github.com/Graylog2/go-gelf is not a dependency of
// loggate. These tests rebuild its wire format from its source
// (gelf/writer.go): JSON via encoding/json with the extra fields merged in,
// gzip by default (CompressionType's zero value; zlib on request), and
// chunking when the compressed message exceeds ChunkSize = 1420 bytes —
// 12-byte header (0x1e 0x0f, 8 random id bytes, sequence, count) and 1408
// data bytes per chunk, len/1408+1 chunks, so an exact multiple ends with
// an empty chunk. The end-to-end tests of the inputs should use the real
// module.

import (
	"crypto/rand"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
)

const (
	goGelfChunkSize = 1420
	goGelfDataLen   = goGelfChunkSize - 12
)

// goGelfMessage mirrors go-gelf's Message JSON.
type goGelfMessage struct {
	Version  string  `json:"version"`
	Host     string  `json:"host"`
	Short    string  `json:"short_message"`
	Full     string  `json:"full_message,omitempty"`
	TimeUnix float64 `json:"timestamp"`
	Level    int32   `json:"level,omitempty"`
	Facility string  `json:"facility,omitempty"`
}

// goGelfMarshal is go-gelf's MarshalJSONBuf: the message without its
// closing brace, a comma, the extra map without its braces, a brace.
func goGelfMarshal(t *testing.T, m goGelfMessage, extra map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	b = b[:len(b)-1]
	if len(extra) > 0 {
		eb, err := json.Marshal(extra)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, ','), eb[1:len(eb)-1]...)
	}
	return append(b, '}')
}

// goGelfDatagrams is go-gelf's WriteMessage after compression.
func goGelfDatagrams(t *testing.T, z []byte) [][]byte {
	t.Helper()
	if len(z) <= goGelfChunkSize {
		return [][]byte{z}
	}
	n := len(z)/goGelfDataLen + 1
	if n > 128 {
		t.Fatalf("go-gelf refuses %d chunks", n)
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for i := range n {
		d := append([]byte{0x1e, 0x0f}, id...)
		d = append(d, byte(i), byte(n))
		end := min((i+1)*goGelfDataLen, len(z))
		out = append(out, append(d, z[i*goGelfDataLen:end]...))
	}
	return out
}

func TestGoGelfCompatibility(t *testing.T) {
	ts := float64(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Unix())
	tests := []struct {
		name     string
		short    string
		full     string
		compress func(testing.TB, []byte) []byte
		chunks   int
	}{
		{name: "gzip single datagram", short: "hello", compress: gzipped, chunks: 1},
		{name: "zlib single datagram", short: "hello", compress: zlibbed, chunks: 1},
		{name: "uncompressed", short: "hello", compress: func(_ testing.TB, b []byte) []byte { return b }, chunks: 1},
		{name: "gzip chunked", short: "big", full: randomText(t, 6000), compress: gzipped, chunks: 4},
		{name: "uncompressed chunked, empty last chunk", short: "x", full: "", compress: func(_ testing.TB, b []byte) []byte { return padTo(b, 2*goGelfDataLen) }, chunks: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := goGelfMessage{Version: "1.1", Host: "app-1", Short: tc.short, Full: tc.full, TimeUnix: ts, Level: 6, Facility: "svc"}
			raw := goGelfMarshal(t, msg, map[string]any{"_file": "main.go", "_line": 42, "_user": "ann"})
			datagrams := goGelfDatagrams(t, tc.compress(t, raw))
			if len(datagrams) != tc.chunks {
				t.Fatalf("go-gelf would send %d datagrams, test wants %d", len(datagrams), tc.chunks)
			}
			c := gelf.NewChunker(gelf.Options{Now: fixedNow})
			var payload []byte
			for i, d := range datagrams {
				p, complete, err := c.Add(d, netip.MustParseAddrPort("198.51.100.7:5000"))
				if err != nil || complete != (i == len(datagrams)-1) {
					t.Fatalf("datagram %d: complete %v, err %v", i, complete, err)
				}
				payload = p
			}
			m, err := gelf.Decode(payload, gelf.Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if m.Source != "app-1" || m.Message != tc.short || m.Timestamp.Unix() != int64(ts) {
				t.Errorf("message = %q from %q at %v", m.Message, m.Source, m.Timestamp)
			}
			want := map[string]any{"level": int64(6), "facility": "svc", "file": "main.go", "line": int64(42), "user": "ann"}
			if tc.full != "" {
				want["full_message"] = strings.TrimSpace(tc.full)
			}
			for k, v := range want {
				if got, _ := m.Field(k); got != v {
					t.Errorf("%s = %#v, want %#v", k, got, v)
				}
			}
			if len(m.Fields) != len(want) {
				t.Errorf("fields = %v, want %d", m.Fields, len(want))
			}
		})
	}
}

// padTo grows a JSON object with spaces before its closing brace.
func padTo(b []byte, n int) []byte {
	out := append([]byte{}, b[:len(b)-1]...)
	for len(out) < n-1 {
		out = append(out, ' ')
	}
	return append(out, '}')
}

// randomText is incompressible enough to need several chunks once gzipped.
func randomText(t *testing.T, n int) string {
	t.Helper()
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "x" + string(b) + "x"
}

// TestGoGelfTCP covers go-gelf's TCP writer framing: each message followed
// by a null byte.
func TestGoGelfTCP(t *testing.T) {
	var stream strings.Builder
	for i := range 3 {
		raw := goGelfMarshal(t, goGelfMessage{Version: "1.1", Host: "h", Short: "m" + string(rune('0'+i)), TimeUnix: 1}, nil)
		stream.Write(raw)
		stream.WriteByte(0)
	}
	f := gelf.NewFramer(strings.NewReader(stream.String()), 0)
	for i := range 3 {
		frame, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		m, err := gelf.Decode(frame, gelf.Options{Now: fixedNow})
		if err != nil || m.Message != "m"+string(rune('0'+i)) {
			t.Fatalf("frame %d: %q, %v", i, m.Message, err)
		}
	}
}
