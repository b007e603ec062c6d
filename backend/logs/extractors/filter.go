package extractors

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/system/metrics"
)

// compiled is an extractor ready to run, with its live metrics.
type compiled struct {
	Extractor
	cut   bool
	cond  func(string) bool
	run   runFunc
	convs []converter
	m     *extractorMetrics
}

// extractorMetrics are an extractor's metrics, named as Graylog names them
// (<class>.<type>.<id>.<metric>) so that /system/metrics lists them too.
type extractorMetrics struct {
	prefix                                  string // of their names
	total, condition, execution, converters *metrics.Timer
	hits, misses                            *metrics.Counter
	// exceptions count this node's failures, which Graylog keeps on its
	// live extractor instances.
	exceptions, converterExceptions atomic.Int64
}

// classes are Graylog's extractor classes, which name the metrics.
var classes = map[string]string{
	typeRegex: "RegexExtractor", typeRegexReplace: "RegexReplaceExtractor", typeSubstring: "SubstringExtractor",
	typeSplitIndex: "SplitAndIndexExtractor", typeCopyInput: "CopyInputExtractor", typeGrok: "GrokExtractor",
	typeJSON: "JsonExtractor", typeLookupTable: "LookupTableExtractor",
}

func newMetrics(reg *metrics.Registry, e Extractor) *extractorMetrics {
	name := "org.graylog2.inputs.extractors." + classes[e.Type] + "." + e.Type + "." + e.ID + "."
	return &extractorMetrics{
		prefix: name,
		total:  reg.Timer(name + "completeExecutionTime"), condition: reg.Timer(name + "conditionTime"),
		execution: reg.Timer(name + "executionTime"), converters: reg.Timer(name + "converterExecutionTime"),
		hits: reg.Counter(name + "conditionHits"), misses: reg.Counter(name + "conditionMisses"),
	}
}

// compile builds an extractor; errors are the request's (400, or 500 where
// Graylog answers 500). Converters with a bad configuration are left out,
// as Graylog leaves them out, and reported to skipped.
func compile(e Extractor, d deps, skipped func(Converter, error)) (*compiled, error) {
	run, err := newRunner(e.Type, e.Config, d)
	if err != nil {
		return nil, err
	}
	c := &compiled{Extractor: e, run: run, cut: e.CursorStrategy == "cut"}
	switch e.ConditionType {
	case "string":
		v := e.ConditionValue
		c.cond = func(s string) bool { return strings.Contains(s, v) }
	case "regex":
		re, err := compileJava(e.ConditionValue)
		if err != nil {
			return nil, err
		}
		c.cond = re.MatchString
	default:
		c.cond = func(string) bool { return true }
	}
	for _, cv := range e.Converters {
		built, err := newConverter(cv.Type, cv.Config, d)
		if errors.Is(err, errSkipConverter) {
			if skipped != nil {
				skipped(cv, err)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		c.convs = append(c.convs, built)
	}
	return c, nil
}

// fullyCut is what a source field becomes when a cut leaves nothing.
const fullyCut = "fullyCutByExtractor"

// apply runs the extractor on a message as Graylog's Extractor.runExtractor
// does. It returns the failure of the extraction, if any; converter
// failures are counted and skipped.
func (c *compiled) apply(m *messages.Message) error {
	start := time.Now()
	defer c.m.total.UpdateSince(start)
	v, _ := m.Get(c.SourceField)
	src, ok := v.(string)
	if !ok {
		c.m.misses.Inc(1)
		return nil
	}
	condStart := time.Now()
	hit := c.cond(src)
	c.m.condition.UpdateSince(condStart)
	if !hit {
		c.m.misses.Inc(1)
		return nil
	}
	c.m.hits.Inc(1)
	execStart := time.Now()
	results, err := c.run(src)
	c.m.execution.UpdateSince(execStart)
	if err != nil {
		c.m.exceptions.Add(1)
		return err
	}
	if len(results) == 0 || slices.ContainsFunc(results, func(r result) bool { return r.value == nil }) {
		return nil
	}
	if c.cut && c.TargetField != c.SourceField && !messages.Reserved(c.SourceField) && results[0].begin >= 0 {
		r := results[0]
		rest := src[:r.begin] + src[r.end:]
		if strings.TrimSpace(rest) == "" {
			rest = fullyCut
		}
		m.SetField(c.SourceField, rest)
	}
	// Graylog's Message keeps a text written to timestamp, for a date
	// converter to read (its documented way of setting the timestamp);
	// loggate's keeps the timestamp a time, so the text waits here.
	var text string
	for _, r := range results {
		key := r.key
		if key == "" {
			key = c.TargetField
			if s, ok := r.value.(string); ok && key == messages.FieldTimestamp {
				text = messages.Trim(s)
				continue
			}
		}
		m.SetField(key, r.value)
	}
	if len(c.convs) > 0 {
		convStart := time.Now()
		c.convert(m, text)
		c.m.converters.UpdateSince(convStart)
	}
	return nil
}

// convert runs the converters on the target field, in order, while its
// value is a string; text is the text written to timestamp, if any.
func (c *compiled) convert(m *messages.Message, text string) {
	for _, cv := range c.convs {
		s := text
		if s == "" {
			v, _ := m.Get(c.TargetField)
			var ok bool
			if s, ok = v.(string); !ok {
				return
			}
		}
		if cv.multi != nil {
			fields, err := cv.multi(s)
			if err != nil {
				c.m.converterExceptions.Add(1)
				continue
			}
			for _, f := range fields {
				if messages.Reserved(f.key) {
					c.m.converterExceptions.Add(1)
					continue
				}
				m.SetField(f.key, f.value)
			}
			continue
		}
		out, err := cv.single(s)
		if err != nil {
			c.m.converterExceptions.Add(1)
			continue
		}
		if text != "" {
			// The reserved timestamp is never removed: a converter that
			// finds nothing, or an empty text, leaves the text as it is.
			if o, ok := out.(string); ok {
				if o = messages.Trim(o); o != "" {
					text = o
				}
				continue
			}
			if out != nil {
				text = ""
				m.SetField(c.TargetField, out)
			}
			continue
		}
		if out == nil {
			// A converter that finds nothing (flexdate) clears the value,
			// as Graylog's addField(null) leaves the field out.
			m.RemoveField(c.TargetField)
			continue
		}
		m.SetField(c.TargetField, out)
	}
}

// inputFilters are one input's extractors (by ascending order, then
// stored order) and static fields.
type inputFilters struct {
	extractors []*compiled
	static     []kv
}

// Filter is the Message Filter Chain's input filters: each message's
// input's extractors and then its static fields, which are added only
// where the message lacks the field.
type Filter struct {
	s   *Service
	log *slog.Logger
}

// Process runs the filters on a batch; it is a processing.MessageProcessor.
func (f *Filter) Process(ctx context.Context, msgs []*messages.Message) []*messages.Message {
	if err := f.s.Refresh(ctx); err != nil {
		f.log.Warn("refreshing the extractors failed; running the ones loaded", "err", err)
	}
	byInput := f.s.snapshot()
	if len(byInput) == 0 {
		return msgs
	}
	for _, m := range msgs {
		v, _ := m.Get(messages.FieldSourceInput)
		id, _ := v.(string)
		in := byInput[id]
		if in == nil {
			continue
		}
		for _, c := range in.extractors {
			if err := c.apply(m); err != nil {
				f.log.Debug("extractor failed", "extractor", c.ID, "input", id, "err", err)
			}
		}
		for _, s := range in.static {
			if _, ok := m.Get(s.key); !ok {
				m.SetField(s.key, s.value)
			}
		}
	}
	return msgs
}
