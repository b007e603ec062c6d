package streams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// The links between streams and what other packages own: outputs, index
// sets and the cluster statistics.

// AddOutput attaches an output to a stream; attaching one twice is a no-op.
// An unknown stream is an error wrapping store.ErrNotFound. The output is
// not looked up: the caller vouches for it.
func (s *Service) AddOutput(ctx context.Context, streamID, outputID string) error {
	return s.AddOutputs(ctx, streamID, outputID)
}

// AddOutputs attaches outputs to a stream, as AddOutput does.
func (s *Service) AddOutputs(ctx context.Context, streamID string, outputIDs ...string) error {
	_, err := s.modify(ctx, streamID, func(st *Stream) error {
		for _, id := range outputIDs {
			if !slices.Contains(st.Outputs, id) {
				st.Outputs = append(st.Outputs, id)
			}
		}
		return nil
	})
	return err
}

// DetachOutput detaches an output from one stream. An output the stream does
// not have is a 404.
func (s *Service) DetachOutput(ctx context.Context, streamID, outputID string) error {
	_, err := s.modify(ctx, streamID, func(st *Stream) error {
		i := slices.Index(st.Outputs, outputID)
		if i < 0 {
			return api.Errorf(api.NotFound, "Output <%s> is not assigned to stream <%s>", outputID, st.ID)
		}
		st.Outputs = slices.Delete(st.Outputs, i, i+1)
		return nil
	})
	return err
}

// RemoveOutput detaches an output from every stream, for the deletion of the
// output.
func (s *Service) RemoveOutput(ctx context.Context, outputID string) error {
	var using []string
	err := s.st.List(ctx, Collection, func(id string, doc []byte) error {
		var d struct {
			Outputs []string `json:"outputs"`
		}
		if err := json.Unmarshal(doc, &d); err != nil {
			return fmt.Errorf("decode stream %s: %w", id, err)
		}
		if slices.Contains(d.Outputs, outputID) {
			using = append(using, id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("find the streams of output %s: %w", outputID, err)
	}
	for _, id := range using {
		_, err := s.modify(ctx, id, func(st *Stream) error {
			st.Outputs = slices.DeleteFunc(st.Outputs, func(o string) bool { return o == outputID })
			return nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// summaries resolves output ids. Outputs deleted since they were attached
// are left out, as Graylog ignores them.
func (s *Service) summaries(ctx context.Context, ids []string) ([]outputs.Summary, error) {
	out := make([]outputs.Summary, 0, len(ids))
	for _, id := range ids {
		sum, err := s.outputs.Get(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", id, err)
		}
		out = append(out, sum)
	}
	return out, nil
}

// UsingIndexSet returns the ids of the streams that write to an index set,
// read from the store, so that an index set is not deleted under a stream
// another node just assigned to it.
func (s *Service) UsingIndexSet(ctx context.Context, indexSetID string) ([]string, error) {
	var ids []string
	err := s.st.List(ctx, Collection, func(id string, doc []byte) error {
		var d struct {
			IndexSetID string `json:"index_set_id"`
		}
		if err := json.Unmarshal(doc, &d); err != nil {
			return fmt.Errorf("decode stream %s: %w", id, err)
		}
		// Streams stored before ids were kept in lower case may hold one
		// in upper case.
		if strings.EqualFold(d.IndexSetID, indexSetID) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find the streams of index set %s: %w", indexSetID, err)
	}
	return ids, nil
}

// Stats counts streams and rules for /system/cluster/stats: the number of
// streams, of rules, and of rules by stream id (every stream included).
func (s *Service) Stats(ctx context.Context) (streams, rules int, rulesByStream map[string]int, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, nil, err
	}
	all := s.snap.Load().byID
	rulesByStream = make(map[string]int, len(all))
	for _, st := range all {
		rulesByStream[st.ID] = len(st.Rules)
		rules += len(st.Rules)
	}
	return len(all), rules, rulesByStream, nil
}
