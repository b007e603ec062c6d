package gelf_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/loggate/loggate/backend/logs/gelf"
)

// viewMessage is the Message a View stands for, with copies of its strings.
func viewMessage(v *gelf.View) gelf.Message {
	m := gelf.Message{Timestamp: v.Timestamp, Source: clone(v.Source), Message: clone(v.Message), Fields: []gelf.Field{}}
	for i := range v.Fields {
		val := v.Fields[i].Value()
		if s, ok := val.(string); ok {
			val = clone(s)
		}
		m.Fields = append(m.Fields, gelf.Field{Key: clone(v.Fields[i].Key), Value: val})
	}
	return m
}

func clone(s string) string { return string([]byte(s)) }

// decoderPayloads cover escapes (which a Decoder keeps in its own buffer),
// containers, compression and every refusal.
var decoderPayloads = [][]byte{
	sample400,
	[]byte(`{"host":"h\u00e9","short_message":"say \"hi\"\n","_a":"x\/y","_b":"\ud83d\ude00 \ud83d","_c":[1, 2 ,],"_d":{"k":"\n"}}`),
	[]byte(`{"host":"h","short_message":"m","_x":"first","_x":"second \"kept\"","level":"3","line":7.9,"file":12}`),
	[]byte(`{"host":"h","message":"fallback","timestamp":"1600000000.5","_id":"i","_gl2_x":1}`),
	[]byte("\ufeff{\"host\":\"h\",\"short_message\":\"bad \xff utf8\"}"),
	[]byte(`{"host":"","short_message":"m"}`),
	[]byte(`{"host":"h"}`),
	[]byte(`{"host":"h","short_message":"m"`),
	[]byte(`[]`),
	{0x1e, 0x0f, 1, 2},
}

// TestDecoderMatchesDecode: a Decoder reads every payload as Decode does,
// with one Decoder used for all of them in turn.
func TestDecoderMatchesDecode(t *testing.T) {
	opts := gelf.Options{Now: fixedNow, MaxDecompressed: 1 << 20}
	var dec gelf.Decoder
	payloads := append(decoderPayloads, zlibbed(t, decoderPayloads[1]), gzipped(t, sample400))
	for round := range 2 {
		for i, p := range payloads {
			want, werr := gelf.Decode(p, opts)
			v, err := dec.Decode(p, opts)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("round %d payload %d: err %v, Decode's %v", round, i, err, werr)
			}
			if err != nil {
				if !errors.Is(err, gelf.ErrInvalid) {
					t.Fatalf("payload %d: %v does not wrap ErrInvalid", i, err)
				}
				continue
			}
			if got := viewMessage(v); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d payload %d:\n got %#v\nwant %#v", round, i, got, want)
			}
		}
	}
}

// TestDecoderAllocations: decoding a plain payload, escapes included,
// allocates nothing once the Decoder's buffers have grown.
func TestDecoderAllocations(t *testing.T) {
	opts := gelf.Options{Now: fixedNow}
	var dec gelf.Decoder
	for i, p := range decoderPayloads[:3] {
		if _, err := dec.Decode(p, opts); err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if i == 1 {
			// A container that is not compact is compacted into a string
			// of its own.
			want = 1
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = dec.Decode(p, opts) }); n > want {
			t.Errorf("payload %d: %.1f allocations per decoding, want %.0f", i, n, want)
		}
	}
}

// TestDecoderBudget: a Decoder asks the budget for what Decode does, its
// text included although it does not copy it: the record an input makes
// of the text takes about as much until it is journaled.
func TestDecoderBudget(t *testing.T) {
	for i, p := range [][]byte{sample400, gzipped(t, sample400)} {
		var viaDecode, viaDecoder budget
		viaDecode.limit, viaDecoder.limit = 1<<30, 1<<30
		if _, err := gelf.Decode(p, gelf.Options{Now: fixedNow, Budget: &viaDecode}); err != nil {
			t.Fatal(err)
		}
		var dec gelf.Decoder
		if _, err := dec.Decode(p, gelf.Options{Now: fixedNow, Budget: &viaDecoder}); err != nil {
			t.Fatal(err)
		}
		if viaDecoder.granted != viaDecode.granted || viaDecode.granted < len(sample400) {
			t.Errorf("payload %d: Decoder asked for %d bytes, Decode for %d", i, viaDecoder.granted, viaDecode.granted)
		}
	}
}

// TestDecoderReleaseKeepsLittle: a Decoder kept between payloads (one per
// TCP connection) holds little after Release, whatever the last payload
// made it grow; and Release does not cost the usual payloads their
// allocation-free decoding.
func TestDecoderReleaseKeepsLittle(t *testing.T) {
	opts := gelf.Options{Now: fixedNow, MaxDecompressed: 8 << 20}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	decoders := make([]gelf.Decoder, 4)
	base := heap()
	for i := range decoders {
		// 100,000 short keys: some 1.5 MB of text.
		var b bytes.Buffer
		b.WriteString(`{"version":"1.1","host":"h","short_message":"m"`)
		for k := range 100000 {
			fmt.Fprintf(&b, `,"_k%d":"v"`, k)
		}
		b.WriteString("}")
		v, err := decoders[i].Decode(b.Bytes(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Fields) < 100000 {
			t.Fatalf("%d fields decoded", len(v.Fields))
		}
		decoders[i].Release()
	}
	if kept := int64(heap()) - int64(base); kept > 1<<20 {
		t.Errorf("4 released decoders keep %d KiB after payloads of 100,000 fields", kept>>10)
	}
	runtime.KeepAlive(decoders)

	p := decoderPayloads[0]
	var dec gelf.Decoder
	if _, err := dec.Decode(p, opts); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = dec.Decode(p, opts); dec.Release() }); n > 0 {
		t.Errorf("%.1f allocations per decoding and release of a usual payload", n)
	}
}
