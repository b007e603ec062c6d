package journal

import (
	"bytes"
	"testing"
)

// FuzzScanFrames feeds arbitrary segment bodies to both frame parsers: they
// must agree, never panic, and the valid prefix must re-encode to the same
// bytes, so recovery keeps exactly what was written and nothing else.
func FuzzScanFrames(f *testing.F) {
	var two []byte
	two = appendFrame(two, []byte("hello"))
	two = appendFrame(two, nil)
	f.Add(two)
	f.Add(append(append([]byte(nil), two...), 1, 2, 3))
	f.Add(two[:len(two)-3])
	f.Add(make([]byte, 64))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		const maxLen = 1 << 16
		n, valid, err := scanFrames(bytes.NewReader(b), maxLen, -1)
		if err != nil {
			t.Fatalf("scanFrames: %v", err)
		}
		if valid > int64(len(b)) {
			t.Fatalf("valid %d beyond %d bytes", valid, len(b))
		}
		var re []byte
		p, count := 0, 0
		for {
			payload, size, st := decodeFrame(b[p:], maxLen)
			if st != frameOK {
				break
			}
			re = appendFrame(re, payload)
			p += size
			count++
		}
		if count != n || int64(p) != valid {
			t.Fatalf("decodeFrame saw %d frames in %d bytes, scanFrames %d in %d", count, p, n, valid)
		}
		if !bytes.Equal(re, b[:p]) {
			t.Fatal("valid prefix does not re-encode to itself")
		}
	})
}

// FuzzFrameRoundTrip checks any payload survives encoding, and that a
// truncated frame is never taken for a valid one.
func FuzzFrameRoundTrip(f *testing.F) {
	f.Add([]byte("gelf message"), 3)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, payload []byte, cut int) {
		frame := appendFrame(nil, payload)
		got, size, st := decodeFrame(frame, len(payload))
		if st != frameOK || size != len(frame) || !bytes.Equal(got, payload) {
			t.Fatalf("round trip: status %d size %d", st, size)
		}
		if cut = abs(cut) % len(frame); cut > 0 {
			if _, _, st := decodeFrame(frame[:len(frame)-cut], len(payload)); st == frameOK {
				t.Fatal("truncated frame decoded as valid")
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzDecodeHeader checks header parsing never panics and accepts only what
// encode produces.
func FuzzDecodeHeader(f *testing.F) {
	f.Add(segmentHeader{base: 42}.encode())
	f.Add([]byte(segmentMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := decodeHeader(b)
		if err != nil {
			return
		}
		enc := segmentHeader{base: h.base, created: h.created}.encode()
		if !bytes.Equal(enc[:28], b[:28]) {
			t.Fatal("accepted header does not re-encode to itself")
		}
	})
}
