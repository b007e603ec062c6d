// Package traffic records the bytes a node receives, decodes and writes, in
// hourly buckets per node in the document store (Graylog's traffic
// collection), and serves GET /system/cluster/traffic: the cluster's
// totals per hour or per day. Buckets older than Retention are deleted, so
// the history stays bounded.
package traffic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

const collection = "traffic"

// Retention is how long hourly buckets are kept: the longest history the
// interface asks for (?days=30) and a day more.
const Retention = 31 * 24 * time.Hour

// Counters are a node's running byte totals since it started; they never
// decrease.
type Counters struct {
	Input, Output, Decoded func() int64
}

// bucket is one node's traffic in one hour.
type bucket struct {
	Bucket  time.Time `json:"bucket"`
	Node    string    `json:"node_id"`
	Input   int64     `json:"input"`
	Output  int64     `json:"output"`
	Decoded int64     `json:"decoded"`
}

// Recorder adds a node's counters to its buckets.
type Recorder struct {
	st   store.Store
	node string
	now  func() time.Time
	c    Counters

	mu     sync.Mutex
	last   [3]int64 // the totals already recorded
	pruned time.Time
}

// NewRecorder records the counters of node into st.
func NewRecorder(st store.Store, node string, now func() time.Time, c Counters) *Recorder {
	return &Recorder{st: st, node: node, now: now, c: c}
}

// Flush adds what the counters grew by since the last flush to the current
// hour's bucket and deletes buckets past Retention (once an hour).
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := [3]int64{r.c.Input(), r.c.Output(), r.c.Decoded()}
	delta := [3]int64{cur[0] - r.last[0], cur[1] - r.last[1], cur[2] - r.last[2]}
	now := r.now().UTC()
	hour := now.Truncate(time.Hour)
	if delta != [3]int64{} {
		id := hour.Format("2006-01-02T15") + "_" + r.node
		add := func(doc []byte) ([]byte, error) {
			b := bucket{Bucket: hour, Node: r.node}
			if doc != nil {
				if err := json.Unmarshal(doc, &b); err != nil {
					return nil, fmt.Errorf("stored traffic is unreadable: %w", err)
				}
			}
			b.Input, b.Output, b.Decoded = b.Input+delta[0], b.Output+delta[1], b.Decoded+delta[2]
			return json.Marshal(b)
		}
		err := r.st.Update(ctx, collection, id, add)
		if errors.Is(err, store.ErrNotFound) {
			doc, _ := add(nil)
			if err = r.st.Insert(ctx, collection, id, doc); errors.Is(err, store.ErrConflict) {
				err = r.st.Update(ctx, collection, id, add)
			}
		}
		if err != nil {
			return fmt.Errorf("record traffic: %w", err)
		}
		r.last = cur
	}
	if now.Sub(r.pruned) >= time.Hour {
		if err := r.prune(ctx, now.Add(-Retention)); err != nil {
			return err
		}
		r.pruned = now
	}
	return nil
}

func (r *Recorder) prune(ctx context.Context, before time.Time) error {
	var old []string
	err := r.st.List(ctx, collection, func(id string, doc []byte) error {
		var b bucket
		if json.Unmarshal(doc, &b) == nil && b.Bucket.Before(before) {
			old = append(old, id)
		}
		return nil
	})
	for _, id := range old {
		if err == nil {
			if err = r.st.Delete(ctx, collection, id); errors.Is(err, store.ErrNotFound) {
				err = nil // another node pruned it
			}
		}
	}
	return err
}

// Run flushes every interval until ctx ends, and once more then.
func (r *Recorder) Run(ctx context.Context, interval time.Duration, logf func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := r.Flush(context.WithoutCancel(ctx)); err != nil {
				logf(err)
			}
			return
		case <-t.C:
			if err := r.Flush(ctx); err != nil {
				logf(err)
			}
		}
	}
}

// Histogram is Graylog's TrafficHistogram: bytes per bucket start.
type Histogram struct {
	From    api.Time         `json:"from"`
	To      api.Time         `json:"to"`
	Input   map[string]int64 `json:"input"`
	Output  map[string]int64 `json:"output"`
	Decoded map[string]int64 `json:"decoded"`
}

// Cluster sums the buckets of every node from the last days, per hour or,
// when daily, per day.
func (r *Recorder) Cluster(ctx context.Context, days int, daily bool) (Histogram, error) {
	to := r.now().UTC()
	from := to.Add(-time.Duration(days) * 24 * time.Hour).Truncate(time.Hour)
	h := Histogram{From: api.Time{Time: from}, To: api.Time{Time: to},
		Input: map[string]int64{}, Output: map[string]int64{}, Decoded: map[string]int64{}}
	err := r.st.List(ctx, collection, func(_ string, doc []byte) error {
		var b bucket
		if err := json.Unmarshal(doc, &b); err != nil {
			return fmt.Errorf("stored traffic is unreadable: %w", err)
		}
		if b.Bucket.Before(from) || b.Bucket.After(to) {
			return nil
		}
		at := b.Bucket.UTC()
		if daily {
			at = time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
		}
		key := at.Format(api.TimeLayout)
		h.Input[key] += b.Input
		h.Output[key] += b.Output
		h.Decoded[key] += b.Decoded
		return nil
	})
	return h, err
}

// Routes returns GET /system/cluster/traffic.
func (r *Recorder) Routes() []api.Route {
	return []api.Route{{
		Method: "GET", Path: "/system/cluster/traffic", Summary: "Get cluster traffic stats",
		Query: []string{"days", "daily"}, Handler: r.serve,
	}}
}

func (r *Recorder) serve(w http.ResponseWriter, req *http.Request) error {
	q := req.URL.Query()
	// Buckets are kept 31 days: asking further back finds nothing more,
	// and a bound keeps the time arithmetic from overflowing.
	days, err := api.IntParam(q, "days", 30, 1, 3650)
	if err != nil {
		return err
	}
	daily := false
	if v := q.Get("daily"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return api.Errorf(api.Invalid, "Invalid daily %q; use true or false", v)
		}
		daily = b
	}
	// This node's latest counts first, so the answer is current.
	if err := r.Flush(req.Context()); err != nil {
		return err
	}
	h, err := r.Cluster(req.Context(), days, daily)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, h)
	return nil
}

// Sum keeps a running total of counters that may restart from zero (an
// input's byte count starts again when the input is restarted): what each
// grew by, or its whole value after it went down.
type Sum struct {
	mu    sync.Mutex
	last  map[string]int64
	total int64
}

// Add takes the counters' current values and returns the running total.
func (s *Sum) Add(values map[string]int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last = map[string]int64{}
	}
	for name, v := range values {
		if prev := s.last[name]; v >= prev {
			s.total += v - prev
		} else {
			s.total += v
		}
		s.last[name] = v
	}
	return s.total
}
