package metrics

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/loggate/loggate/router/api"
)

// Counter is a value that goes up and down. The zero Counter is ready to use,
// but only counters from a Registry are reported.
type Counter struct {
	n atomic.Int64
}

// Inc adds n.
func (c *Counter) Inc(n int64) { c.n.Add(n) }

// Dec subtracts n.
func (c *Counter) Dec(n int64) { c.n.Add(-n) }

// Count returns the current value.
func (c *Counter) Count() int64 { return c.n.Load() }

func (c *Counter) typ() metricType { return typeCounter }
func (c *Counter) dump() any       { return counterJSON{Count: c.Count()} }
func (c *Counter) summary() any    { return c.dump() }

type counterJSON struct {
	Count int64 `json:"count"`
}

// gauge is a function read whenever the gauge is reported.
type gauge func() any

func (g gauge) typ() metricType { return typeGauge }
func (g gauge) summary() any    { return g.dump() }

// dump reads the gauge. Like metrics-json, which writes {"error": …} when a
// gauge throws, a failing gauge reports its failure rather than breaking the
// response it is part of.
func (g gauge) dump() (out any) {
	defer func() {
		if p := recover(); p != nil {
			out = gaugeError{Error: fmt.Sprint("panic: ", p)}
		}
	}()
	// Marshal now: an unmarshalable value (a channel, a NaN) would otherwise
	// fail the encoding of the whole response.
	raw, err := api.Marshal(g())
	if err != nil {
		return gaugeError{Error: err.Error()}
	}
	return gaugeJSON{Value: raw}
}

type gaugeJSON struct {
	Value json.RawMessage `json:"value"`
}

type gaugeError struct {
	Error string `json:"error"`
}
