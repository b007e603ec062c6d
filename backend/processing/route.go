package processing

import (
	"slices"

	"github.com/loggate/loggate/backend/messages"
	"github.com/loggate/loggate/backend/streams"
)

// router assigns messages their streams, as Graylog's StreamRouter does:
// every enabled stream whose rules match, and the default stream unless one
// of those removes its matches from it. It is built for one batch from the
// streams of that moment, so that what every message of the batch shares
// (which streams can match, which fields their rules read, the index sets'
// prefixes) is worked out once.
//
// The built-in event streams never match by rules; streams without rules
// never match (Graylog: a stream needs at least one rule).
type router struct {
	// candidates are the streams that can match, in the order of all.
	candidates []*streams.Stream
	// defaultSet is the index set of the default stream, "" if it is gone.
	defaultSet string
	// fields are the message fields the candidates' rules read; the match
	// map holds only those, since a rule looks at nothing else.
	fields         map[string]bool
	needID, needTS bool
	match          map[string]any

	prefixOf func(indexSetID string) (string, bool)
	prefixes map[string]prefix // by index set id, resolved once per batch
	// sets are the index sets of the enabled streams, for the streams
	// pipelines put a message on.
	sets map[string]string
}

type prefix struct {
	name string
	ok   bool
}

func newRouter(all []*streams.Stream, prefixOf func(indexSetID string) (string, bool)) *router {
	r := &router{prefixOf: prefixOf, prefixes: map[string]prefix{}, fields: map[string]bool{}, sets: map[string]string{}}
	for _, st := range all {
		if st.ID == streams.DefaultStreamID {
			r.defaultSet = st.IndexSetID
		}
		if !st.Disabled {
			r.sets[st.ID] = st.IndexSetID
		}
		if st.Disabled || len(st.Rules) == 0 || streams.IsBuiltin(st.ID) {
			continue
		}
		r.candidates = append(r.candidates, st)
		for _, rule := range st.Rules {
			r.need(rule)
		}
	}
	r.match = make(map[string]any, len(r.fields)+2)
	return r
}

// need records the field a rule reads.
func (r *router) need(rule streams.Rule) {
	field := rule.Field
	switch rule.Type {
	case streams.RuleAlways:
		return
	case streams.RuleMatchInput:
		field = streams.GL2SourceInput
	}
	switch field {
	case messages.FieldID:
		r.needID = true
	case messages.FieldTimestamp:
		r.needTS = true
	default:
		r.fields[field] = true
	}
}

// route sets m.Streams and appends to prefixes (reset first) the prefixes
// of the index sets the message is written to: one copy per distinct index
// set. With keep, the streams a pipeline put the message on before routing
// are kept, as is the default stream unless a matching stream removes it
// (the pipeline put it there, or took it away); else they are replaced.
func (r *router) route(m *messages.Message, prefixes []string, keep bool) []string {
	prefixes = prefixes[:0]
	if !keep {
		m.Streams = m.Streams[:0]
	}
	preset := len(m.Streams) > 0
	removeDefault := false
	filled := false
	for _, st := range r.candidates {
		if !filled {
			r.fill(m)
			filled = true
		}
		if !st.Matches(r.match) {
			continue
		}
		removeDefault = removeDefault || st.RemoveMatchesFromDefaultStream
		prefixes = r.addPrefix(prefixes, st.IndexSetID)
		if !slices.Contains(m.Streams, st.ID) {
			m.Streams = append(m.Streams, st.ID)
		}
	}
	switch {
	case !preset && !removeDefault:
		m.Streams = append(m.Streams, streams.DefaultStreamID)
	case preset && removeDefault:
		m.Streams = slices.DeleteFunc(m.Streams, func(id string) bool { return id == streams.DefaultStreamID })
	}
	for _, id := range m.Streams {
		if id == streams.DefaultStreamID {
			if r.defaultSet != "" {
				prefixes = r.addPrefix(prefixes, r.defaultSet)
			}
		} else if set, ok := r.sets[id]; ok && preset {
			prefixes = r.addPrefix(prefixes, set)
		}
	}
	if len(m.Streams) == 0 {
		m.Streams = nil
	}
	return prefixes
}

// fill puts the fields the rules read into the match map, as
// Message.MatchMap would hold them.
func (r *router) fill(m *messages.Message) {
	clear(r.match)
	for i := range m.Fields {
		if r.fields[m.Fields[i].Key] {
			r.match[m.Fields[i].Key] = m.Fields[i].Value
		}
	}
	if r.needID {
		r.match[messages.FieldID] = m.ID
	}
	if r.needTS {
		r.match[messages.FieldTimestamp] = m.Timestamp
	}
}

func (r *router) addPrefix(prefixes []string, indexSetID string) []string {
	p, seen := r.prefixes[indexSetID]
	if !seen {
		p.name, p.ok = r.prefixOf(indexSetID)
		r.prefixes[indexSetID] = p
	}
	if !p.ok || slices.Contains(prefixes, p.name) {
		return prefixes
	}
	return append(prefixes, p.name)
}
