package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/tidwall/gjson"
)

// Checkpoints live in their own index, one document per loggate node.
//
// Why Flush is exactly-once: Elasticsearch acknowledges a _bulk request
// only once every document is in the translog of the primary and its
// in-sync replicas, and with index.translog.durability=request (the
// default) that translog is fsynced before the answer. So every message
// of a Write that returned is durable already, and Flush only has to store
// the checkpoint, after them. After a crash the journal is replayed from
// the stored checkpoint; messages written after it are written again under
// the same ids (their _id is the message UUID given on receipt), which
// replaces them instead of adding copies. What cannot be undone is that
// messages written after the last Flush are there even though the
// checkpoint predates them: the replay rewrites them, so the result is the
// same set of messages. The one case that duplicates is a replay after a
// rotation, which writes into the new write index while the first copy is
// in the old one; Graylog has the same window.
//
// With index.translog.durability=async an acknowledged write may be lost
// in a crash of every copy within the sync interval; loggate does not
// change the operator's choice.

// createStateIndex creates the checkpoint index: one shard, a replica
// wherever a second node can hold it.
func (s *Store) createStateIndex(ctx context.Context) error {
	body := []byte(`{"settings":{"index":{"number_of_shards":1,"auto_expand_replicas":"0-1"}}}`)
	status, resp, err := s.do(ctx, esapi.IndicesCreateRequest{Index: url.PathEscape(s.stateIndex), Body: jsonBody(body)})
	if err != nil {
		return err
	}
	switch t := errorType(resp); {
	case status == http.StatusOK,
		t == "resource_already_exists_exception", t == "index_already_exists_exception":
		return nil
	}
	return s.fail("create "+s.stateIndex, status, resp)
}

// stateDoc returns the index and id of this node's state document, escaped
// for a path.
func (s *Store) stateDoc() (index, id string) {
	return url.PathEscape(s.stateIndex), url.PathEscape(s.node)
}

// readCheckpoint reads this node's checkpoint, 0 if it never flushed.
// GET is real time: it sees the last Flush without a refresh.
func (s *Store) readCheckpoint(ctx context.Context) (uint64, error) {
	index, id := s.stateDoc()
	status, body, err := s.do(ctx, esapi.GetRequest{Index: index, DocumentID: id})
	if err != nil {
		return 0, err
	}
	if status == http.StatusNotFound {
		return 0, nil
	}
	if status != http.StatusOK {
		return 0, s.fail("read checkpoint", status, body)
	}
	return parseCheckpoint(body)
}

// parseCheckpoint reads the state document. The checkpoint is a string:
// a uint64 may not fit Elasticsearch's signed long.
func parseCheckpoint(body []byte) (uint64, error) {
	if !gjson.ValidBytes(body) {
		return 0, fmt.Errorf("%w: checkpoint answer is not JSON", errBadResponse)
	}
	r := gjson.ParseBytes(body)
	if r.Get("found").Type == gjson.False {
		return 0, nil
	}
	cp, err := strconv.ParseUint(r.Get("_source.checkpoint").String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: checkpoint document without a checkpoint: %s", errBadResponse, truncate(r.Raw))
	}
	return cp, nil
}

// Flush records checkpoint. Everything written before is durable already
// (see above), so this is one indexing request.
func (s *Store) Flush(ctx context.Context, checkpoint uint64) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	body, _ := json.Marshal(map[string]string{
		"checkpoint": strconv.FormatUint(checkpoint, 10),
		"node":       s.node,
		"flushed_at": s.now().UTC().Format(timeLayout),
	})
	index, id := s.stateDoc()
	status, resp, err := s.do(ctx, esapi.IndexRequest{Index: index, DocumentID: id, Body: jsonBody(body)})
	if err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	if status != http.StatusOK && status != http.StatusCreated {
		return s.fail("flush", status, resp)
	}
	s.checkpoint.Store(checkpoint)
	return nil
}

// Checkpoint returns the checkpoint of the last completed Flush, read from
// the cluster at Open.
func (s *Store) Checkpoint() uint64 { return s.checkpoint.Load() }
