package pipelines

import (
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/router/api"
)

// Source is a rule or a pipeline as stored: Graylog's RuleSource and
// PipelineSource without what is derived from the source text.
type Source struct {
	ID          string    `json:"-"`
	Title       string    `json:"title"`
	Description *string   `json:"description"`
	Source      string    `json:"source"`
	CreatedAt   *api.Time `json:"created_at"`
	ModifiedAt  *api.Time `json:"modified_at"`
}

// sourceFields are what RuleSource and PipelineSource share. Nulls are
// written, as Graylog writes them.
type sourceFields struct {
	ID          *string   `json:"id"`
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	Source      string    `json:"source"`
	CreatedAt   *api.Time `json:"created_at"`
	ModifiedAt  *api.Time `json:"modified_at"`
}

// RuleSource is Graylog 4.0's RuleSource, the rule resource's shape.
type RuleSource struct {
	sourceFields
	Errors []lang.Error `json:"errors"`
}

// PipelineSource is Graylog 4.0's PipelineSource: a RuleSource with the
// stages the source declares.
type PipelineSource struct {
	sourceFields
	Stages []StageSource `json:"stages"`
	Errors []lang.Error  `json:"errors"`
}

// StageSource is one stage of a PipelineSource.
type StageSource struct {
	Stage    int      `json:"stage"`
	MatchAll bool     `json:"match_all"`
	Rules    []string `json:"rules"`
}

// Connection is the pipelines connected to one stream.
type Connection struct {
	ID          string   `json:"id"`
	StreamID    string   `json:"stream_id"`
	PipelineIDs []string `json:"pipeline_ids"`
}

// MetricsConfig is the rule metrics setting.
type MetricsConfig struct {
	MetricsEnabled bool `json:"metrics_enabled"`
}

func strPtr(s string) *string { return &s }

// ruleSource renders a stored rule with the errors of its current parse.
func ruleSource(s Source, errs []lang.Error) RuleSource {
	return RuleSource{sourceFields: fields(s), Errors: errs}
}

func fields(s Source) sourceFields {
	return sourceFields{ID: strPtr(s.ID), Title: strPtr(s.Title), Description: s.Description, Source: s.Source,
		CreatedAt: s.CreatedAt, ModifiedAt: s.ModifiedAt}
}

// pipelineSource renders a stored pipeline with its stages, or its errors
// when it no longer parses.
func pipelineSource(s Source, p *lang.Pipeline, errs []lang.Error) PipelineSource {
	return PipelineSource{sourceFields: fields(s), Stages: stages(p), Errors: errs}
}

func stages(p *lang.Pipeline) []StageSource {
	out := []StageSource{}
	if p == nil {
		return out
	}
	for _, st := range p.Stages {
		rules := st.Rules
		if rules == nil {
			rules = []string{}
		}
		out = append(out, StageSource{Stage: st.Number, MatchAll: st.MatchAll, Rules: rules})
	}
	return out
}
