package pipelines

import (
	"cmp"
	"errors"
	"slices"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/backend/system/metrics"
)

// program is the compiled form of every rule, pipeline and connection,
// built once per change and shared by every message until the next:
// Graylog's interpreter state.
type program struct {
	rules     map[string]*compiledRule // by title
	pipelines map[string]*compiledPipeline
	byStream  map[string][]*compiledPipeline
	metrics   bool

	ruleErrs     map[string][]lang.Error // by rule id
	pipelineErrs map[string][]lang.Error // by pipeline id
	parsed       map[string]*lang.Pipeline
}

type compiledRule struct {
	id, title string
	// rule is nil for a reference to a rule that does not exist or does
	// not parse: its condition is always false, as in Graylog.
	rule *lang.Rule
	meters
}

// meters are Graylog's meters of a rule
// (org.graylog.plugins.pipelineprocessor.ast.Rule.<id>.*); nil without a
// registry.
type meters struct {
	executed, failed, matched, notMatched *metrics.Meter
}

func mark(m *metrics.Meter) {
	if m != nil {
		m.Mark(1)
	}
}

type compiledPipeline struct {
	id, title string
	stages    []compiledStage // by number
	executed  *metrics.Meter
}

type compiledStage struct {
	number   int
	matchAll bool
	rules    []*compiledRule
}

// The prefixes of rules' and pipelines' metrics, named as Graylog's.
const (
	ruleMetrics     = "org.graylog.plugins.pipelineprocessor.ast.Rule."
	pipelineMetrics = "org.graylog.plugins.pipelineprocessor.ast.Pipeline."
)

// compile builds the program of one snapshot of the documents.
func compile(rules, pipes []Source, conns []Connection, metricsOn bool, fns lang.Functions, reg *metrics.Registry) *program {
	p := &program{
		rules: map[string]*compiledRule{}, pipelines: map[string]*compiledPipeline{}, byStream: map[string][]*compiledPipeline{},
		metrics: metricsOn, ruleErrs: map[string][]lang.Error{}, pipelineErrs: map[string][]lang.Error{}, parsed: map[string]*lang.Pipeline{},
	}
	for _, r := range rules {
		rule, err := lang.ParseRule(r.Source, fns)
		if err != nil {
			p.ruleErrs[r.ID] = errorList(err)
			rule = nil
		}
		if _, dup := p.rules[r.Title]; !dup || rule != nil {
			cr := &compiledRule{id: r.ID, title: r.Title, rule: rule}
			if reg != nil {
				name := ruleMetrics + r.ID + "."
				cr.meters = meters{executed: reg.Meter(name + "executed"), failed: reg.Meter(name + "failed"),
					matched: reg.Meter(name + "matched"), notMatched: reg.Meter(name + "not-matched")}
			}
			p.rules[r.Title] = cr
		}
	}
	for _, s := range pipes {
		parsed, err := lang.ParsePipeline(s.Source)
		if err != nil {
			p.pipelineErrs[s.ID] = errorList(err)
			continue
		}
		p.parsed[s.ID] = parsed
		cp := &compiledPipeline{id: s.ID, title: s.Title}
		if reg != nil {
			cp.executed = reg.Meter(pipelineMetrics + s.ID + ".executed")
		}
		seen := map[int]bool{}
		for _, st := range parsed.Stages {
			// Two stages with one number: only the first counts.
			if seen[st.Number] {
				continue
			}
			seen[st.Number] = true
			cs := compiledStage{number: st.Number, matchAll: st.MatchAll}
			for _, title := range st.Rules {
				r, ok := p.rules[title]
				if !ok {
					r = &compiledRule{title: title}
				}
				cs.rules = append(cs.rules, r)
			}
			cp.stages = append(cp.stages, cs)
		}
		slices.SortStableFunc(cp.stages, func(a, b compiledStage) int { return cmp.Compare(a.number, b.number) })
		p.pipelines[s.ID] = cp
	}
	for _, c := range conns {
		for _, id := range c.PipelineIDs {
			// Connections to deleted pipelines stay stored and are
			// ignored, as in Graylog.
			if cp, ok := p.pipelines[id]; ok && !slices.Contains(p.byStream[c.StreamID], cp) {
				p.byStream[c.StreamID] = append(p.byStream[c.StreamID], cp)
			}
		}
	}
	return p
}

// errorList returns the parse errors of err, or one syntax error naming it.
func errorList(err error) []lang.Error {
	var errs lang.Errors
	if errors.As(err, &errs) {
		return errs
	}
	return []lang.Error{{Type: "syntax_error", Line: 1, Reason: err.Error()}}
}
