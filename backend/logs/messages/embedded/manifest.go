package embedded

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// The manifest is the commit point: the checkpoint of the last Flush and
// the segments (with their deleted documents) that make up exactly the
// state flushed with it. It is replaced atomically (temp file, fsync,
// rename, fsync of the directory), so a crash leaves the old one or the
// new one. Segment files it does not name are leftovers of an interrupted
// flush or merge and are removed on Open.
//
//	file = "LGMAN1\n" crc32c(body):4 body (JSON)
const (
	manifestName  = "MANIFEST"
	manifestMagic = "LGMAN1\n"
	// maxManifest bounds what Open reads, so a wrong file cannot exhaust
	// memory.
	maxManifest = 1 << 30
)

type manifest struct {
	Checkpoint uint64          `json:"checkpoint"`
	NextSeq    uint64          `json:"next_seq"`
	Indices    []manifestIndex `json:"indices"`
}

type manifestIndex struct {
	Prefix   string            `json:"prefix"`
	Number   int               `json:"number"`
	Created  int64             `json:"created"` // Unix milliseconds
	Segments []manifestSegment `json:"segments"`
	Closed   bool              `json:"closed,omitempty"`
	Reopened bool              `json:"reopened,omitempty"`
}

type manifestSegment struct {
	File    string   `json:"file"`
	Deleted []uint32 `json:"deleted,omitempty"`
}

var (
	prefixPattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9_+-]*$`)
	segmentPattern = regexp.MustCompile(`^[0-9]{16}\.seg$`)
)

func segmentFile(seq uint64) string { return fmt.Sprintf("%016d.seg", seq) }

func indexName(prefix string, n int) string { return prefix + "_" + strconv.Itoa(n) }

// encodeManifest returns the file contents for m.
func encodeManifest(m *manifest) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(manifestMagic)+4+len(body))
	out = append(out, manifestMagic...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(body, crcTable))
	return append(out, body...), nil
}

// decodeManifest checks and decodes a manifest file.
func decodeManifest(b []byte) (*manifest, error) {
	if len(b) < len(manifestMagic)+4 || string(b[:len(manifestMagic)]) != manifestMagic {
		return nil, errors.New("embedded: not a manifest")
	}
	body := b[len(manifestMagic)+4:]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(b[len(manifestMagic):]) {
		return nil, errors.New("embedded: manifest checksum mismatch")
	}
	var m manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("embedded: manifest: %w", err)
	}
	seen := map[string]bool{}
	files := map[string]bool{}
	for _, ix := range m.Indices {
		name := indexName(ix.Prefix, ix.Number)
		if !prefixPattern.MatchString(ix.Prefix) || ix.Number < 0 || seen[name] {
			return nil, fmt.Errorf("embedded: manifest: bad index %q", name)
		}
		seen[name] = true
		for _, s := range ix.Segments {
			if !segmentPattern.MatchString(s.File) || files[name+"/"+s.File] {
				return nil, fmt.Errorf("embedded: manifest: bad segment %q", s.File)
			}
			files[name+"/"+s.File] = true
		}
	}
	return &m, nil
}

// errUnsynced is a manifest that replaced the last one in its directory,
// whose sync then failed: a crash may bring back either. Its caller keeps
// the new state, since undoing it would delete files the manifest in place
// names, but keeps the files the old one names too, and fails: the next
// manifest written syncs the directory again. Open removes what neither
// names.
var errUnsynced = errors.New("the manifest is in place but its directory was not synced")

// writeManifest replaces the manifest in dir atomically.
func writeManifest(dir string, m *manifest, fault func() error) error {
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, manifestName+".tmp")
	if err := writeFileSync(tmp, b, fault); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := checkFault(fault); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, manifestName)); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncManifestDir(dir); err != nil {
		return fmt.Errorf("%w: %w", errUnsynced, err)
	}
	return nil
}

// syncManifestDir is syncDir, which a test makes fail after the rename.
var syncManifestDir = syncDir

func readManifest(dir string) (*manifest, error) {
	f, err := os.Open(filepath.Join(dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return &manifest{NextSeq: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxManifest {
		return nil, errors.New("embedded: manifest too large")
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return decodeManifest(b)
}

func writeFileSync(path string, b []byte, fault func() error) error {
	if err := checkFault(fault); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func checkFault(fault func() error) error {
	if fault == nil {
		return nil
	}
	return fault()
}
