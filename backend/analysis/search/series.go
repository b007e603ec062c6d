package search

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Series is one metric an aggregation computes per bucket (Graylog's
// SeriesSpec): count() counts messages, count(field) the messages with the
// field; avg, min, max, sum, sumofsquares, variance and stddev work on
// the field's numeric values (population variance, as Elasticsearch's
// extended_stats); card counts the field's distinct values; latest is the
// field's value in the newest message.
type Series struct {
	// ID keys the series' values in results; Literal() when empty.
	ID    string
	Type  string
	Field string
}

// seriesTypes are the series loggate computes, and whether they need a
// field.
var seriesTypes = map[string]bool{
	"count": false, "avg": true, "min": true, "max": true, "sum": true, "sumofsquares": true,
	"variance": true, "stddev": true, "card": true, "latest": true,
}

// Literal returns the series as the views API writes it: "avg(took)".
func (s Series) Literal() string { return s.Type + "(" + s.Field + ")" }

// Key returns the series' ID, or its literal.
func (s Series) Key() string {
	if s.ID != "" {
		return s.ID
	}
	return s.Literal()
}

// Validate reports a series loggate cannot compute.
func (s Series) Validate() error {
	needsField, ok := seriesTypes[s.Type]
	switch {
	case s.Type == "percentile":
		return fmt.Errorf("series %q: percentile is not supported; use min, max, avg or stddev", s.Literal())
	case !ok:
		return fmt.Errorf("unknown series type %q; known types are avg, card, count, latest, max, min, stddev, sum, sumofsquares and variance", s.Type)
	case needsField && s.Field == "":
		return fmt.Errorf("series %q needs a field", s.Literal())
	}
	return nil
}

// ParseSeries parses a series function as the views API writes it,
// "count()" or "avg(took)".
func ParseSeries(fn string) (Series, error) {
	fn = strings.TrimSpace(fn)
	open := strings.IndexByte(fn, '(')
	if open <= 0 || !strings.HasSuffix(fn, ")") {
		return Series{}, fmt.Errorf("series function %q must be <type>(<field>), e.g. count() or avg(took)", fn)
	}
	s := Series{ID: fn, Type: strings.ToLower(fn[:open]), Field: strings.TrimSpace(fn[open+1 : len(fn)-1])}
	if strings.ContainsAny(s.Field, "()") {
		return Series{}, fmt.Errorf("series function %q must be <type>(<field>), e.g. count() or avg(took)", fn)
	}
	if err := s.Validate(); err != nil {
		return Series{}, err
	}
	return s, nil
}

// fieldStats are the running statistics of one field in one bucket.
type fieldStats struct {
	present    int64 // messages with the field, whatever its type
	n          int64 // numeric values
	sum, sumsq float64
	min, max   float64
	latest     any
	latestAt   int64
	distinct   map[string]struct{}
}

func (f *fieldStats) add(v any, at int64, card bool) {
	f.present++
	if f.latest == nil || at >= f.latestAt {
		f.latest, f.latestAt = v, at
	}
	if card {
		if f.distinct == nil {
			f.distinct = map[string]struct{}{}
		}
		switch v := v.(type) {
		case string:
			f.distinct[v] = struct{}{}
		case []string:
			for _, s := range v {
				f.distinct[s] = struct{}{}
			}
		default:
			f.distinct[messages.FormatValue(v)] = struct{}{}
		}
	}
	var x float64
	switch v := v.(type) {
	case int64:
		x = float64(v)
	case float64:
		x = v
	default:
		return
	}
	if f.n == 0 || x < f.min {
		f.min = x
	}
	if f.n == 0 || x > f.max {
		f.max = x
	}
	f.n++
	f.sum += x
	f.sumsq += x * x
}

// value returns a series' value from the bucket's count and the stats of
// its field; nil where it is undefined (a mean of no values).
func seriesValue(typ string, count int64, f *fieldStats, hasField bool) any {
	v := rawSeriesValue(typ, count, f, hasField)
	// JSON has no infinities: a sum that overflowed is undefined.
	if x, ok := v.(float64); ok && (math.IsInf(x, 0) || math.IsNaN(x)) {
		return nil
	}
	return v
}

func rawSeriesValue(typ string, count int64, f *fieldStats, hasField bool) any {
	if typ == "count" {
		if !hasField {
			return count
		}
		return f.present
	}
	switch typ {
	case "sum":
		return f.sum
	case "card":
		return int64(len(f.distinct))
	case "latest":
		if t, ok := f.latest.(time.Time); ok {
			return t.UTC().Format(messages.TimeLayout)
		}
		return f.latest
	}
	if f.n == 0 {
		return nil
	}
	n := float64(f.n)
	mean := f.sum / n
	// Rounding can make a constant series' variance slightly negative.
	variance := math.Max(0, f.sumsq/n-mean*mean)
	switch typ {
	case "avg":
		return mean
	case "min":
		return f.min
	case "max":
		return f.max
	case "sumofsquares":
		return f.sumsq
	case "variance":
		return variance
	case "stddev":
		return math.Sqrt(variance)
	}
	return nil
}
