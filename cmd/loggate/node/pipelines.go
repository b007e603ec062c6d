package node

import (
	"context"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/pipelines/functions"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Pipelines is Graylog's pipeline processor on this node: the stored
// rules, pipelines and connections, and the interpreter processing runs
// every message through.
type Pipelines struct {
	Service     *pipelines.Service
	Interpreter *pipelines.Interpreter
}

// pipelineResources builds the pipeline processor once streams, inputs and
// grok patterns exist, and returns its routes.
func (n *Node) pipelineResources(ctx context.Context, st store.Store, now func() time.Time) ([]api.Route, error) {
	lib := functions.New(functions.Deps{
		Streams: pipelineStreams{n.Streams},
		Inputs:  pipelineInputs{n.Inputs},
		Grok:    n.Grok,
		Lookup:  n.Lookup,
		Count:   func(name string, v int64) { n.Metrics.Counter(name).Inc(v) },
		Size:    processing.AccountedSize,
		Logger:  n.Levels.Logger("loggate.pipelines"),
		Now:     now,
	})
	svc, err := pipelines.NewService(ctx, st, lib, n.Metrics, now)
	if err != nil {
		return nil, fmt.Errorf("pipelines: %w", err)
	}
	// Rules match with the grok patterns of the cluster, not only those
	// this node's /system/grok requests have loaded.
	svc.RefreshAlso(n.Grok.Refresh)
	n.Pipelines = Pipelines{Service: svc, Interpreter: pipelines.NewInterpreter(svc, n.Metrics, now)}
	return pipelines.NewHandler(svc, n.Pipelines.Interpreter, n.Streams, lib).Routes(), nil
}

// pipelineProcessor runs the interpreter as Graylog's Pipeline Processor,
// where /system/messageprocessors/config puts it.
type pipelineProcessor struct {
	in  *pipelines.Interpreter
	buf []messages.Message
}

var _ processing.FieldAdder = (*pipelineProcessor)(nil)

// AddedFields tells processing how many fields the pipelines add to a
// message, so that it reads messages with that room.
func (p *pipelineProcessor) AddedFields() int { return p.in.AddedFields() }

// Process runs every message of the batch through the pipelines: the
// messages to go on with are each message (unless a rule dropped it)
// followed by those its rules created.
func (p *pipelineProcessor) Process(ctx context.Context, msgs []*messages.Message) []*messages.Message {
	out := make([]*messages.Message, 0, len(msgs))
	for _, m := range msgs {
		p.buf = p.in.Process(ctx, *m, p.buf[:0])
		for i := range p.buf {
			if i == 0 && p.buf[0].ID == m.ID {
				*m = p.buf[0]
				out = append(out, m)
				continue
			}
			c := p.buf[i]
			out = append(out, &c)
		}
	}
	return out
}

// pipelineStreams finds the streams route_to_stream names.
type pipelineStreams struct{ s *streams.Service }

func (p pipelineStreams) Enabled(id string) bool {
	st, err := p.s.Get(id)
	return err == nil && !st.Disabled
}

func (p pipelineStreams) EnabledTitled(title string) []string {
	var ids []string
	for _, st := range p.s.All() {
		if st.Title == title && !st.Disabled {
			ids = append(ids, st.ID)
		}
	}
	return ids
}

// pipelineInputs finds input titles for from_input.
type pipelineInputs struct{ s *inputs.Service }

func (p pipelineInputs) Title(id string) (string, bool) {
	in, err := p.s.Get(context.Background(), id)
	return in.Title, err == nil
}
