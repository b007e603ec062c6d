package metrics

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Dropwizard's default reservoir: 1028 samples, which gives 99.9% confidence
// of 5% accuracy on the quantiles for a normal distribution, and a decay that
// favours roughly the last five minutes.
const (
	reservoirSize  = 1028
	reservoirAlpha = 0.015
	// maxDecay drops samples whose weight relative to now is below
	// e^-maxDecay, where a float64 underflows to zero: Dropwizard loses
	// those (after about 14 hours) when it rescales.
	maxDecay = 745
)

// reservoir is an exponentially decaying reservoir (Cormode et al., "Forward
// Decay"), as Dropwizard's ExponentiallyDecayingReservoir: it keeps the
// samples of highest priority w/u, where the weight w = e^(alpha·t) grows with
// the time t of the sample and u is uniform in (0, 1].
//
// Unlike Dropwizard it keeps priorities as logarithms, alpha·t - ln u, where
// -ln u is an exponential variate. They never overflow, so there is no hourly
// rescaling, and no exponential is computed on the hot path.
//
// Once the reservoir is full most updates lose to its lowest priority; that
// priority only ever rises, so a lock-free read of it rejects them without
// taking the lock.
type reservoir struct {
	minKey atomic.Uint64 // float64 bits of the lowest key once full, -Inf before

	mu   sync.Mutex
	heap []sample // min-heap on key
}

type sample struct {
	key float64 // log priority
	t   float64 // seconds since the clock's epoch
	v   int64
}

// init readies r. Its samples grow as updates come, not all at once: a
// node has a timer for each of hundreds of routes, most never called, and
// full reservoirs for all of them held 17 MB.
func (r *reservoir) init() {
	r.minKey.Store(math.Float64bits(math.Inf(-1)))
}

// update offers value v observed at now (nanoseconds since the epoch).
func (r *reservoir) update(now, v int64) {
	t := float64(now) / float64(time.Second)
	key := reservoirAlpha*t + rand.ExpFloat64()
	if key <= math.Float64frombits(r.minKey.Load()) {
		return
	}
	s := sample{key: key, t: t, v: v}
	r.mu.Lock()
	switch h := r.heap; {
	case len(h) < reservoirSize:
		h = append(h, s)
		siftUp(h, len(h)-1)
		r.heap = h
		if len(h) == reservoirSize {
			r.minKey.Store(math.Float64bits(h[0].key))
		}
	case key > h[0].key:
		h[0] = s
		siftDown(h, 0)
		r.minKey.Store(math.Float64bits(h[0].key))
	}
	r.mu.Unlock()
}

func siftUp(h []sample, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].key <= h[i].key {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func siftDown(h []sample, i int) {
	for {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].key < h[least].key {
			least = l
		}
		if r < len(h) && h[r].key < h[least].key {
			least = r
		}
		if least == i {
			return
		}
		h[least], h[i] = h[i], h[least]
		i = least
	}
}

// snapshot returns the samples as of now.
func (r *reservoir) snapshot(now int64) Snapshot {
	r.mu.Lock()
	samples := slices.Clone(r.heap)
	r.mu.Unlock()

	nowSec := float64(now) / float64(time.Second)
	newest := math.Inf(-1)
	kept := samples[:0]
	for _, s := range samples {
		if reservoirAlpha*(nowSec-s.t) <= maxDecay {
			kept = append(kept, s)
			newest = max(newest, s.t)
		}
	}
	slices.SortFunc(kept, func(a, b sample) int { return cmp.Compare(a.v, b.v) })
	// Weights relative to the newest sample: their ratios are all that
	// matters, and this keeps them in range.
	snap := Snapshot{values: make([]int64, len(kept)), weights: make([]float64, len(kept)), cum: make([]float64, len(kept))}
	var sum float64
	for i, s := range kept {
		snap.values[i] = s.v
		snap.weights[i] = math.Exp(reservoirAlpha * (s.t - newest))
		sum += snap.weights[i]
	}
	for i := range snap.weights {
		snap.weights[i] /= sum
		if i > 0 {
			snap.cum[i] = snap.cum[i-1] + snap.weights[i-1]
		}
	}
	return snap
}

// Snapshot is a point-in-time view of a histogram's or a timer's samples,
// each weighted by how recent it is (Dropwizard's WeightedSnapshot). Timer
// values are nanoseconds.
type Snapshot struct {
	values  []int64   // sorted
	weights []float64 // normalized: they sum to 1
	cum     []float64 // cum[i] is the weight of the values below values[i]
}

// Size returns the number of samples.
func (s Snapshot) Size() int { return len(s.values) }

// Quantile returns the value at quantile q, which is clamped to [0, 1]: the
// largest sample whose preceding weight does not exceed q. It is 0 when there
// are no samples.
func (s Snapshot) Quantile(q float64) float64 {
	if len(s.values) == 0 {
		return 0
	}
	if math.IsNaN(q) || q < 0 {
		q = 0
	}
	i := sort.Search(len(s.cum), func(i int) bool { return s.cum[i] > q }) - 1
	return float64(s.values[max(i, 0)])
}

// Min returns the smallest sample, or 0.
func (s Snapshot) Min() int64 {
	if len(s.values) == 0 {
		return 0
	}
	return s.values[0]
}

// Max returns the largest sample, or 0.
func (s Snapshot) Max() int64 {
	if len(s.values) == 0 {
		return 0
	}
	return s.values[len(s.values)-1]
}

// Mean returns the weighted mean of the samples, or 0.
func (s Snapshot) Mean() float64 {
	var mean float64
	for i, v := range s.values {
		mean += float64(v) * s.weights[i]
	}
	return mean
}

// StdDev returns the weighted standard deviation of the samples; 0 for fewer
// than two.
func (s Snapshot) StdDev() float64 {
	if len(s.values) <= 1 {
		return 0
	}
	mean := s.Mean()
	var variance float64
	for i, v := range s.values {
		d := float64(v) - mean
		variance += s.weights[i] * d * d
	}
	return math.Sqrt(variance)
}
