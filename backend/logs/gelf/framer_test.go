package gelf_test

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/loggate/loggate/backend/logs/gelf"
)

// frames reads every frame of r.
func frames(t *testing.T, f *gelf.Framer) ([]string, error) {
	t.Helper()
	var out []string
	for {
		b, err := f.Next()
		if err != nil {
			return out, err
		}
		out = append(out, string(b))
	}
}

// chunkedReader returns its data n bytes per Read, to split frames across
// reads.
type chunkedReader struct {
	data string
	n    int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, io.EOF
	}
	n := min(r.n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

func TestFramer(t *testing.T) {
	big := strings.Repeat("x", 100<<10) // beyond the 64 KiB read buffer
	tests := []struct {
		name    string
		stream  string
		readLen int // bytes per Read; 0 means all at once
		max     int
		want    []string
		dropped uint64
	}{
		{name: "one message", stream: "{a}\x00", want: []string{"{a}"}},
		{name: "many per read", stream: "{a}\x00{b}\x00{c}\x00", want: []string{"{a}", "{b}", "{c}"}},
		{name: "split across reads", stream: "{abc}\x00{defgh}\x00", readLen: 2, want: []string{"{abc}", "{defgh}"}},
		{name: "one byte per read", stream: "{a}\x00{b}\x00", readLen: 1, want: []string{"{a}", "{b}"}},
		{name: "final frame without delimiter", stream: "{a}\x00{b}", want: []string{"{a}", "{b}"}},
		{name: "whitespace tail ignored", stream: "{a}\x00\n", want: []string{"{a}"}},
		{name: "empty frames skipped", stream: "\x00\x00{a}\x00\x00", want: []string{"{a}"}},
		{name: "empty stream", stream: "", want: nil},
		{name: "oversize dropped then resync", stream: "{a}\x00" + "0123456789" + "\x00{b}\x00", max: 5, want: []string{"{a}", "{b}"}, dropped: 1},
		{name: "exactly max kept", stream: "01234\x00", max: 5, want: []string{"01234"}},
		{name: "oversize split across reads", stream: "0123456789\x00{b}\x00", readLen: 3, max: 5, want: []string{"{b}"}, dropped: 1},
		{name: "oversize tail dropped", stream: "{a}\x000123456789", max: 5, want: []string{"{a}"}, dropped: 1},
		{name: "frame larger than the read buffer", stream: big + "\x00{b}\x00", want: []string{big, "{b}"}},
		{name: "huge frame over max resyncs", stream: big + big + "\x00{b}\x00", max: 150 << 10, want: []string{"{b}"}, dropped: 1},
		{name: "large frame split across reads", stream: big + "\x00", readLen: 7000, want: []string{big}},
	}
	for _, tc := range tests {
		for _, waits := range []bool{false, true} {
			name := tc.name
			if waits {
				name += ", waiting before each read"
			}
			t.Run(name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tc.stream)
				if tc.readLen > 0 {
					r = &chunkedReader{data: tc.stream, n: tc.readLen}
				}
				f := gelf.NewFramer(r, tc.max)
				if waits {
					f, _ = waitingFramer(t, r, tc.max)
				}
				got, err := frames(t, f)
				if err != io.EOF {
					t.Fatalf("err = %v, want io.EOF", err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %d frames, want %d", len(got), len(tc.want))
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("frame %d = %.20q (%d bytes), want %.20q (%d bytes)", i, got[i], len(got[i]), tc.want[i], len(tc.want[i]))
					}
				}
				if f.Dropped() != tc.dropped {
					t.Errorf("dropped = %d, want %d", f.Dropped(), tc.dropped)
				}
			})
		}
	}
}

// waitingReader returns gelf.ErrWait before each read it was not woken
// for, as a quiet connection's reader does.
type waitingReader struct {
	r     io.Reader
	woken bool
	waits int
}

func (w *waitingReader) Read(p []byte) (int, error) {
	if !w.woken {
		w.waits++
		return 0, gelf.ErrWait
	}
	w.woken = false
	return w.r.Read(p)
}

// waitingFramer returns a Framer reading r through a waitingReader, its
// Wait checking that it is given an empty buffer and returning a new one.
func waitingFramer(t testing.TB, r io.Reader, max int) (*gelf.Framer, *waitingReader) {
	w := &waitingReader{r: r}
	f := gelf.NewFramer(w, max)
	f.Wait = func(old *bufio.Reader) (*bufio.Reader, error) {
		if n := old.Buffered(); n != 0 {
			t.Fatalf("Wait was given a buffer holding %d bytes", n)
		}
		w.woken = true
		return bufio.NewReaderSize(w, 64<<10), nil
	}
	return f, w
}

func TestFramerReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("{a}\x00{partial"), iotest.ErrReader(boom))
	f := gelf.NewFramer(r, 0)
	got, err := frames(t, f)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(got) != 1 || got[0] != "{a}" {
		t.Errorf("frames = %q; a partial frame before an error must be dropped", got)
	}
	if _, err := f.Next(); !errors.Is(err, boom) {
		t.Errorf("error is not sticky: %v", err)
	}
}

func TestFramerUsesBufferedReader(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("{a}\x00rest"), 128<<10)
	f := gelf.NewFramer(br, 0)
	if b, err := f.Next(); err != nil || string(b) != "{a}" {
		t.Fatalf("Next = %q, %v", b, err)
	}
	// The Framer read through br rather than a second buffer over it.
	if rest, _ := io.ReadAll(br); string(rest) != "rest" {
		t.Errorf("remaining in caller's reader = %q, want rest", rest)
	}
}

// TestFramerAsksRoom: a frame longer than the read buffer asks Room for
// the frame's size so far as it is assembled, whole by the end, and
// frames that fit in the buffer ask nothing; Room's error ends the stream.
func TestFramerAsksRoom(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	for _, c := range []struct {
		name   string
		stream string
	}{{"delimited", "{a}\x00" + long + "\x00{b}\x00"}, {"final frame", "{a}\x00" + long}} {
		t.Run(c.name, func(t *testing.T) {
			var asked []int
			f := gelf.NewFramer(strings.NewReader(c.stream), 0)
			f.Room = func(size int) error { asked = append(asked, size); return nil }
			got, err := frames(t, f)
			if !errors.Is(err, io.EOF) || len(got) < 2 || got[1] != long {
				t.Fatalf("frames %d, %v", len(got), err)
			}
			if len(asked) == 0 || asked[len(asked)-1] != len(long) || !slices.IsSorted(asked) {
				t.Errorf("Room asked for %v, want growing sizes up to %d", asked, len(long))
			}
		})
	}
	full := errors.New("no room")
	f := gelf.NewFramer(strings.NewReader("{a}\x00"+long+"\x00{b}\x00"), 0)
	f.Room = func(size int) error {
		if size > 100<<10 {
			return full
		}
		return nil
	}
	got, err := frames(t, f)
	if !errors.Is(err, full) || len(got) != 1 {
		t.Errorf("frames %q, %v; want {a} then Room's error", got, err)
	}
}

// TestFramerWaits: the part of a frame read before a wait is kept, in room
// asked of Room, and the frame comes whole after it; Wait's error ends the
// stream for good.
func TestFramerWaits(t *testing.T) {
	f, w := waitingFramer(t, &chunkedReader{data: "{a}\x00{bcdef}\x00", n: 4}, 0)
	var asked []int
	f.Room = func(size int) error { asked = append(asked, size); return nil }
	got, err := frames(t, f)
	if !errors.Is(err, io.EOF) || !slices.Equal(got, []string{"{a}", "{bcdef}"}) {
		t.Fatalf("frames %q, %v", got, err)
	}
	// Reads of 4 bytes: "{a}\x00", then "{bcd" and "ef}\x00" around a wait.
	if !slices.Equal(asked, []int{4, 7}) {
		t.Errorf("Room asked for %v, want [4 7]: the part kept, then the whole frame", asked)
	}
	if w.waits < 3 {
		t.Errorf("%d waits, want one before each read", w.waits)
	}

	gone := errors.New("connection closed")
	f, _ = waitingFramer(t, strings.NewReader("{a}\x00{b"), 0)
	f.Wait = func(*bufio.Reader) (*bufio.Reader, error) { return nil, gone }
	if _, err := f.Next(); !errors.Is(err, gone) {
		t.Fatalf("Next = %v, want Wait's error", err)
	}
	if _, err := f.Next(); !errors.Is(err, gone) {
		t.Errorf("Wait's error is not sticky: %v", err)
	}
}
