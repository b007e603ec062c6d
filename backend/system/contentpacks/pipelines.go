package contentpacks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/streams"
)

// The pipeline entity types.
var (
	PipelineRuleV1 = ModelType{Name: "pipeline_rule", Version: "1"}
	PipelineV1     = ModelType{Name: "pipeline", Version: "1"}
)

// Pipelines is what content packs need of the pipeline rules, the
// pipelines and their stream connections.
type Pipelines interface {
	Rules() []pipelines.RuleSource
	Rule(id string) (pipelines.RuleSource, error)
	CreateRule(ctx context.Context, description *string, source string) (pipelines.RuleSource, error)
	DeleteRule(ctx context.Context, id string) error
	Pipelines() []pipelines.PipelineSource
	Pipeline(id string) (pipelines.PipelineSource, error)
	CreatePipeline(ctx context.Context, description *string, source string) (pipelines.PipelineSource, error)
	DeletePipeline(ctx context.Context, id string) error
	Connections() []pipelines.Connection
	ConnectPipeline(ctx context.Context, pipelineID string, streamIDs []string) ([]pipelines.Connection, error)
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// optional resolves a nullable string reference.
func optional(p install, v *ValueRef, what string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s, err := p.str(v, what, "")
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// sourced reads what rules and pipelines both have: a source, and a
// description that may be null.
func sourced(p install, source, description *ValueRef) (string, *string, error) {
	src, err := p.str(source, "source", "")
	if err != nil {
		return "", nil, err
	}
	desc, err := optional(p, description, "description")
	return src, desc, err
}

// refOrNull is the reference of a nullable string: null when it is null,
// as Graylog's ValueReference.of writes it.
func refOrNull(s *string) *ValueRef {
	if s == nil {
		return nil
	}
	return ref(*s)
}

// --- pipeline_rule

// ruleFacade is Graylog's PipelineRuleFacade.
type ruleFacade struct{ p Pipelines }

// pipelineRuleData is Graylog's PipelineRuleEntity.
type pipelineRuleData struct {
	Title       *ValueRef `json:"title"`
	Description *ValueRef `json:"description"`
	Source      *ValueRef `json:"source"`
}

// existing is the rule of the entity's title; another source is refused,
// as in Graylog.
func (f ruleFacade) existing(_ context.Context, data json.RawMessage, p install) (*native, error) {
	var d pipelineRuleData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	title, err := p.str(d.Title, "title", "")
	if err != nil {
		return nil, err
	}
	source, err := p.str(d.Source, "source", "")
	if err != nil {
		return nil, err
	}
	for _, r := range f.p.Rules() {
		if str(r.Title) != title {
			continue
		}
		if r.Source != source {
			// Graylog's DivergingEntityConfigurationException.
			return nil, fmt.Errorf("different pipeline rule sources for pipeline rule with name %q", title)
		}
		return &native{id: str(r.ID), title: title}, nil
	}
	return nil, nil
}

func (f ruleFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	var d pipelineRuleData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	source, desc, err := sourced(p, d.Source, d.Description)
	if err != nil {
		return native{}, err
	}
	// The title is the name the source declares, as for every rule here.
	r, err := f.p.CreateRule(ctx, desc, source)
	if err != nil {
		return native{}, err
	}
	return native{id: str(r.ID), title: str(r.Title)}, nil
}

func (f ruleFacade) exists(_ context.Context, id string) bool {
	_, err := f.p.Rule(id)
	return err == nil
}

func (f ruleFacade) remove(ctx context.Context, id string) error { return f.p.DeleteRule(ctx, id) }

func (f ruleFacade) excerpts(context.Context) ([]Excerpt, error) {
	var out []Excerpt
	for _, r := range f.p.Rules() {
		out = append(out, Excerpt{ID: str(r.ID), Type: PipelineRuleV1, Title: str(r.Title)})
	}
	return out, nil
}

func (f ruleFacade) export(_ context.Context, id string, _ exportIDs) (any, error) {
	r, err := f.p.Rule(id)
	if err != nil {
		return nil, err
	}
	return pipelineRuleData{Title: ref(str(r.Title)), Description: refOrNull(r.Description), Source: ref(r.Source)}, nil
}

// --- pipeline

// pipelineFacade is Graylog's PipelineFacade.
type pipelineFacade struct{ p Pipelines }

// pipelineData is Graylog's PipelineEntity: its connected streams are the
// ids of pack entities (or of the default stream).
type pipelineData struct {
	Title            *ValueRef  `json:"title"`
	Description      *ValueRef  `json:"description"`
	Source           *ValueRef  `json:"source"`
	ConnectedStreams []ValueRef `json:"connected_streams"`
}

// existing finds nothing: Graylog always creates a pipeline.
func (f pipelineFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil
}

func (f pipelineFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	var d pipelineData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	source, desc, err := sourced(p, d.Source, d.Description)
	if err != nil {
		return native{}, err
	}
	// The connected streams are the streams of the pack, or the default
	// stream of this server, resolved before anything is created.
	var streamIDs []string
	for i := range d.ConnectedStreams {
		s, err := p.str(&d.ConnectedStreams[i], "connected_streams", "")
		if err != nil {
			return native{}, err
		}
		id, ok := p.natives[Descriptor{ID: s, Type: StreamV1}]
		if !ok && s == streams.DefaultStreamID {
			id, ok = s, true
		}
		if !ok {
			return native{}, fmt.Errorf("missing stream %s for the pipeline", s)
		}
		if !slices.Contains(streamIDs, id) {
			streamIDs = append(streamIDs, id)
		}
	}
	pl, err := f.p.CreatePipeline(ctx, desc, source)
	if err != nil {
		return native{}, err
	}
	id := str(pl.ID)
	if len(streamIDs) > 0 {
		if _, err := f.p.ConnectPipeline(ctx, id, streamIDs); err != nil {
			return native{}, errors.Join(err, f.remove(context.WithoutCancel(ctx), id))
		}
	}
	return native{id: id, title: str(pl.Title)}, nil
}

func (f pipelineFacade) exists(_ context.Context, id string) bool {
	_, err := f.p.Pipeline(id)
	return err == nil
}

// remove disconnects the pipeline from its streams, then deletes it.
func (f pipelineFacade) remove(ctx context.Context, id string) error {
	if _, err := f.p.ConnectPipeline(ctx, id, nil); err != nil {
		return err
	}
	return f.p.DeletePipeline(ctx, id)
}

func (f pipelineFacade) excerpts(context.Context) ([]Excerpt, error) {
	var out []Excerpt
	for _, pl := range f.p.Pipelines() {
		out = append(out, Excerpt{ID: str(pl.ID), Type: PipelineV1, Title: str(pl.Title)})
	}
	return out, nil
}

// connected returns the streams a pipeline is connected to, sorted.
func (f pipelineFacade) connected(id string) []string {
	var out []string
	for _, c := range f.p.Connections() {
		if slices.Contains(c.PipelineIDs, id) {
			out = append(out, c.StreamID)
		}
	}
	slices.Sort(out)
	return out
}

// dependencies are the rules the pipeline's stages name that exist and
// the streams it is connected to.
func (f pipelineFacade) dependencies(_ context.Context, id string) ([]Descriptor, error) {
	pl, err := f.p.Pipeline(id)
	if err != nil {
		return nil, err
	}
	rules := f.p.Rules()
	var out []Descriptor
	for _, st := range pl.Stages {
		for _, name := range st.Rules {
			if i := slices.IndexFunc(rules, func(r pipelines.RuleSource) bool { return str(r.Title) == name }); i >= 0 {
				out = append(out, Descriptor{ID: str(rules[i].ID), Type: PipelineRuleV1})
			}
		}
	}
	for _, s := range f.connected(id) {
		out = append(out, Descriptor{ID: s, Type: StreamV1})
	}
	return out, nil
}

func (f pipelineFacade) export(_ context.Context, id string, ids exportIDs) (any, error) {
	pl, err := f.p.Pipeline(id)
	if err != nil {
		return nil, err
	}
	d := pipelineData{Title: ref(str(pl.Title)), Description: refOrNull(pl.Description), Source: ref(pl.Source), ConnectedStreams: []ValueRef{}}
	for _, s := range f.connected(id) {
		eid, ok := ids[Descriptor{ID: s, Type: StreamV1}]
		if !ok {
			return nil, fmt.Errorf("couldn't find stream entity %s", s)
		}
		d.ConnectedStreams = append(d.ConnectedStreams, *ref(eid))
	}
	return d, nil
}
