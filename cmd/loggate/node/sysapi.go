package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/access/shares"
	"github.com/loggate/loggate/backend/analysis/decorators"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/cluster"
	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/backend/system/jvm"
	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/backend/system/traffic"
	"github.com/loggate/loggate/router/api"
)

// SystemResources are the system resources the 4.0 web interface reads on
// its overview, nodes and configuration pages.
type SystemResources struct {
	ClusterConfig *clusterconfig.Service
	Decorators    *decorators.Service
	// Traffic records this node's traffic for /system/cluster/traffic.
	Traffic *traffic.Recorder
	// Sidecars are purged by the leader.
	Sidecars *sidecars.Service
}

// trafficInterval is how often a node adds its traffic to its hourly
// bucket; a request for the traffic adds it first.
const trafficInterval = time.Minute

// systemResources builds the system resources and registers the metrics
// the interface polls. It runs after the message pipeline, whose counters
// the metrics read.
func (n *Node) systemResources(ctx context.Context, st store.Store, now func() time.Time) ([]api.Route, error) {
	r := &n.System
	if r.ClusterConfig == nil {
		var err error
		if r.ClusterConfig, err = clusterconfig.NewService(ctx, st); err != nil {
			return nil, err
		}
	}
	if r.Decorators == nil {
		r.Decorators = decorators.NewService(st)
	}
	n.registerGauges()
	var input traffic.Sum
	r.Traffic = traffic.NewRecorder(st, n.Info.ID, now, traffic.Counters{
		// Every input's read_bytes_total: the raw bytes it received.
		Input:   func() int64 { return input.Add(n.Metrics.IntGauges(".read_bytes_total")) },
		Output:  n.Metrics.Counter("org.graylog2.traffic.output").Count,
		Decoded: n.Metrics.Counter("org.graylog2.traffic.decoded").Count,
	})
	// The getting-started guide is dismissed per major.minor release.
	parts := strings.SplitN(overview.APIVersion, ".", 3)
	release := strings.Join(parts[:min(2, len(parts))], ".")
	sharesHandler := shares.NewHandler(n.shareUser, n.ownedStreams, n.ownedViews, n.ownedAlerts)
	return slices.Concat(
		clusterconfig.NewHandler(r.ClusterConfig, release).Routes(),
		decorators.NewHandler(r.Decorators).Routes(),
		jvm.NewHandler(n.Info.ID).SetProcessBuffer(n.Messages.Processor.Dump).Routes(),
		overview.JobsRoutes(),
		r.Traffic.Routes(),
		sharesHandler.Routes(),
	), nil
}

// clusterSystemRoutes are the /cluster variants of node-local routes among
// routes.
func (n *Node) clusterSystemRoutes(routes []api.Route) []api.Route {
	return cluster.NewHandler(n.Info.ID, routes).SetPeers(n.Nodes, nil, 0).SystemRoutes()
}

// registerGauges registers the metrics the nodes page and the header's
// in/out counter poll, from the pipeline's own counters.
func (n *Node) registerGauges() {
	reg, m := n.Metrics, &n.Messages
	jvm.RegisterGauges(reg)
	reg.RateGauge("org.graylog2.throughput.input.1-sec-rate", reg.Meter("org.graylog2.throughput.input").Count)
	reg.RateGauge("org.graylog2.throughput.output.1-sec-rate", reg.Meter("org.graylog2.throughput.output").Count)
	reg.RateGauge("org.graylog2.journal.append.1-sec-rate", func() int64 { return int64(m.Journal.End()) })
	reg.RateGauge("org.graylog2.journal.read.1-sec-rate", func() int64 { return int64(m.Processor.State().Next) })
	reg.Gauge("org.graylog2.journal.segments", func() any { return m.Journal.Stats().NumberOfSegments })
	reg.Gauge("org.graylog2.journal.entries-uncommitted", func() any { return m.Journal.Stats().UncommittedJournalEntries })
}

// runTraffic records this node's traffic until ctx ends.
func (n *Node) runTraffic(ctx context.Context, wg *sync.WaitGroup) {
	if n.System.Traffic == nil {
		return
	}
	wg.Go(func() {
		n.System.Traffic.Run(ctx, trafficInterval, func(err error) { n.log.Warn("recording traffic failed", "error", err) })
	})
}

// runSidecars purges the Sidecars unseen too long on the leader, as soon
// as it leads and then every sidecars.PurgeInterval (Graylog's
// PurgeExpiredSidecarsThread, a leader-only periodical without delay).
func (n *Node) runSidecars(ctx context.Context, wg *sync.WaitGroup) {
	if n.System.Sidecars == nil || n.Nodes == nil {
		return
	}
	wg.Go(func() {
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if !n.Nodes.IsLeader() {
				t.Reset(time.Second)
				continue
			}
			marked, deleted, err := n.System.Sidecars.Purge(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				n.log.Warn("purging Sidecars failed", "error", err)
			case marked > 0 || deleted > 0:
				n.log.Debug("purged Sidecars", "marked_inactive", marked, "deleted", deleted)
			}
			t.Reset(sidecars.PurgeInterval)
		}
	})
}

func (n *Node) shareUser(ctx context.Context, id string) (shares.User, error) {
	u, err := n.Users.ByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return shares.User{}, api.Errorf(api.NotFound, "Couldn't find user %s", id)
	}
	if err != nil {
		return shares.User{}, err
	}
	return shares.User{ID: u.ID, Username: u.Username, FullName: u.FullName}, nil
}

// ownedStreams are the streams users created; the built-in ones belong to
// no one, as in Graylog.
func (n *Node) ownedStreams(context.Context) ([]shares.Entity, error) {
	var out []shares.Entity
	for _, s := range n.Streams.All() {
		switch s.ID {
		case streams.DefaultStreamID, streams.EventsStreamID, streams.SystemEventsStreamID:
			continue
		}
		out = append(out, shares.Entity{ID: s.ID, Type: "stream", Title: s.Title, Owner: s.CreatorUserID})
	}
	return out, nil
}

// ownedViews are the dashboards and saved searches with their creators.
func (n *Node) ownedViews(ctx context.Context) ([]shares.Entity, error) {
	all, err := n.Views.Owned(ctx)
	if err != nil {
		return nil, fmt.Errorf("views: %w", err)
	}
	out := make([]shares.Entity, 0, len(all))
	for _, v := range all {
		typ := "search"
		if v.Type == views.Dashboard {
			typ = "dashboard"
		}
		out = append(out, shares.Entity{ID: v.ID, Type: typ, Title: v.Title, Owner: v.Owner})
	}
	return out, nil
}

// decorators returns the node's search decorators, with the lookup tables
// and pipelines they use: the searches apply them, /search/decorators
// manages them.
func (n *Node) decorators() *decorators.Service {
	if n.System.Decorators != nil {
		return n.System.Decorators
	}
	var l decorators.Lookups
	if n.Lookup != nil {
		l = n.Lookup
	}
	var p decorators.Pipelines
	if n.Pipelines.Service != nil && n.Pipelines.Interpreter != nil {
		p = decoratorPipelines{n.Pipelines.Service, n.Pipelines.Interpreter}
	}
	n.System.Decorators = decorators.NewService(n.Store).SetRuntime(l, p, n.Levels.Logger("loggate.decorators"))
	return n.System.Decorators
}

// decoratorPipelines lists the pipelines (service) and runs one on a
// message (interpreter) for the pipeline processor decorator.
type decoratorPipelines struct {
	*pipelines.Service
	in *pipelines.Interpreter
}

func (p decoratorPipelines) Decorate(ctx context.Context, id string, msg *messages.Message) []messages.Message {
	return p.in.Decorate(ctx, id, msg)
}
