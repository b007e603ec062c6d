package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/indexer"

	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/deflector"
	"github.com/loggate/loggate/backend/logs/forward"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/ingest"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/elastic"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/logs/rotation"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/router/api"
)

// Messages is a node's message pipeline: inputs append to the journal,
// the processor routes what it reads into the message store, and search
// reads the store.
type Messages struct {
	Journal   *journal.Journal
	Store     messages.Store
	Processor *processing.Processor
	Inputs    *ingest.Runner
	Search    *search.Service
	// Fields are the names and types of the fields of stored messages,
	// recorded as the processor writes them.
	Fields *views.Fields
	// Jobs are the executed views searches, for their status requests.
	Jobs *views.Jobs
	// Outputs forwards stored messages to their streams' outputs.
	Outputs *forward.Router
	// Failures are the messages the store refused for good.
	Failures *indexer.Failures

	sets    *processing.IndexSetCache
	now     func() time.Time
	applyCh chan struct{}
	// shared is true when the store is shared by the cluster
	// (Elasticsearch): then only the leader rotates.
	shared bool
}

// rotationInterval is how often index sets are checked for rotation and
// retention, as Graylog's rotation thread does.
const rotationInterval = 10 * time.Second

// maxRecordSize is the journal's record limit. Inputs never decompress a
// payload beyond it, and refuse a decompress_size_limit above it.
const maxRecordSize = journal.DefaultMaxRecordSize

// messagePipeline opens the journal and the message store and builds the
// processor, the inputs runner and the search service; it returns their
// routes.
func (n *Node) messagePipeline(ctx context.Context, cfg config.Config, o Options) ([]api.Route, error) {
	m := &n.Messages
	j, err := journal.Open(cfg.JournalDir, journal.Options{MaxSize: cfg.JournalMaxSize, MaxAge: cfg.JournalMaxAge, Now: o.Now, MaxRecordSize: maxRecordSize,
		Logger: n.Levels.Logger("loggate.journal")})
	if err != nil {
		return nil, fmt.Errorf("message journal: %w", err)
	}
	n.closer = append(n.closer, j.Close)
	m.Journal = j

	if len(cfg.ElasticsearchHosts) > 0 {
		es, err := elastic.Open(ctx, elastic.Options{Hosts: cfg.ElasticsearchHosts, Now: o.Now, Node: n.Info.ID, Namespace: o.ElasticNamespace,
			Settings: n.indexSettings, Logger: n.Levels.Logger("loggate.elasticsearch")})
		if err != nil {
			return nil, fmt.Errorf("elasticsearch_hosts: %w", err)
		}
		m.Store, m.shared = es, true
		n.closer = append(n.closer, es.Close)
	} else {
		st, err := embedded.Open(filepath.Join(cfg.DataDir, "messages"), embedded.Options{Now: o.Now, Fault: o.MessageFault})
		if err != nil {
			return nil, fmt.Errorf("message store: %w", err)
		}
		m.Store = st
		n.closer = append(n.closer, st.Close)
	}

	m.sets = processing.NewIndexSetCache(n.IndexSets, time.Second, o.Now)
	n.IndexSets.OnChange(m.sets.Invalidate)
	n.IndexSets.SetStats(indexSetStats{sets: n.IndexSets, store: m.Store})
	m.Outputs = forward.NewRouter(forward.RouterOptions{Metrics: n.Metrics, Logger: n.Levels.Logger("loggate.outputs")})
	m.Fields = views.NewFields(m.Store, n.Streams, n.IndexSets)
	m.Processor = processing.New(j, m.Fields.Recording(m.Store), n.Streams, m.sets, processing.Options{
		Processing: n.Info.IsProcessing, Metrics: n.Metrics, Logger: n.Levels.Logger("loggate.processing"), Now: o.Now,
		Forwarder: m.Outputs, Refused: n.indexingFailed,
	})
	if n.Pipelines.Interpreter != nil {
		m.Processor.Register(processing.PipelineClass, &pipelineProcessor{in: n.Pipelines.Interpreter})
	}
	m.Inputs = ingest.NewRunner(j, n.InputStates, ingest.Options{NodeID: n.Info.ID, Now: o.Now,
		Logger: n.Levels.Logger("loggate.inputs"), Metrics: n.Metrics, MaxRecordSize: maxRecordSize, DecodeBudget: cfg.DecodeBudget})
	m.Search = search.NewService(m.Store, n.Streams, n.IndexSets, search.Options{AllowLeadingWildcard: cfg.LeadingWildcard, Now: o.Now,
		MaxConcurrent: cfg.SearchMaxConcurrent, MaxQueueDuration: cfg.SearchMaxQueue})
	m.applyCh, m.now = make(chan struct{}, 1), o.Now
	m.Failures = indexer.NewFailures(n.Store, o.Now)
	m.Jobs = views.NewJobs(o.Now)
	searches := search.NewHandler(m.Search).WithDecorators(n.decorators()).SetParser(func(codec string, config map[string]any, raw []byte, remote string) (messages.Message, error) {
		return inputs.ParseRaw(codec, config, raw, remote, o.Now)
	})
	viewStore := views.NewSearches(n.Store, n.Views, o.Now)
	n.Nodes.Every("searches clean-up", time.Hour, func(ctx context.Context) error {
		_, err := viewStore.Purge(ctx, o.Now().Add(-views.MaxSearchAge))
		return err
	})
	viewSearches := views.NewSearchHandler(viewStore, searches, m.Jobs, m.Fields)
	return slices.Concat(
		// The views' searches and fields before the views, whose
		// /views/{id} would take /views/fields for a view id.
		viewSearches.Routes(),
		views.NewHandler(n.Views, viewStore).Routes(),
		searches.Routes(),
		deflector.NewHandler(n.IndexSets, m.Store, n.Levels.Logger("loggate.indexer.deflector")).Routes(),
		indexer.NewHandler(n.IndexSets, m.Store, m.Failures, indexer.Node{ID: n.Info.ID, Hostname: n.Info.Hostname}, o.Now).Routes(),
	), nil
}

// indexingFailed keeps a message the store refused for good as an indexing
// failure; losing the record is logged, not fatal: the message is dropped
// either way.
func (n *Node) indexingFailed(ctx context.Context, msg messages.Message, prefix string, err error) {
	if ferr := n.Messages.Failures.Record(ctx, msg.ID, prefix+"_deflector", err); ferr != nil && ctx.Err() == nil {
		n.log.Warn("recording an indexing failure failed", "id", msg.ID, "error", ferr)
	}
}

// inputsChanged asks the runner to reconcile now; it never blocks.
func (m *Messages) inputsChanged() {
	if m.applyCh == nil {
		return
	}
	select {
	case m.applyCh <- struct{}{}:
	default:
	}
}

// outputSyncInterval is how often the outputs' forwarders are reconciled
// with the stored outputs and stream attachments.
const outputSyncInterval = time.Second

// inputReconcileInterval is how often a node picks up inputs created or
// changed through another node.
const inputReconcileInterval = time.Second

// runMessages runs the pipeline until ctx ends: the processor, the inputs
// (reconciled on every change made here and every second for changes made
// on other nodes), and rotation and retention.
func (n *Node) runMessages(ctx context.Context, wg *sync.WaitGroup) {
	m := &n.Messages
	if m.Processor == nil {
		return
	}
	wg.Go(func() {
		// The outputs close after the processor, which may still forward
		// while it drains.
		defer m.Outputs.Close()
		if err := m.Processor.Run(ctx); err != nil {
			n.log.Error("message processing stopped", "error", err)
		}
	})
	wg.Go(func() { m.Outputs.Run(ctx, n.Streams, n.Outputs, outputSyncInterval) })
	wg.Go(func() {
		defer m.Inputs.Close()
		t := time.NewTicker(inputReconcileInterval)
		defer t.Stop()
		for {
			if all, err := n.Inputs.All(ctx); err != nil {
				n.log.Warn("listing inputs failed", "error", err)
			} else {
				m.Inputs.Apply(ctx, all)
			}
			select {
			case <-ctx.Done():
				return
			case <-m.applyCh:
			case <-t.C:
			}
		}
	})
	rotate := func(ctx context.Context) error {
		actions, err := rotation.Run(ctx, n.IndexSets, m.Store, m.now(), n.Levels.Logger("loggate.rotation"))
		n.rotated(ctx, actions, err)
		return err
	}
	if m.shared && n.Nodes != nil {
		// One store for the cluster: one node rotates it, the leader.
		n.Nodes.Every("index rotation and retention", rotationInterval, rotate)
		return
	}
	wg.Go(func() {
		t := time.NewTicker(rotationInterval)
		defer t.Stop()
		for {
			if err := rotate(ctx); err != nil && ctx.Err() == nil {
				n.log.Warn("index rotation failed", "error", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// indexSettings gives the Elasticsearch store an index set's settings for
// the indices it creates under prefix.
func (n *Node) indexSettings(prefix string) elastic.IndexSettings {
	sets, err := n.IndexSets.All(context.Background())
	if err != nil {
		return elastic.IndexSettings{}
	}
	for _, is := range sets {
		if is.IndexPrefix == prefix {
			return elastic.IndexSettings{Shards: is.Shards, Replicas: is.Replicas, Analyzer: is.IndexAnalyzer, MaxResultWindow: is.MaxResultWindow}
		}
	}
	return elastic.IndexSettings{}
}

// indexSetStats answers the index sets' stats from the message store.
type indexSetStats struct {
	sets interface {
		Get(ctx context.Context, id string) (indexsets.IndexSet, error)
	}
	store messages.Store
}

// DeleteIndices deletes the messages of an index set's series, as
// Graylog's IndexSetCleanupJob does: the store cannot drop a write index,
// which writes may still reach, so a new and empty one is started, then
// every other index deleted.
func (s indexSetStats) DeleteIndices(ctx context.Context, prefix string) error {
	list, err := s.store.Indices(ctx, prefix)
	if err != nil || len(list) == 0 {
		return err
	}
	if list[len(list)-1].Count > 0 {
		if _, err := s.store.Rotate(ctx, prefix); err != nil {
			return fmt.Errorf("rotate %s: %w", prefix, err)
		}
		if list, err = s.store.Indices(ctx, prefix); err != nil {
			return err
		}
	}
	var errs []error
	for _, ix := range list[:len(list)-1] {
		if err := s.store.Delete(ctx, ix.Name); err != nil && !errors.Is(err, messages.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete %s: %w", ix.Name, err))
		}
	}
	return errors.Join(errs...)
}

func (s indexSetStats) IndexSetStats(ctx context.Context, id string) (indices, documents, size int64, err error) {
	is, err := s.sets.Get(ctx, id)
	if err != nil {
		return 0, 0, 0, err
	}
	list, err := s.store.Indices(ctx, is.IndexPrefix)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, ix := range list {
		documents += ix.Count
		size += ix.Size
	}
	return int64(len(list)), documents, size, nil
}
