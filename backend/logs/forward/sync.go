package forward

import (
	"context"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/streams"
)

// StreamSource lists the streams; *streams.Service satisfies it.
type StreamSource interface {
	All() []*streams.Stream
}

// OutputSource lists the outputs; *outputs.Service satisfies it.
type OutputSource interface {
	List(ctx context.Context) ([]outputs.Summary, error)
}

// StreamOutputs maps each stream id to the ids of its outputs, the first
// argument of Apply. Paused streams are included: the pipeline routes no
// message to them, and keeping them spares a restart when they resume.
func StreamOutputs(ss []*streams.Stream) map[string][]string {
	out := make(map[string][]string, len(ss))
	for _, s := range ss {
		if len(s.Outputs) > 0 {
			out[s.ID] = s.Outputs
		}
	}
	return out
}

// Sync applies the current streams and outputs. Calling it when nothing
// changed costs one listing of the outputs and leaves every forwarder
// running.
func (r *Router) Sync(ctx context.Context, streamSrc StreamSource, outputSrc OutputSource) error {
	outs, err := outputSrc.List(ctx)
	if err != nil {
		return fmt.Errorf("forward: list outputs: %w", err)
	}
	return r.Apply(StreamOutputs(streamSrc.All()), outs)
}

// Run calls Sync at once and then every interval until ctx ends, logging
// errors when they change. Neither the streams nor the outputs service
// announces changes, and another node may make them, so polling is what
// keeps every node's forwarders current; interval bounds the delay.
func (r *Router) Run(ctx context.Context, streamSrc StreamSource, outputSrc OutputSource, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		r.report(r.Sync(ctx, streamSrc, outputSrc))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// report logs a Sync error once, and its recovery.
func (r *Router) report(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	r.mu.Lock()
	changed := msg != r.lastErr
	r.lastErr = msg
	r.mu.Unlock()
	switch {
	case !changed:
	case err != nil:
		r.log.Error("cannot apply the outputs", "error", err)
	default:
		r.log.Info("outputs applied")
	}
}
