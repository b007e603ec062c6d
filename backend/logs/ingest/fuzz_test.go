package ingest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/messages"
)

// memJournal keeps appended records in memory.
type memJournal struct {
	mu   sync.Mutex
	recs [][]byte
}

func (j *memJournal) Append(_ context.Context, recs ...[]byte) (uint64, uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	first := uint64(len(j.recs))
	for _, r := range recs {
		j.recs = append(j.recs, bytes.Clone(r))
	}
	return first, uint64(len(j.recs) - 1), nil
}

func (j *memJournal) WaitNotFull(context.Context, int) error { return nil }

func fuzzInstance(t testing.TB, typ string) (*instance, *memJournal) {
	t.Helper()
	j := &memJournal{}
	r := NewRunner(j, nopStates{}, Options{NodeID: "node"})
	in := inputs.Input{ID: "in", Type: typ, Configuration: map[string]any{"max_message_size": 4096, "max_chunk_size": 4096}}
	cfg, err := parseConfig(in)
	if err != nil {
		t.Fatal(err)
	}
	return r.newInstance(in, cfg, r.opts.Logger), j
}

// checkRecord checks a journaled record is a message with what every
// message must have.
func checkRecord(t *testing.T, rec []byte) {
	t.Helper()
	var m messages.Message
	if err := m.UnmarshalBinary(rec); err != nil {
		t.Fatalf("journaled record does not decode: %v", err)
	}
	for _, k := range []string{"message", "source", "gl2_source_input", "gl2_message_id", "gl2_remote_ip"} {
		if v, ok := m.Get(k); !ok || v == "" {
			t.Fatalf("record lacks %s: %+v", k, m)
		}
	}
}

// FuzzHTTPBody posts arbitrary bodies: the answer is 202 with exactly one
// well-formed record, or a client error with none.
func FuzzHTTPBody(f *testing.F) {
	f.Add([]byte(`{"host":"h","short_message":"m","_a":1}`), "")
	f.Add([]byte(`{"host":"h","short_message":"m","_gl2_remote_ip":"x","_nested":{"a":[1,2]}}`), "gzip")
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, "gzip")
	f.Add([]byte{0x78, 0x9c, 0xab, 0xae, 0x05, 0x00}, "deflate")
	f.Add([]byte(`{"host":" ","short_message":"m"}`), "")
	f.Add([]byte(``), "")
	f.Fuzz(func(t *testing.T, body []byte, encoding string) {
		inst, j := fuzzInstance(t, inputs.GELFHTTPType)
		h := &httpHandler{inst: inst}
		req := httptest.NewRequest(http.MethodPost, "/gelf", bytes.NewReader(body))
		req.RemoteAddr = "192.0.2.1:1234"
		if encoding != "" {
			req.Header.Set("Content-Encoding", encoding)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusAccepted:
			if len(j.recs) != 1 {
				t.Fatalf("202 with %d records", len(j.recs))
			}
			checkRecord(t, j.recs[0])
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if len(j.recs) != 0 {
				t.Fatalf("%d with %d records", w.Code, len(j.recs))
			}
		default:
			t.Fatalf("status %d", w.Code)
		}
	})
}

// FuzzTCPStream reads an arbitrary stream as a GELF TCP connection: every
// record is well-formed, and there are no more records than frames.
func FuzzTCPStream(f *testing.F) {
	f.Add([]byte("{\"host\":\"h\",\"short_message\":\"m\"}\x00{\"host\":\"h\",\"short_message\":\"n\"}"))
	f.Add([]byte("\x00\x00garbage\x00{\"host\":\"h\",\"message\":\"m\"}\x00\n"))
	f.Add(bytes.Repeat([]byte("x"), 5000))
	f.Fuzz(func(t *testing.T, stream []byte) {
		inst, j := fuzzInstance(t, inputs.GELFTCPType)
		h := newTCPConn(inst, newRemote(netip.MustParseAddrPort("[::1]:9")))
		if err := h.run(context.Background(), bytes.NewReader(stream)); err != nil {
			t.Fatalf("run: %v", err)
		}
		if frames := bytes.Count(stream, []byte{0}) + 1; len(j.recs) > frames {
			t.Fatalf("%d records from at most %d frames", len(j.recs), frames)
		}
		for _, r := range j.recs {
			checkRecord(t, r)
		}

		// The same stream from a connection found quiet before every
		// other read, which waits without its buffer, gives as many.
		inst, qj := fuzzInstance(t, inputs.GELFTCPType)
		h = newTCPConn(inst, newRemote(netip.MustParseAddrPort("[::1]:9")))
		quiet := false
		h.unread = func() int {
			quiet = !quiet
			if quiet {
				return 0
			}
			return 1
		}
		h.readable = func() error { return nil }
		if err := h.run(context.Background(), bytes.NewReader(stream)); err != nil {
			t.Fatalf("run with waits: %v", err)
		}
		if len(qj.recs) != len(j.recs) {
			t.Fatalf("%d records with waits, %d without", len(qj.recs), len(j.recs))
		}
	})
}
