package migrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// stateFile is the name, in data_dir, of the progress of `migrate store`.
const stateFile = "migrate-store.json"

// storeState is the progress of `migrate store`, kept in data_dir so that
// an interrupted run continues where it stopped.
type storeState struct {
	// Destination names the stores the progress is about; progress made
	// towards other stores is not reused.
	Destination string                      `json:"destination"`
	Collections map[string]*collectionState `json:"collections"`
	Indices     map[string]*indexState      `json:"indices"`
}

// collectionState is the progress of one collection. Documents are
// compared with the destination on every run, so the record only says
// what was done.
type collectionState struct {
	Done   bool `json:"done"`
	Copied int  `json:"copied"`
}

// indexState is the progress of one message index: how many of its
// messages were copied, and where the copy stands in the (timestamp, _id)
// order of its series.
type indexState struct {
	// Source is the index's message count when the copy started; a source
	// that changed since is copied again from its start.
	Source int64 `json:"source"`
	Copied int64 `json:"copied"`
	Cursor
	Done bool `json:"done"`
}

// loadState reads the state file of dir; progress towards another
// destination, or no file, is a fresh state.
func loadState(dir, destination string) (*storeState, error) {
	fresh := &storeState{Destination: destination, Collections: map[string]*collectionState{}, Indices: map[string]*indexState{}}
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return nil, fmt.Errorf("migration progress: %w", err)
	}
	var st storeState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("migration progress in %s: %w; delete the file to start over", filepath.Join(dir, stateFile), err)
	}
	if st.Destination != destination {
		return fresh, nil
	}
	if st.Collections == nil {
		st.Collections = map[string]*collectionState{}
	}
	if st.Indices == nil {
		st.Indices = map[string]*indexState{}
	}
	return &st, nil
}

// save writes the state atomically: a crash leaves the old file or the new
// one, never half of one.
func (s *storeState) save(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, stateFile)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("save migration progress: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save migration progress: %w", err)
	}
	return nil
}

func (s *storeState) collection(name string) *collectionState {
	c := s.Collections[name]
	if c == nil {
		c = &collectionState{}
		s.Collections[name] = c
	}
	return c
}

func (s *storeState) index(name string) *indexState {
	ix := s.Indices[name]
	if ix == nil {
		ix = &indexState{}
		s.Indices[name] = ix
	}
	return ix
}
