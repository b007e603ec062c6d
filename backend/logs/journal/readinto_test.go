package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestReadIntoReusesMemory: ReadInto returns what Read does, across
// segments and a record larger than a read chunk, with the caller's memory
// reused from one call to the next: once it has grown, reading allocates
// nothing.
func TestReadIntoReusesMemory(t *testing.T) {
	j := open(t, t.TempDir(), Options{SegmentSize: 64 << 10})
	appendN(t, j, 1, 500)
	if _, _, err := j.Append(t.Context(), bytes.Repeat([]byte("L"), 3*minReadChunk)); err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 2, 500)
	want := readAll(t, j, 0)

	var dst []Entry
	var buf []byte
	var got []Entry
	for from := uint64(0); from < j.End(); {
		var err error
		dst, buf, err = j.ReadInto(dst, buf, from, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range dst {
			got = append(got, Entry{Offset: e.Offset, Data: bytes.Clone(e.Data)})
		}
		from += uint64(len(dst))
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Offset != want[i].Offset || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("entry %d: %d %q, want %d %q", i, got[i].Offset, got[i].Data, want[i].Offset, want[i].Data)
		}
	}

	allocs := testing.AllocsPerRun(50, func() {
		var err error
		if dst, buf, err = j.ReadInto(dst, buf, 0, 100); err != nil || len(dst) != 100 {
			t.Fatalf("%d entries, %v", len(dst), err)
		}
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per read", allocs)
	}
}

// TestReadCutSegmentIsCorrupt: a sealed segment that lost the end of its
// last record is ErrCorrupt to a reader, not an empty read, which would
// have processing ask again for ever.
func TestReadCutSegmentIsCorrupt(t *testing.T) {
	for _, keep := range []int{4, frameHeaderSize + 2} {
		t.Run(fmt.Sprintf("keep=%d", keep), func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{SegmentSize: 1 << 10}
			j := open(t, dir, opts)
			appendN(t, j, 0, 100)
			last := j.segs[0].end - 1
			es, err := j.Read(last, 1)
			if err != nil || len(es) != 1 {
				t.Fatal(err)
			}
			frame := frameSize(len(es[0].Data))
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			first := segmentFiles(t, dir)[0]
			if err := os.Truncate(first, fileSize(t, first)-int64(frame)+int64(keep)); err != nil {
				t.Fatal(err)
			}
			j = open(t, dir, opts)
			if es, err := j.Read(last, 10); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read of a cut record = %d records, %v; want ErrCorrupt", len(es), err)
			}
			if es, err := j.Read(last-1, 10); err != nil || len(es) != 1 {
				t.Fatalf("Read before the cut record = %d records, %v; want 1", len(es), err)
			}
		})
	}
}
