package search

import (
	"context"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// maxCountedBuckets bounds the buckets a date histogram of counts is
// counted bucket by bucket for; wider histograms are folded from the
// messages.
const maxCountedBuckets = 1000

// countHistogram answers an aggregation that is a date histogram of counts
// alone (the search page's chart: row_groups time, series count()) by
// asking the store for the count of each bucket, which it answers without
// reading a message, rather than reading every matching message. It fills
// ag as folding the messages would and reports false, having done nothing,
// for any other aggregation or a range open at its start.
func (s *Service) countHistogram(ctx context.Context, r Request, ag *aggregator) (int64, bool, error) {
	if len(ag.groups) != 1 || !ag.groups[0].Time || len(ag.fields) != 0 || r.Range.From.IsZero() || r.Range.To.Before(r.Range.From) {
		return 0, false, nil
	}
	iv := ag.groups[0].Interval
	from, to := r.Range.From.UnixMilli(), r.Range.To.UnixMilli()
	first, n := iv.start(from), 0
	for k := first; k <= to; k = iv.next(k) {
		if n++; n > maxCountedBuckets {
			return 0, false, nil
		}
	}
	count := func(from, to int64) (int64, error) {
		q := r
		q.Range = TimeRange{From: time.UnixMilli(from).UTC(), To: time.UnixMilli(to).UTC()}
		q.Offset, q.Limit, q.Sort = 0, 0, messages.Sort{}
		resp, err := s.searchWindow(ctx, q, 0)
		return resp.Result.Total, err
	}
	total, err := count(from, to)
	if err != nil || total == 0 {
		return total, err == nil, err
	}
	ag.root.count = total
	ag.root.times = map[int64]*node{}
	for k := first; k <= to; k = iv.next(k) {
		c, err := count(max(k, from), min(iv.next(k)-1, to))
		if err != nil {
			return 0, false, err
		}
		if c > 0 {
			ag.root.times[k] = &node{count: c}
		}
	}
	return total, true, nil
}
