package search

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// Aggregation limits and defaults.
const (
	// DefaultMaxAggregated is how many matching messages an aggregation
	// reads at most (Options.MaxAggregated).
	DefaultMaxAggregated = 2_000_000
	// DefaultMaxBuckets is how many buckets an aggregation answers at most
	// (Options.MaxBuckets), Elasticsearch's search.max_buckets.
	DefaultMaxBuckets = 65535
	// DefaultValuesLimit is the number of values a values grouping keeps
	// without a limit (Graylog's Values.DEFAULT_LIMIT).
	DefaultValuesLimit = 15
	// aggregatePage is how many messages one store call reads.
	aggregatePage = 5000
)

// Grouping is one level of an aggregation's buckets (Graylog's
// BucketSpec): a date histogram of the timestamp, or the values of a
// field, most frequent first.
type Grouping struct {
	// Field is the field whose values make the buckets; a time grouping
	// always buckets the timestamp.
	Field string
	// Time makes date histogram buckets of Interval, or, when Interval is
	// zero, of Graylog's auto interval for the range scaled by Scaling
	// (1 when 0).
	Time     bool
	Interval Interval
	Scaling  float64
	// Limit keeps the first Limit values of a values grouping;
	// DefaultValuesLimit when 0.
	Limit int
}

// Order sorts the buckets of values groupings (Graylog's SortSpec): by
// the value of the series whose key is Series, or by the values
// themselves of the grouping on Field. Without an order, the most
// frequent values come first; ties go by value.
type Order struct {
	Series string
	Field  string
	Desc   bool
}

// Aggregation is what an aggregation computes: buckets nested by Rows then
// Columns, and Series in every bucket.
type Aggregation struct {
	Rows, Columns []Grouping
	Series        []Series
	Sort          []Order
}

// Bucket is one bucket of an aggregation, the root holding every matching
// message.
type Bucket struct {
	// Key is the bucket's value: a field value, or for a time bucket its
	// start as 2006-01-02T15:04:05.000Z.
	Key   string
	Count int64
	// Values are the series' values, in the order of Aggregation.Series;
	// nil where a series is undefined (the mean of no values).
	Values []any
	// Buckets are the next grouping's buckets: time buckets in time order
	// with the empty ones between the first and the last, values buckets
	// in Order up to the limit.
	Buckets []*Bucket
}

// Aggregated is an aggregation's answer.
type Aggregated struct {
	// Total counts the matching messages.
	Total int64
	Root  *Bucket
	// Intervals are the intervals the time groupings used (rows, then
	// columns; zero for values groupings).
	Intervals []Interval
	Took      time.Duration
}

// Aggregate computes a over the messages r matches, for the caller in ctx
// and within their stream permissions, exactly as Search applies them.
// The message store has no aggregations: the matching messages are read
// in pages, oldest first, and folded, so the answer is the same for every
// store. More than Options.MaxAggregated matches is a 400.
func (s *Service) Aggregate(ctx context.Context, r Request, a Aggregation) (*Aggregated, error) {
	ctx, release, err := s.gate.admit(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	ag, err := newAggregator(a, r.Range, s.maxBuckets())
	if err != nil {
		return nil, err
	}
	total, counted, err := s.countHistogram(ctx, r, ag)
	if err == nil && !counted {
		total, err = s.scan(ctx, r, ag.add)
	}
	if err != nil {
		return nil, err
	}
	root, err := ag.finish()
	if err != nil {
		return nil, err
	}
	out := &Aggregated{Total: total, Root: root, Took: time.Since(start)}
	for _, g := range ag.groups {
		out.Intervals = append(out.Intervals, g.Interval)
	}
	return out, nil
}

func (s *Service) maxBuckets() int {
	if s.opts.MaxBuckets > 0 {
		return s.opts.MaxBuckets
	}
	return DefaultMaxBuckets
}

// scan calls fn for every message r matches, oldest first, and returns how
// many there are. It pages by time rather than by offset, so that every
// page costs the same however deep it is: the next page starts at the last
// timestamp seen, skipping the messages of that millisecond already seen
// (the store breaks timestamp ties by _id, so they come first again).
func (s *Service) scan(ctx context.Context, r Request, fn func(*messages.Message) error) (int64, error) {
	limit := s.opts.MaxAggregated
	if limit <= 0 {
		limit = DefaultMaxAggregated
	}
	page := s.opts.aggregatePage
	if page <= 0 {
		page = aggregatePage
	}
	r.Sort = messages.Sort{Asc: true}
	r.Offset, r.Limit = 0, page
	var total int64
	var last time.Time
	same := 0
	for first := true; ; first = false {
		resp, err := s.searchWindow(ctx, r, exportWindow)
		if err != nil {
			return 0, err
		}
		if first {
			total = resp.Result.Total
			if total > int64(limit) {
				return 0, api.Errorf(api.Invalid, "Too many messages to aggregate: %d match, more than the limit of %d; narrow the time range or the query", total, limit)
			}
		}
		hits := resp.Result.Hits
		for i := range hits {
			m := &hits[i].Message
			if err := fn(m); err != nil {
				return 0, err
			}
			if m.Timestamp.Equal(last) {
				same++
			} else {
				last, same = m.Timestamp, 1
			}
		}
		if len(hits) < r.Limit {
			return total, nil
		}
		r.Range.From, r.Offset = last, same
	}
}

// aggregator folds messages into a tree of buckets.
type aggregator struct {
	groups []Grouping // rows then columns, intervals resolved
	series []Series
	orders []Order
	// fields are the distinct fields the series read; slot maps each
	// series to its field's index (-1: count()).
	fields []string
	card   []bool
	slot   []int
	cur    []any // the current message's values of fields
	has    []bool
	root   node
	nodes  int
	max    int
}

// node is a bucket while messages are folded.
type node struct {
	count int64
	stats []fieldStats
	vals  map[string]*node
	times map[int64]*node
	// Messages come oldest first: the last time bucket is usually the
	// next one's.
	lastKey  int64
	lastTime *node
}

// foldFactor bounds the buckets folded (before limits) to this many times
// the answer's maximum.
const foldFactor = 16

func newAggregator(a Aggregation, r TimeRange, maxBuckets int) (*aggregator, error) {
	switch {
	case len(a.Rows)+len(a.Columns) > MaxGroupings:
		return nil, api.Errorf(api.Invalid, "An aggregation may have at most %d row and column groups", MaxGroupings)
	case len(a.Series) > MaxSeries:
		return nil, api.Errorf(api.Invalid, "An aggregation may have at most %d series", MaxSeries)
	}
	ag := &aggregator{series: a.Series, orders: a.Sort, max: maxBuckets}
	for _, g := range append(slices.Clone(a.Rows), a.Columns...) {
		switch {
		case g.Time && g.Interval.N == 0:
			scaling := g.Scaling
			if scaling == 0 {
				scaling = 1
			}
			g.Interval = AutoInterval(r, scaling)
		case g.Time:
			if g.Interval.N <= 0 || (g.Interval.Unit != "M" && unitLength[g.Interval.Unit] == 0) {
				return nil, api.Errorf(api.Invalid, "Invalid interval %q", g.Interval)
			}
		case g.Field == "":
			return nil, api.Errorf(api.Invalid, "A values grouping needs a field")
		case g.Limit < 0:
			return nil, api.Errorf(api.Invalid, "The limit of the values of %s must be positive", g.Field)
		case g.Limit == 0:
			g.Limit = DefaultValuesLimit
		}
		if g.Time {
			g.Field = messages.FieldTimestamp
		}
		ag.groups = append(ag.groups, g)
	}
	for _, s := range a.Series {
		if err := s.Validate(); err != nil {
			return nil, api.Errorf(api.Invalid, "Invalid series: %v", err)
		}
		if s.Field == "" {
			ag.slot = append(ag.slot, -1)
			continue
		}
		i := slices.Index(ag.fields, s.Field)
		if i < 0 {
			i = len(ag.fields)
			ag.fields = append(ag.fields, s.Field)
			ag.card = append(ag.card, false)
		}
		ag.card[i] = ag.card[i] || s.Type == "card"
		ag.slot = append(ag.slot, i)
	}
	for _, o := range a.Sort {
		if o.Series != "" && ag.seriesIndex(o.Series) < -1 {
			return nil, api.Errorf(api.Invalid, "Cannot sort by series %q: the pivot has no such series", o.Series)
		}
	}
	ag.cur, ag.has = make([]any, len(ag.fields)), make([]bool, len(ag.fields))
	return ag, nil
}

// seriesIndex returns the index of the series with the key, -1 for an
// implicit count(), -2 for none.
func (ag *aggregator) seriesIndex(key string) int {
	for i, s := range ag.series {
		if s.Key() == key {
			return i
		}
	}
	if key == "count()" {
		return -1
	}
	return -2
}

func (ag *aggregator) add(m *messages.Message) error {
	for i, f := range ag.fields {
		ag.cur[i], ag.has[i] = m.Get(f)
	}
	at := m.Timestamp.UnixMilli()
	ag.update(&ag.root, at)
	return ag.descend(&ag.root, 0, m, at)
}

func (ag *aggregator) update(n *node, at int64) {
	n.count++
	if len(ag.fields) == 0 {
		return
	}
	if n.stats == nil {
		n.stats = make([]fieldStats, len(ag.fields))
	}
	for i := range ag.fields {
		if ag.has[i] {
			n.stats[i].add(ag.cur[i], at, ag.card[i])
		}
	}
}

func (ag *aggregator) descend(n *node, level int, m *messages.Message, at int64) error {
	if level == len(ag.groups) {
		return nil
	}
	g := &ag.groups[level]
	if g.Time {
		k := g.Interval.start(at)
		child := n.lastTime
		if child == nil || n.lastKey != k {
			if child = n.times[k]; child == nil {
				if err := ag.grow(); err != nil {
					return err
				}
				if n.times == nil {
					n.times = map[int64]*node{}
				}
				child = &node{}
				n.times[k] = child
			}
			n.lastKey, n.lastTime = k, child
		}
		ag.update(child, at)
		return ag.descend(child, level+1, m, at)
	}
	v, ok := m.Get(g.Field)
	if !ok {
		// As in Elasticsearch, a message without the field is in no
		// values bucket.
		return nil
	}
	switch v := v.(type) {
	case []string:
		for _, s := range v {
			if err := ag.value(n, s, level, m, at); err != nil {
				return err
			}
		}
		return nil
	case string:
		return ag.value(n, v, level, m, at)
	}
	return ag.value(n, messages.FormatValue(v), level, m, at)
}

func (ag *aggregator) value(n *node, key string, level int, m *messages.Message, at int64) error {
	child := n.vals[key]
	if child == nil {
		if err := ag.grow(); err != nil {
			return err
		}
		if n.vals == nil {
			n.vals = map[string]*node{}
		}
		child = &node{}
		n.vals[key] = child
	}
	ag.update(child, at)
	return ag.descend(child, level+1, m, at)
}

func (ag *aggregator) grow() error {
	ag.nodes++
	if ag.nodes > ag.max*foldFactor {
		return api.Errorf(api.Invalid, "Too many buckets to aggregate (more than %d): choose a larger interval or group by fields with fewer values", ag.max*foldFactor)
	}
	return nil
}

// finish turns the folded tree into buckets: limits, order, empty time
// buckets.
func (ag *aggregator) finish() (*Bucket, error) {
	root := &Bucket{Count: ag.root.count, Values: ag.values(&ag.root)}
	made := 0
	var fill func(b *Bucket, n *node, level int) error
	fill = func(b *Bucket, n *node, level int) error {
		if level == len(ag.groups) {
			return nil
		}
		var kids []*node
		if ag.groups[level].Time {
			b.Buckets, kids = ag.timeBuckets(n, level)
		} else {
			b.Buckets, kids = ag.valueBuckets(n, level)
		}
		if made += len(b.Buckets); made > ag.max {
			return api.Errorf(api.Invalid, "Too many buckets: the aggregation would answer more than %d; choose a larger interval or a smaller limit", ag.max)
		}
		for i, c := range b.Buckets {
			if kids[i] != nil {
				if err := fill(c, kids[i], level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := fill(root, &ag.root, 0); err != nil {
		return nil, err
	}
	return root, nil
}

// timeBuckets returns a node's time buckets in order, with the empty ones
// between the first and the last (Elasticsearch's min_doc_count 0), and
// the nodes behind them (nil for the empty ones).
func (ag *aggregator) timeBuckets(n *node, level int) ([]*Bucket, []*node) {
	if len(n.times) == 0 {
		return []*Bucket{}, nil
	}
	keys := make([]int64, 0, len(n.times))
	for k := range n.times {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	iv := ag.groups[level].Interval
	var out []*Bucket
	var kids []*node
	var empty node
	for k := keys[0]; k <= keys[len(keys)-1]; k = iv.next(k) {
		c := n.times[k]
		b := &Bucket{Key: time.UnixMilli(k).UTC().Format(messages.TimeLayout)}
		if c == nil {
			b.Values = ag.values(&empty)
		} else {
			b.Count, b.Values = c.count, ag.values(c)
		}
		out = append(out, b)
		kids = append(kids, c)
		if len(out) > ag.max {
			break // finish reports it
		}
	}
	return out, kids
}

// valueBuckets returns a node's first values in order, up to the limit.
func (ag *aggregator) valueBuckets(n *node, level int) ([]*Bucket, []*node) {
	g := ag.groups[level]
	type entry struct {
		b *Bucket
		n *node
	}
	all := make([]entry, 0, len(n.vals))
	for k, c := range n.vals {
		all = append(all, entry{&Bucket{Key: k, Count: c.count, Values: ag.values(c)}, c})
	}
	slices.SortFunc(all, func(x, y entry) int {
		for _, o := range ag.orders {
			c := 0
			switch {
			case o.Series != "":
				c = compareValues(ag.seriesOf(x.b, o.Series), ag.seriesOf(y.b, o.Series))
			case o.Field == g.Field:
				c = compareKeys(x.b.Key, y.b.Key)
			default:
				continue
			}
			if o.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(y.b.Count, x.b.Count), compareKeys(x.b.Key, y.b.Key))
	})
	all = all[:min(len(all), g.Limit)]
	out, kids := make([]*Bucket, len(all)), make([]*node, len(all))
	for i, e := range all {
		out[i], kids[i] = e.b, e.n
	}
	return out, kids
}

func (ag *aggregator) seriesOf(b *Bucket, key string) any {
	if i := ag.seriesIndex(key); i >= 0 {
		return b.Values[i]
	}
	return b.Count
}

func (ag *aggregator) values(n *node) []any {
	out := make([]any, len(ag.series))
	var none fieldStats
	for i, s := range ag.series {
		f := &none
		if j := ag.slot[i]; j >= 0 && n.stats != nil {
			f = &n.stats[j]
		}
		out[i] = seriesValue(s.Type, n.count, f, s.Field != "")
	}
	return out
}

// compareValues orders series values: numbers by value, undefined last.
func compareValues(a, b any) int {
	x, xok := number(a)
	y, yok := number(b)
	switch {
	case xok && yok:
		return cmp.Compare(x, y)
	case xok:
		return -1
	case yok:
		return 1
	}
	return cmp.Compare(messages.FormatValue(a), messages.FormatValue(b))
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// compareKeys orders values as Elasticsearch orders terms: numbers by
// value, text by bytes.
func compareKeys(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return cmp.Compare(a, b)
}
