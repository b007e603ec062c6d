package node

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/extractors"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/clusterstats"
	"github.com/loggate/loggate/router/api"
)

// configIndexes are the unique indexes of the configuration resources.
func configIndexes() []store.Index {
	return slices.Concat(indexsets.Indexes, grok.Indexes, pipelines.Indexes, lookup.Indexes)
}

// Resources are the configuration services of the 4.0 API beyond users and
// authentication: what messages are routed by and stored in.
type Resources struct {
	IndexSets   *indexsets.Service
	Streams     *streams.Service
	Outputs     *outputs.Service
	Inputs      *inputs.Service
	InputStates *inputs.States
	Grok        *grok.Service
	Views       *views.Service
	// Extractors are the inputs' extractors and static fields.
	Extractors *extractors.Service
}

// configResources builds the configuration services, seeding what Graylog
// creates on its first start (the default index set and streams, the
// default grok patterns), and returns their routes; the views' routes come
// with the message pipeline, whose search they run.
func (n *Node) configResources(ctx context.Context, st store.Store, now func() time.Time) ([]api.Route, error) {
	r := &n.Resources
	var err error
	if r.IndexSets, err = indexsets.NewService(ctx, st, nil, nil, now); err != nil {
		return nil, fmt.Errorf("index sets: %w", err)
	}
	// Outputs and streams refer to each other: an output is attached to
	// streams when it is created, and a stream embeds its outputs.
	links := &streamLinks{}
	r.Outputs = outputs.NewService(st, links, now)
	if r.Streams, err = streams.NewService(ctx, st, r.IndexSets, r.Outputs, now); err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	links.streams = r.Streams
	r.IndexSets.SetStreams(r.Streams)
	r.InputStates = inputs.NewStates(now)
	r.Inputs = inputs.NewService(st, now, inputs.WithNodeChecker(func(_ context.Context, id string) (bool, error) {
		// One node until nodes register with each other.
		return id == n.Info.ID, nil
	}), inputs.WithChangeHook(n.Messages.inputsChanged), inputs.WithMaxDecompressed(maxRecordSize))
	if r.Grok, err = grok.NewService(ctx, st, now); err != nil {
		return nil, fmt.Errorf("grok patterns: %w", err)
	}
	r.Views = views.NewService(st, now)
	n.Users.AddDisowner(r.Views)
	// Owners deleted before deleting a user disowned their views.
	if err := r.Views.DisownMissing(ctx, n.userExists); err != nil {
		return nil, fmt.Errorf("views of deleted users: %w", err)
	}
	stats := clusterstats.NewHandler(clusterstats.Sources{
		Streams: r.Streams, Users: n.Users, Outputs: r.Outputs, Inputs: r.Inputs, Views: r.Views,
		Store: st.(clusterstats.DocumentStore), StoreEngine: n.storeEngine(),
		Host: clusterstats.Host{Hostname: n.Info.Hostname, StartedAt: n.Info.StartedAt, Now: now},
	})
	return slices.Concat(
		streams.NewHandler(r.Streams).Routes(),
		outputs.NewHandler(r.Outputs).Routes(),
		inputs.NewHandler(r.Inputs, r.InputStates, runnerControl{&n.Messages}).Routes(),
		grok.NewHandler(r.Grok).Routes(),
		indexsets.NewHandler(r.IndexSets).Routes(),
		stats.Routes(),
	), nil
}

// streamLinks hands the outputs service the streams service once both exist.
type streamLinks struct{ streams *streams.Service }

func (l *streamLinks) AddOutput(ctx context.Context, streamID, outputID string) error {
	return l.streams.AddOutput(ctx, streamID, outputID)
}

func (l *streamLinks) RemoveOutput(ctx context.Context, outputID string) error {
	return l.streams.RemoveOutput(ctx, outputID)
}

var _ inputs.NodeControl = runnerControl{}

// runnerControl lets the inputs resource start and stop this node's
// inputs through the message pipeline's runner, built after it.
type runnerControl struct{ m *Messages }

func (c runnerControl) Start(ctx context.Context, in inputs.Input) bool {
	// The input outlives the request that started it.
	return c.m.Inputs != nil && c.m.Inputs.Start(context.WithoutCancel(ctx), in)
}

func (c runnerControl) Stop(inputID string) bool {
	return c.m.Inputs != nil && c.m.Inputs.Stop(inputID)
}

// Runs tells the inputs resource which inputs have a state on this node.
func (c runnerControl) Runs(in inputs.Input) bool {
	return c.m.Inputs == nil || c.m.Inputs.Runs(in)
}
