package embedded

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestEncoderWindow: stored blocks and meta sections are compressed with
// a 1 MiB window (the default 8 MiB cost 16 MiB of history for nothing),
// so a reader needs no more either.
func TestEncoderWindow(t *testing.T) {
	big := bytes.Repeat([]byte("a line of text, "), 1<<17) // 2 MiB
	for name, e := range map[string]*zstd.Encoder{"encoder": encoder, "blockEncoder": blockEncoder} {
		var h zstd.Header
		if err := h.Decode(e.EncodeAll(big, nil)); err != nil {
			t.Fatal(err)
		}
		// A single-segment frame's window is its whole content.
		window := h.WindowSize
		if h.SingleSegment {
			window = h.FrameContentSize
		}
		if window > encoderWindow {
			t.Errorf("%s: frame window %d, want at most %d", name, window, encoderWindow)
		}
	}
}
