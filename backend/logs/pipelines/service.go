// Package pipelines owns Graylog's pipeline processor: rules, pipelines
// and their connections to streams, kept in the document store and shared
// by every node; the /system/pipelines resources; and the interpreter that
// runs the connected pipelines on every message (Interpreter).
package pipelines

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
)

// Collections, as Graylog names them.
const (
	RulesCollection       = "pipeline_processor_rules"
	PipelinesCollection   = "pipeline_processor_pipelines"
	ConnectionsCollection = "pipeline_processor_pipelines_streams"
	// metricsCollection holds the rule metrics setting, one document.
	metricsCollection = "pipeline_processor_rule_metrics_config"
	metricsID         = "config"
	// changes is the change counter every write bumps, so that every node
	// rebuilds its interpreter state within a second of a change.
	changes = "pipeline_processor"
)

// Indexes are the unique indexes of the collections: titles, and one
// connection document per stream.
var Indexes = []store.Index{
	{Collection: RulesCollection, Field: "title"},
	{Collection: PipelinesCollection, Field: "title"},
	{Collection: ConnectionsCollection, Field: "stream_id"},
}

// Service stores rules, pipelines and connections and keeps their compiled
// form. Writes go to the store first; the compiled program is rebuilt and
// published after each, and when another node changed something.
type Service struct {
	st  store.Store
	fns lang.Functions
	reg *metrics.Registry
	now func() time.Time

	write sync.Mutex
	snap  atomic.Pointer[snapshot]
	fresh *store.Freshness
	// also are the refreshes of what rules use that another node may
	// change (the grok patterns), which Refresh runs too.
	also []func(context.Context) error
}

// RefreshAlso makes Refresh run refresh as well: rules follow what it
// keeps current (the grok patterns, whose matchers rules compile against
// the patterns in memory). Call it before the service is used.
func (s *Service) RefreshAlso(refresh func(context.Context) error) {
	s.also = append(s.also, refresh)
}

// snapshot is the stored documents of one moment and their program.
type snapshot struct {
	rules     []Source // by title
	pipelines []Source // by title
	conns     []Connection
	metrics   bool
	prog      *program
}

// NewService loads what the store holds. fns is the function library
// rules are parsed against; reg, when not nil, gets Graylog's meters of
// every rule and pipeline.
func NewService(ctx context.Context, st store.Store, fns lang.Functions, reg *metrics.Registry, now func() time.Time) (*Service, error) {
	s := &Service{st: st, fns: fns, reg: reg, now: now, fresh: store.NewFreshness(st, changes, time.Second, now)}
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload reads every document again and recompiles.
func (s *Service) Reload(ctx context.Context) error {
	s.write.Lock()
	defer s.write.Unlock()
	if err := s.fresh.Load(ctx, s.load); err != nil {
		return fmt.Errorf("pipelines: %w", err)
	}
	return nil
}

// load reads and compiles every document; s.write is held.
func (s *Service) load(ctx context.Context) error {
	snap := &snapshot{}
	var err error
	if snap.rules, err = loadSources(ctx, s.st, RulesCollection); err != nil {
		return err
	}
	if snap.pipelines, err = loadSources(ctx, s.st, PipelinesCollection); err != nil {
		return err
	}
	err = s.st.List(ctx, ConnectionsCollection, func(id string, doc []byte) error {
		var c Connection
		if err := json.Unmarshal(doc, &c); err != nil {
			return fmt.Errorf("connection %s: %w", id, err)
		}
		c.ID = id
		snap.conns = append(snap.conns, c)
		return nil
	})
	if err != nil {
		return fmt.Errorf("loading connections: %w", err)
	}
	doc, err := s.st.Get(ctx, metricsCollection, metricsID)
	switch {
	case err == nil:
		var m MetricsConfig
		if err := json.Unmarshal(doc, &m); err != nil {
			return fmt.Errorf("rule metrics config: %w", err)
		}
		snap.metrics = m.MetricsEnabled
	case !errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("rule metrics config: %w", err)
	}
	s.publish(snap)
	return nil
}

func loadSources(ctx context.Context, st store.Store, coll string) ([]Source, error) {
	var out []Source
	err := st.List(ctx, coll, func(id string, doc []byte) error {
		var src Source
		if err := json.Unmarshal(doc, &src); err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		src.ID = id
		out = append(out, src)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pipelines: loading %s: %w", coll, err)
	}
	sortByTitle(out)
	return out, nil
}

func sortByTitle(srcs []Source) {
	slices.SortFunc(srcs, func(a, b Source) int {
		return cmp.Or(strings.Compare(a.Title, b.Title), strings.Compare(a.ID, b.ID))
	})
}

// Refresh reloads when another node changed something, asking the store
// at most once a second.
func (s *Service) Refresh(ctx context.Context) error {
	var errs []error
	for _, refresh := range s.also {
		if err := refresh(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.fresh.Refresh(ctx, s.Reload); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// publish compiles snap and makes it current. Callers hold s.write.
func (s *Service) publish(snap *snapshot) {
	snap.prog = compile(snap.rules, snap.pipelines, snap.conns, snap.metrics, s.fns, s.reg)
	s.snap.Store(snap)
	if s.reg != nil {
		dropMetrics(s.reg, snap)
	}
}

// dropMetrics unregisters the metrics of rules and pipelines snap no
// longer holds, which /system/metrics would list for ever.
func dropMetrics(reg *metrics.Registry, snap *snapshot) {
	live := map[string]bool{}
	for _, r := range snap.rules {
		live[ruleMetrics+r.ID+"."] = true
	}
	for _, p := range snap.pipelines {
		live[pipelineMetrics+p.ID+"."] = true
	}
	reg.RemoveMatching(func(name string) bool {
		for _, prefix := range [...]string{ruleMetrics, pipelineMetrics} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				id, _, _ := strings.Cut(rest, ".")
				return !live[prefix+id+"."]
			}
		}
		return false
	})
}

func (s *Service) current() *snapshot { return s.snap.Load() }

// change applies a write: fn gets a copy of the current documents to
// change, after it stored the change.
func (s *Service) change(ctx context.Context, fn func(next *snapshot) error) error {
	s.write.Lock()
	defer s.write.Unlock()
	cur := s.current()
	next := &snapshot{rules: slices.Clone(cur.rules), pipelines: slices.Clone(cur.pipelines),
		conns: slices.Clone(cur.conns), metrics: cur.metrics}
	if err := fn(next); err != nil {
		return err
	}
	sortByTitle(next.rules)
	sortByTitle(next.pipelines)
	s.publish(next)
	s.fresh.Changed(ctx)
	return nil
}

func (s *Service) program() *program { return s.current().prog }

// kind tells rules from pipelines in the shared code of both.
type kind struct {
	coll, noun string
	list       func(*snapshot) *[]Source
	// title parses source and returns the title it declares.
	title func(s *Service, source string) (string, error)
}

var (
	ruleKind = kind{coll: RulesCollection, noun: "rule", list: func(s *snapshot) *[]Source { return &s.rules },
		title: func(s *Service, src string) (string, error) {
			r, err := lang.ParseRule(src, s.fns)
			if err != nil {
				return "", err
			}
			return r.Name, nil
		}}
	pipelineKind = kind{coll: PipelinesCollection, noun: "pipeline", list: func(s *snapshot) *[]Source { return &s.pipelines },
		title: func(_ *Service, src string) (string, error) {
			p, err := lang.ParsePipeline(src)
			if err != nil {
				return "", err
			}
			return p.Name, nil
		}}
)

func notFound(k kind, id string) error {
	return api.Errorf(api.NotFound, "No %s with id %s", k.noun, id)
}

// get returns a stored rule or pipeline.
func (s *Service) get(k kind, id string) (Source, error) {
	for _, src := range *k.list(s.current()) {
		if src.ID == id {
			return src, nil
		}
	}
	return Source{}, notFound(k, id)
}

// create parses and stores a new rule or pipeline; its title is the name
// its source declares, whatever the request said.
func (s *Service) create(ctx context.Context, k kind, description *string, source string) (Source, error) {
	title, err := k.title(s, source)
	if err != nil {
		return Source{}, err
	}
	now := api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}
	src := Source{ID: primitive.NewObjectID().Hex(), Title: title, Description: description, Source: source, CreatedAt: &now, ModifiedAt: &now}
	err = s.change(ctx, func(next *snapshot) error {
		if err := s.save(ctx, k, src, true); err != nil {
			return err
		}
		list := k.list(next)
		*list = append(*list, src)
		return nil
	})
	return src, err
}

func (s *Service) save(ctx context.Context, k kind, src Source, insert bool) error {
	doc, err := api.Marshal(src)
	if err != nil {
		return err
	}
	if insert {
		err = s.st.Insert(ctx, k.coll, src.ID, doc)
	} else {
		err = s.st.Update(ctx, k.coll, src.ID, func([]byte) ([]byte, error) { return doc, nil })
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		// Graylog's unique index answers a duplicate title with a 500.
		return &api.Error{Code: api.Internal, Message: fmt.Sprintf("A %s titled %q already exists", k.noun, src.Title), Err: err}
	case errors.Is(err, store.ErrNotFound):
		return notFound(k, src.ID)
	case err != nil:
		return fmt.Errorf("pipelines: saving %s %s: %w", k.noun, src.ID, err)
	}
	return nil
}

// update replaces the source (and title) of a rule or pipeline.
func (s *Service) update(ctx context.Context, k kind, id string, description *string, source string) (Source, error) {
	old, err := s.get(k, id)
	if err != nil {
		return Source{}, err
	}
	title, err := k.title(s, source)
	if err != nil {
		return Source{}, err
	}
	now := api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}
	src := Source{ID: id, Title: title, Description: description, Source: source, CreatedAt: old.CreatedAt, ModifiedAt: &now}
	err = s.change(ctx, func(next *snapshot) error {
		if err := s.save(ctx, k, src, false); err != nil {
			return err
		}
		list := k.list(next)
		i := slices.IndexFunc(*list, func(x Source) bool { return x.ID == id })
		if i < 0 {
			*list = append(*list, src)
		} else {
			(*list)[i] = src
		}
		return nil
	})
	return src, err
}

func (s *Service) delete(ctx context.Context, k kind, id string) error {
	if _, err := s.get(k, id); err != nil {
		return err
	}
	return s.change(ctx, func(next *snapshot) error {
		err := s.st.Delete(ctx, k.coll, id)
		if errors.Is(err, store.ErrNotFound) {
			return notFound(k, id)
		}
		if err != nil {
			return fmt.Errorf("pipelines: deleting %s %s: %w", k.noun, id, err)
		}
		list := k.list(next)
		*list = slices.DeleteFunc(*list, func(x Source) bool { return x.ID == id })
		return nil
	})
}

// Rules returns every rule, by title, each with the errors of its current
// parse (a rule may stop parsing when a function it calls goes away).
func (s *Service) Rules() []RuleSource {
	snap := s.current()
	out := make([]RuleSource, len(snap.rules))
	for i, r := range snap.rules {
		out[i] = ruleSource(r, snap.prog.ruleErrs[r.ID])
	}
	return out
}

// Rule returns one rule.
func (s *Service) Rule(id string) (RuleSource, error) {
	r, err := s.get(ruleKind, id)
	if err != nil {
		return RuleSource{}, err
	}
	return ruleSource(r, s.program().ruleErrs[id]), nil
}

// CreateRule stores a new rule. A source that does not parse is an error
// of type lang.Errors.
func (s *Service) CreateRule(ctx context.Context, description *string, source string) (RuleSource, error) {
	r, err := s.create(ctx, ruleKind, description, source)
	return ruleSource(r, nil), err
}

// UpdateRule replaces a rule's source; its title follows the source.
func (s *Service) UpdateRule(ctx context.Context, id string, description *string, source string) (RuleSource, error) {
	r, err := s.update(ctx, ruleKind, id, description, source)
	return ruleSource(r, nil), err
}

// DeleteRule removes a rule. Pipelines that name it keep the name.
func (s *Service) DeleteRule(ctx context.Context, id string) error {
	return s.delete(ctx, ruleKind, id)
}

// ParseRule parses a rule without storing it.
func (s *Service) ParseRule(description *string, source string) (RuleSource, error) {
	title, err := ruleKind.title(s, source)
	if err != nil {
		return RuleSource{}, err
	}
	now := api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}
	return RuleSource{sourceFields: sourceFields{Title: &title, Description: description, Source: source, CreatedAt: &now, ModifiedAt: &now}}, nil
}

// Pipelines returns every pipeline, by title.
func (s *Service) Pipelines() []PipelineSource {
	snap := s.current()
	out := make([]PipelineSource, len(snap.pipelines))
	for i, p := range snap.pipelines {
		out[i] = pipelineSource(p, snap.prog.parsed[p.ID], snap.prog.pipelineErrs[p.ID])
	}
	return out
}

// Pipeline returns one pipeline.
func (s *Service) Pipeline(id string) (PipelineSource, error) {
	p, err := s.get(pipelineKind, id)
	if err != nil {
		return PipelineSource{}, err
	}
	prog := s.program()
	return pipelineSource(p, prog.parsed[id], prog.pipelineErrs[id]), nil
}

// CreatePipeline stores a new pipeline.
func (s *Service) CreatePipeline(ctx context.Context, description *string, source string) (PipelineSource, error) {
	p, err := s.create(ctx, pipelineKind, description, source)
	if err != nil {
		return PipelineSource{}, err
	}
	return s.Pipeline(p.ID)
}

// UpdatePipeline replaces a pipeline's source.
func (s *Service) UpdatePipeline(ctx context.Context, id string, description *string, source string) (PipelineSource, error) {
	if _, err := s.update(ctx, pipelineKind, id, description, source); err != nil {
		return PipelineSource{}, err
	}
	return s.Pipeline(id)
}

// DeletePipeline removes a pipeline; connections keep its id, ignored.
func (s *Service) DeletePipeline(ctx context.Context, id string) error {
	return s.delete(ctx, pipelineKind, id)
}

// ParsePipeline parses a pipeline without storing it.
func (s *Service) ParsePipeline(description *string, source string) (PipelineSource, error) {
	p, err := lang.ParsePipeline(source)
	if err != nil {
		return PipelineSource{}, err
	}
	now := api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}
	return PipelineSource{sourceFields: sourceFields{Title: &p.Name, Description: description, Source: source, CreatedAt: &now, ModifiedAt: &now},
		Stages: stages(p)}, nil
}

// Connections returns every stream's connection.
func (s *Service) Connections() []Connection { return slices.Clone(s.current().conns) }

// Connection returns the connection of a stream.
func (s *Service) Connection(streamID string) (Connection, bool) {
	for _, c := range s.current().conns {
		if c.StreamID == streamID {
			return c, true
		}
	}
	return Connection{}, false
}

// Connect sets the pipelines of each stream in conns (replacing what
// they had) and returns the stored connections.
func (s *Service) Connect(ctx context.Context, conns []Connection) ([]Connection, error) {
	var out []Connection
	err := s.change(ctx, func(next *snapshot) error {
		for _, c := range conns {
			ids := c.PipelineIDs
			stored, _, err := s.editConnection(ctx, c.StreamID, func([]string) ([]string, bool) { return ids, true })
			if err != nil {
				return err
			}
			next.setConnection(stored)
			out = append(out, stored)
		}
		return nil
	})
	return out, err
}

// ConnectPipeline connects a pipeline to exactly the streams listed: it
// leaves the others and joins these, keeping every other pipeline of
// theirs. Only the connections that change are written; those of the
// streams listed are returned too, as Graylog's answer has them. Each
// connection is changed in the store, atomically, rather than replaced by
// what this node holds in memory: requests connecting pipelines to one
// stream at once, through this node or another, all count.
func (s *Service) ConnectPipeline(ctx context.Context, pipelineID string, streamIDs []string) ([]Connection, error) {
	var out []Connection
	err := s.change(ctx, func(next *snapshot) error {
		out = []Connection{} // an answer of none is an empty list
		// The streams to leave, from the store: this node's snapshot may
		// miss another node's connection of a moment ago.
		var leave []string
		err := s.st.List(ctx, ConnectionsCollection, func(id string, doc []byte) error {
			var c Connection
			if err := json.Unmarshal(doc, &c); err != nil {
				return fmt.Errorf("connection %s: %w", id, err)
			}
			if slices.Contains(c.PipelineIDs, pipelineID) && !slices.Contains(streamIDs, c.StreamID) {
				leave = append(leave, c.StreamID)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("pipelines: loading connections: %w", err)
		}
		// As Graylog, the answer holds the connections the pipeline left
		// and those of every stream listed, changed or not (the interface
		// merges each into its list), once each.
		edit := func(streamID string, fn func([]string) ([]string, bool)) error {
			c, changed, err := s.editConnection(ctx, streamID, fn)
			if err != nil {
				return err
			}
			if c.ID != "" {
				next.setConnection(c)
			}
			if (changed || slices.Contains(streamIDs, streamID)) &&
				!slices.ContainsFunc(out, func(o Connection) bool { return o.StreamID == streamID }) {
				out = append(out, c)
			}
			return nil
		}
		for _, sid := range leave {
			err := edit(sid, func(ids []string) ([]string, bool) {
				if !slices.Contains(ids, pipelineID) {
					return ids, false
				}
				return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == pipelineID }), true
			})
			if err != nil {
				return err
			}
		}
		for _, sid := range streamIDs {
			err := edit(sid, func(ids []string) ([]string, bool) {
				if slices.Contains(ids, pipelineID) {
					return ids, false
				}
				return append(slices.Clone(ids), pipelineID), true
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// setConnection puts c into the snapshot, replacing its stream's.
func (snap *snapshot) setConnection(c Connection) {
	if i := slices.IndexFunc(snap.conns, func(x Connection) bool { return x.StreamID == c.StreamID }); i >= 0 {
		snap.conns[i] = c
		return
	}
	snap.conns = append(snap.conns, c)
}

// editConnection changes the stored connection of a stream atomically:
// edit gets its pipeline ids (none when the stream has no connection yet)
// and returns the new ones, or false to leave it as it is. It returns the
// connection as stored (no ID when there is none) and whether it changed.
func (s *Service) editConnection(ctx context.Context, streamID string, edit func([]string) ([]string, bool)) (Connection, bool, error) {
	encode := func(c Connection) ([]byte, error) {
		return api.Marshal(struct {
			StreamID    string   `json:"stream_id"`
			PipelineIDs []string `json:"pipeline_ids"`
		}{c.StreamID, c.PipelineIDs})
	}
	for attempt := 0; ; attempt++ {
		// Another node may create or delete the connection between the
		// lookup and the write: then look again, a few times.
		retry := attempt < 5
		id, _, err := s.st.FindUnique(ctx, ConnectionsCollection, "stream_id", streamID)
		if errors.Is(err, store.ErrNotFound) {
			ids, changed := edit(nil)
			c := Connection{StreamID: streamID, PipelineIDs: ids}
			if c.PipelineIDs == nil {
				c.PipelineIDs = []string{}
			}
			if !changed {
				return c, false, nil
			}
			c.ID = primitive.NewObjectID().Hex()
			doc, err := encode(c)
			if err != nil {
				return Connection{}, false, err
			}
			err = s.st.Insert(ctx, ConnectionsCollection, c.ID, doc)
			if errors.Is(err, store.ErrConflict) && retry {
				continue
			}
			if err != nil {
				return Connection{}, false, fmt.Errorf("pipelines: saving the connection of stream %s: %w", streamID, err)
			}
			return c, true, nil
		}
		if err != nil {
			return Connection{}, false, fmt.Errorf("pipelines: the connection of stream %s: %w", streamID, err)
		}
		var c Connection
		var changed bool
		err = s.st.Update(ctx, ConnectionsCollection, id, func(doc []byte) ([]byte, error) {
			var cur Connection
			if err := json.Unmarshal(doc, &cur); err != nil {
				return nil, fmt.Errorf("connection %s: %w", id, err)
			}
			var ids []string
			ids, changed = edit(cur.PipelineIDs)
			c = Connection{ID: id, StreamID: streamID, PipelineIDs: ids}
			if c.PipelineIDs == nil {
				c.PipelineIDs = []string{}
			}
			if !changed {
				return doc, nil
			}
			return encode(c)
		})
		if errors.Is(err, store.ErrNotFound) && retry {
			continue
		}
		if err != nil {
			return Connection{}, false, fmt.Errorf("pipelines: saving the connection of stream %s: %w", streamID, err)
		}
		return c, changed, nil
	}
}

// MetricsConfig returns the rule metrics setting.
func (s *Service) MetricsConfig() MetricsConfig {
	return MetricsConfig{MetricsEnabled: s.current().metrics}
}

// SetMetricsConfig stores the rule metrics setting.
func (s *Service) SetMetricsConfig(ctx context.Context, c MetricsConfig) error {
	return s.change(ctx, func(next *snapshot) error {
		doc, err := api.Marshal(c)
		if err != nil {
			return err
		}
		if err := s.st.Put(ctx, metricsCollection, metricsID, doc); err != nil {
			return fmt.Errorf("pipelines: saving the rule metrics config: %w", err)
		}
		next.metrics = c.MetricsEnabled
		return nil
	})
}
