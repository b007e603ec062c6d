package journal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
)

// TestTornTailRecovery damages the newest segment as a crash or bad disk
// would and checks that reopening keeps exactly the intact prefix.
func TestTornTailRecovery(t *testing.T) {
	const n = 20
	frame := func(i int) int64 { return int64(frameSize(len(record(3, i)))) }
	// offsetOf is the file position of record i of the single segment.
	offsetOf := func(i int) int64 {
		pos := int64(headerSize)
		for k := range i {
			pos += frame(k)
		}
		return pos
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		want   int // records that survive
	}{
		{"intact", func(*testing.T, string) {}, n},
		{"cut inside the last payload", func(t *testing.T, path string) {
			truncate(t, path, offsetOf(n-1)+frameHeaderSize+3)
		}, n - 1},
		{"cut inside the last frame header", func(t *testing.T, path string) {
			truncate(t, path, offsetOf(n-1)+5)
		}, n - 1},
		{"cut at a frame boundary", func(t *testing.T, path string) {
			truncate(t, path, offsetOf(n-2))
		}, n - 2},
		{"flipped payload byte in the last record", func(t *testing.T, path string) {
			flip(t, path, offsetOf(n-1)+frameHeaderSize+1)
		}, n - 1},
		{"flipped checksum in a middle record", func(t *testing.T, path string) {
			flip(t, path, offsetOf(7)+5)
		}, 7},
		{"length beyond the record limit", func(t *testing.T, path string) {
			writeAt(t, path, offsetOf(12), []byte{0xff, 0xff, 0xff, 0x7f})
		}, 12},
		{"zero-filled tail", func(t *testing.T, path string) {
			writeAt(t, path, offsetOf(n), make([]byte, 4096))
		}, n},
		{"garbage tail", func(t *testing.T, path string) {
			writeAt(t, path, offsetOf(n), []byte("\x05\x00\x00\x00garbage!!"))
		}, n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			j, err := Open(dir, Options{MaxRecordSize: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			appendN(t, j, 3, n)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			path := lastSegment(t, dir)
			tt.damage(t, path)

			j = open(t, dir, Options{MaxRecordSize: 1 << 20})
			if got := j.End(); got != uint64(tt.want) {
				t.Fatalf("End after recovery = %d, want %d", got, tt.want)
			}
			if got := fileSize(t, path); got != offsetOf(tt.want) {
				t.Fatalf("segment is %d bytes after recovery, want the tail cut at %d", got, offsetOf(tt.want))
			}
			es := readAll(t, j, 0)
			if len(es) != tt.want {
				t.Fatalf("read %d records, want %d", len(es), tt.want)
			}
			for i, e := range es {
				if !bytes.Equal(e.Data, record(3, i)) {
					t.Fatalf("record %d = %q", i, e.Data)
				}
			}
			// The journal continues right after the kept prefix.
			first, _, err := j.Append(context.Background(), []byte("next"))
			if err != nil || first != uint64(tt.want) {
				t.Fatalf("Append after recovery = %d, %v; want %d", first, err, tt.want)
			}
			if es, err := j.Read(first, 1); err != nil || string(es[0].Data) != "next" {
				t.Fatalf("Read of the new record = %v, %v", es, err)
			}
		})
	}
}

func TestTornSegmentHeader(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 4, 10)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// A crash while rolling: the next segment exists with half a header.
	torn := segmentPath(dir, 10)
	if err := os.WriteFile(torn, segmentHeader{base: 10}.encode()[:headerSize/2], 0o640); err != nil {
		t.Fatal(err)
	}
	j = open(t, dir, Options{})
	if _, err := os.Stat(torn); !os.IsNotExist(err) {
		t.Fatalf("torn segment still there: %v", err)
	}
	if j.End() != 10 || len(readAll(t, j, 0)) != 10 {
		t.Fatalf("End = %d after dropping the torn segment, want 10", j.End())
	}
	if first, _, err := j.Append(context.Background(), []byte("x")); err != nil || first != 10 {
		t.Fatalf("Append = %d, %v; want 10", first, err)
	}
}

func TestCorruptSealedSegment(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{SegmentSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 5, 60)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	first := segmentFiles(t, dir)[0]
	flip(t, first, headerSize+frameHeaderSize+2)
	j = open(t, dir, Options{SegmentSize: 1 << 10})
	if _, err := j.Read(0, 10); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Read of a corrupt sealed segment: %v, want ErrCorrupt", err)
	}
	if _, err := j.Read(3, 10); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Read past a corrupt record: %v, want ErrCorrupt", err)
	}

	// A sealed segment with a bad header makes Open fail rather than guess.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	flip(t, first, 3)
	if j, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		if j != nil {
			j.Close()
		}
		t.Fatalf("Open with a corrupt sealed header: %v", err)
	}
}

func TestCorruptOffsetsFileReplays(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 6, 5)
	if err := j.Commit(3); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+offsetsName, []byte("junk"), 0o640); err != nil {
		t.Fatal(err)
	}
	j = open(t, dir, Options{})
	if j.Committed() != 0 {
		t.Fatalf("Committed = %d with an unreadable offsets file; want 0 (replay)", j.Committed())
	}
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func flip(t *testing.T, path string, at int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[at] ^= 0x40
	if err := os.WriteFile(path, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

func writeAt(t *testing.T, path string, at int64, p []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(p, at); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedLastHeaderIsNotTorn: a crash while rolling leaves at most a
// header's bytes; a longer last segment with a bad header holds records,
// and Open refuses it rather than deleting them.
func TestDamagedLastHeaderIsNotTorn(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{})
	appendN(t, j, 0, 100)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	path := lastSegment(t, dir)
	size := fileSize(t, path)
	flip(t, path, 20) // inside the created time
	if j, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		if j != nil {
			j.Close()
		}
		t.Fatalf("Open with a damaged last header: %v, want ErrCorrupt", err)
	}
	if got := fileSize(t, path); got != size {
		t.Fatalf("the damaged segment is %d bytes, was %d", got, size)
	}
}

// TestLoweredRecordLimitKeepsRecords: MaxRecordSize limits new records;
// records journaled under a larger limit are neither a torn tail to
// recovery nor corrupt to a reader.
func TestLoweredRecordLimitKeepsRecords(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{MaxRecordSize: 1 << 20, SegmentSize: 16 << 10})
	big := bytes.Repeat([]byte{'x'}, 4096)
	// The first segment is sealed with a big record in it, the last one
	// ends with one.
	for range 5 {
		if _, _, err := j.Append(context.Background(), []byte("small"), big); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(segmentFiles(t, dir)); n < 2 {
		t.Fatalf("%d segments, want a sealed one and the last", n)
	}
	j = open(t, dir, Options{MaxRecordSize: 1024, SegmentSize: 16 << 10})
	if got := j.End(); got != 10 {
		t.Fatalf("End = %d after lowering MaxRecordSize, want 10", got)
	}
	got := readAll(t, j, 0)
	if len(got) != 10 || !bytes.Equal(got[9].Data, big) {
		t.Fatalf("read %d records back, want 10 ending with the big one", len(got))
	}
	if _, _, err := j.Append(context.Background(), big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Append of a record above the new limit: %v, want ErrTooLarge", err)
	}
}
