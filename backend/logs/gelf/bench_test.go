package gelf_test

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"testing"

	"github.com/loggate/loggate/backend/logs/gelf"
)

func benchDecode(b *testing.B, payload []byte) {
	b.Helper()
	opts := gelf.Options{Now: fixedNow}
	b.SetBytes(int64(len(sample400)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gelf.Decode(payload, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePlain(b *testing.B) { benchDecode(b, sample400) }
func BenchmarkDecodeZlib(b *testing.B)  { benchDecode(b, zlibbed(b, sample400)) }
func BenchmarkDecodeGzip(b *testing.B)  { benchDecode(b, gzipped(b, sample400)) }

func BenchmarkChunker3Chunks(b *testing.B) {
	c := gelf.NewChunker(gelf.Options{Now: fixedNow})
	from := netip.MustParseAddrPort("192.0.2.1:5000")
	parts := [][]byte{sample400[:140], sample400[140:280], sample400[280:]}
	datagrams := make([][]byte, 3)
	b.SetBytes(int64(len(sample400)))
	b.ReportAllocs()
	id := uint64(0)
	for b.Loop() {
		id++
		for i, p := range parts {
			datagrams[i] = append(chunkHeader(datagrams[i][:0], id, byte(i), 3), p...)
		}
		for _, d := range datagrams {
			if _, _, err := c.Add(d, from); err != nil {
				b.Fatal(err)
			}
		}
	}
	if s := c.Stats(); s.WaitingMessages != 0 {
		b.Fatalf("incomplete messages: %+v", s)
	}
}

func chunkHeader(dst []byte, id uint64, seq, count byte) []byte {
	return append(dst, 0x1e, 0x0f, byte(id>>56), byte(id>>48), byte(id>>40), byte(id>>32), byte(id>>24), byte(id>>16), byte(id>>8), byte(id), seq, count)
}

func BenchmarkFramer(b *testing.B) {
	var stream bytes.Buffer
	for range 1000 {
		stream.Write(sample400)
		stream.WriteByte(0)
	}
	data := stream.Bytes()
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(data)
		f := gelf.NewFramer(r, 0)
		n := 0
		for {
			if _, err := f.Next(); err != nil {
				break
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("got %d frames", n)
		}
	}
}

// BenchmarkFramerDecode is the TCP input's per-message work end to end.
func BenchmarkFramerDecode(b *testing.B) {
	var stream bytes.Buffer
	for range 1000 {
		stream.Write(sample400)
		stream.WriteByte(0)
	}
	data := stream.Bytes()
	r := bytes.NewReader(data)
	opts := gelf.Options{Now: fixedNow}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(data)
		f := gelf.NewFramer(r, 0)
		for {
			frame, err := f.Next()
			if err != nil {
				break
			}
			if _, err := gelf.Decode(frame, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBaselineEncodingJSON is the yardstick: encoding/json into a map,
// which does less than Decode (no validation or mapping).
func BenchmarkBaselineEncodingJSON(b *testing.B) {
	b.SetBytes(int64(len(sample400)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(sample400, &m); err != nil {
			b.Fatal(err)
		}
	}
}
