package gelf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/netip"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/gelf"
)

func FuzzDecode(f *testing.F) {
	seeds := [][]byte{
		sample400,
		[]byte(`{"host":"h","short_message":"m"}`),
		[]byte(`{"host":"h","message":"m","timestamp":"1.5","level":"3","line":7.2,"_a":[1,{"b":null},],}`),
		[]byte("{\"host\":\"h\",\"short_message\":\"\x01\\u00e9\\ud83d\",\"_o\":{ \"k\" : [ ] }}\x00"),
		[]byte(`{"host":"h","short_message":"m","_x":1e400,"_y":-0,"_z":12345678901234567890}`),
		[]byte(`[1,2]`),
		[]byte(`{"host":" h ","short_message":"m","_a":" x ","_b":1.5,"_c":-3,"_d":true,"_e":null,"_f":"","_g":"\u0041\n"}`),
		{0x78, 0x9c},
		{0x1f, 0x8b, 8, 0},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(zlibbed(f, sample400))
	f.Add(gzipped(f, sample400))
	opts := gelf.Options{Now: fixedNow, MaxDecompressed: 1 << 20}
	f.Add(rawDeflate(f, sample400))
	// One Decoder for every input, as an input has for every message: it
	// must read each as Decode does, whatever came before.
	var dec gelf.Decoder
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, enc := range []string{"gzip", "deflate"} {
			want, werr := gelf.DecodeHTTP(payload, enc, opts)
			if werr != nil && !errors.Is(werr, gelf.ErrInvalid) {
				t.Fatalf("DecodeHTTP(%s): error does not wrap ErrInvalid: %v", enc, werr)
			}
			v, err := dec.DecodeHTTP(payload, enc, opts)
			sameDecoding(t, v, err, want, werr)
		}
		m, err := gelf.Decode(payload, opts)
		v, verr := dec.Decode(payload, opts)
		sameDecoding(t, v, verr, m, err)
		if err != nil {
			if !errors.Is(err, gelf.ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if m.Source == "" || m.Message == "" || m.Timestamp.IsZero() {
			t.Fatalf("accepted message lacks a core field: %+v", m)
		}
		seen := map[string]bool{}
		for _, fl := range m.Fields {
			if seen[fl.Key] || fl.Key == "" {
				t.Fatalf("duplicate or empty key %q", fl.Key)
			}
			seen[fl.Key] = true
			switch v := fl.Value.(type) {
			case string:
				if v == "" || !utf8.ValidString(v) {
					t.Fatalf("field %q: bad string %q", fl.Key, v)
				}
			case int64, float64:
			default:
				t.Fatalf("field %q: unexpected type %T", fl.Key, v)
			}
		}
		// Whatever strict JSON accepts as an object, the lenient parser
		// must read the same way.
		if bytes.HasPrefix(payload, []byte("{")) && json.Valid(payload) {
			compareWithEncodingJSON(t, payload, m)
		}
	})
}

// compareWithEncodingJSON checks host, short_message and the simple
// underscore fields against encoding/json's reading of a strict payload.
func compareWithEncodingJSON(t *testing.T, payload []byte, m gelf.Message) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var generic map[string]any
	if dec.Decode(&generic) != nil || !utf8.Valid(payload) {
		return
	}
	if h, ok := generic["host"].(string); ok && gelfTrim(h) != m.Source {
		t.Fatalf("host %q decoded as %q", h, m.Source)
	}
	// Keys that name the same field (" z", "z" and "_z" all name z): the
	// first one sets it, which a map cannot tell.
	names := map[string]int{}
	for k := range generic {
		if len(k) > 1 && k[0] == '_' {
			k = k[1:]
		}
		names[gelfTrim(k)]++
	}
	for k, v := range generic {
		name := k[min(1, len(k)):]
		if len(k) < 2 || k[0] != '_' || k == "_id" || !simpleName(name) {
			continue
		}
		if names[name] > 1 {
			continue
		}
		got, ok := m.Field(name)
		switch v := v.(type) {
		case string:
			want := gelfTrim(v)
			if (want == "") == ok || (ok && got != want) {
				t.Fatalf("%s: got %#v (%v), want %q", k, got, ok, want)
			}
		case json.Number:
			if i, err := v.Int64(); err == nil && !bytes.ContainsAny([]byte(v), ".eE") {
				if got != i {
					t.Fatalf("%s: got %#v, want int64 %d", k, got, i)
				}
			} else if f, err := v.Float64(); err == nil && got != f {
				t.Fatalf("%s: got %#v, want float64 %v", k, got, f)
			}
		case bool, nil:
			if ok {
				t.Fatalf("%s: got %#v, want no field", k, got)
			}
		}
	}
}

// simpleName is a field name no other rule touches.
func simpleName(s string) bool {
	if s == "" || s[0] == '_' {
		return false
	}
	switch s {
	case "host", "short_message", "message", "source", "timestamp", "streams",
		"full_message", "file", "line", "level", "facility", "version":
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func gelfTrim(s string) string {
	return string(bytes.TrimFunc([]byte(s), func(r rune) bool { return r <= ' ' }))
}

func FuzzChunker(f *testing.F) {
	f.Add(chunk(1, 0, 2, "ab"), chunk(1, 1, 2, "c"), chunk(1, 1, 2, "d"), uint8(3))
	f.Add(chunk(1, 0, 1, "x"), []byte{0x1e, 0x0f}, chunk(2, 5, 3, ""), uint8(0))
	f.Add(chunk(1, 0, 129, "x"), chunk(1, 127, 128, "y"), []byte(`{}`), uint8(200))
	f.Fuzz(func(t *testing.T, a, b, c []byte, gap uint8) {
		clk := &clock{t: receiveTime}
		ch := gelf.NewChunker(gelf.Options{Now: clk.now, MaxChunkedMessages: 4, MaxChunkedBytes: 1 << 16})
		for i, d := range [][]byte{a, b, c, a, c} {
			clk.advance(time.Duration(gap) * 10 * time.Millisecond)
			p, complete, err := ch.Add(d, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 2)}), 1))
			if err != nil && !errors.Is(err, gelf.ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			if complete && len(p) > len(a)+len(b)+len(c)+len(a)+len(c) {
				t.Fatalf("payload of %d bytes from smaller input", len(p))
			}
		}
		s := ch.Stats()
		if s.WaitingMessages > 4 || s.WaitingBytes > 1<<16 || s.WaitingBytes < 0 {
			t.Fatalf("bounds exceeded: %+v", s)
		}
		ch.Expire(clk.now().Add(time.Minute))
		if s := ch.Stats(); s.WaitingMessages != 0 || s.WaitingBytes != 0 {
			t.Fatalf("not empty after expiry: %+v", s)
		}
	})
}

func FuzzFramer(f *testing.F) {
	f.Add([]byte("{a}\x00{b}\x00{c}"), uint16(3), uint8(2))
	f.Add([]byte("\x00\x00xxxxxxxxxx\x00y"), uint16(4), uint8(1))
	f.Add([]byte(""), uint16(0), uint8(0))
	f.Fuzz(func(t *testing.T, stream []byte, maxFrame uint16, readLen uint8) {
		var r io.Reader = bytes.NewReader(stream)
		if readLen > 0 {
			r = &chunkedReader{data: string(stream), n: int(readLen)}
		}
		max := int(maxFrame)
		fr := gelf.NewFramer(r, max)
		// The same stream, read with a wait before each read, gives the
		// same frames.
		var waiting io.Reader = bytes.NewReader(stream)
		if readLen > 0 {
			waiting = &chunkedReader{data: string(stream), n: int(readLen)}
		}
		wfr, _ := waitingFramer(t, waiting, max)
		if max <= 0 {
			max = gelf.DefaultMaxMessageSize
		}
		total := 0
		for {
			frame, err := fr.Next()
			wframe, werr := wfr.Next()
			if err != werr || !bytes.Equal(frame, wframe) {
				t.Fatalf("frame %q, %v; with waits %q, %v", frame, err, wframe, werr)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(frame) == 0 || len(frame) > max || bytes.IndexByte(frame, 0) >= 0 {
				t.Fatalf("bad frame %q (max %d)", frame, max)
			}
			total += len(frame)
		}
		if fr.Dropped() != wfr.Dropped() {
			t.Fatalf("dropped %d; with waits %d", fr.Dropped(), wfr.Dropped())
		}
		if total > len(stream) {
			t.Fatalf("framed %d bytes out of %d", total, len(stream))
		}
		// Without oversized frames, the frames are exactly the non-empty
		// pieces between null bytes (a blank tail aside).
		if fr.Dropped() == 0 {
			want := 0
			parts := bytes.Split(stream, []byte{0})
			for i, p := range parts {
				if i == len(parts)-1 && len(bytes.TrimFunc(p, func(r rune) bool { return r <= ' ' })) == 0 {
					continue
				}
				want += len(p)
			}
			if total != want {
				t.Fatalf("framed %d bytes, want %d", total, want)
			}
		}
	})
}

// sameDecoding fails unless a Decoder's result is Decode's.
func sameDecoding(t *testing.T, v *gelf.View, err error, want gelf.Message, werr error) {
	t.Helper()
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("Decoder: %v, Decode: %v", err, werr)
	}
	if err != nil {
		return
	}
	got := viewMessage(v)
	// DeepEqual is safe: non-finite numbers, NaN among them, are dropped.
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decoder:\n got %#v\nwant %#v", got, want)
	}
}
