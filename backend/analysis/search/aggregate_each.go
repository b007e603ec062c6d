package search

import (
	"context"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Part is one aggregation of AggregateEach, over the messages of its own
// time range.
type Part struct {
	Range       TimeRange
	Aggregation Aggregation
}

// AggregateEach computes several aggregations over the messages r
// matches, reading them from the store once: each part folds the matching
// messages whose timestamp is within its range (both ends inclusive), and
// answers what Aggregate answers for r over that range. Event definitions
// due together over the same query and streams are evaluated this way, so
// that the cost of reading a window is paid once rather than once per
// definition. r.Range must cover every part's range; an error of any part
// fails the whole call, and the caller then aggregates part by part.
func (s *Service) AggregateEach(ctx context.Context, r Request, parts []Part) ([]*Aggregated, error) {
	ctx, release, err := s.gate.admit(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	ags := make([]*aggregator, len(parts))
	for i, p := range parts {
		if ags[i], err = newAggregator(p.Aggregation, p.Range, s.maxBuckets()); err != nil {
			return nil, err
		}
	}
	_, err = s.scan(ctx, r, func(m *messages.Message) error {
		for i, p := range parts {
			if m.Timestamp.Before(p.Range.From) || m.Timestamp.After(p.Range.To) {
				continue
			}
			if err := ags[i].add(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Aggregated, len(parts))
	for i, ag := range ags {
		root, err := ag.finish()
		if err != nil {
			return nil, err
		}
		out[i] = &Aggregated{Total: ag.root.count, Root: root, Took: time.Since(start)}
		for _, g := range ag.groups {
			out[i].Intervals = append(out[i].Intervals, g.Interval)
		}
	}
	return out, nil
}
