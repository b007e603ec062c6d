package processing

import (
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
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
	matchMap       map[string]any

	prefixOf func(indexSetID string) (string, bool)
	prefixes map[string]prefix // by index set id, resolved once per batch
	lastSet  string            // the index set last looked up, and its prefix
	last     prefix
	// setOf is the index set of every stream, for the streams a message
	// was routed to before stream matching (by a pipeline).
	setOf map[string]string
}

type prefix struct {
	name string
	ok   bool
}

func newRouter(all []*streams.Stream, prefixOf func(indexSetID string) (string, bool)) *router {
	r := &router{prefixOf: prefixOf, prefixes: map[string]prefix{}, fields: map[string]bool{}, setOf: make(map[string]string, len(all))}
	for _, st := range all {
		// Ids in lower case, as index sets are keyed: a stream stored
		// before they were kept so may name one in upper case.
		set := strings.ToLower(st.IndexSetID)
		if st.ID == streams.DefaultStreamID {
			r.defaultSet = set
		}
		if !st.Disabled {
			r.setOf[st.ID] = set
		}
		if st.Disabled || len(st.Rules) == 0 || streams.IsBuiltin(st.ID) {
			continue
		}
		r.candidates = append(r.candidates, st)
		for _, rule := range st.Rules {
			r.need(rule)
		}
	}
	r.matchMap = make(map[string]any, len(r.fields)+2)
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

// route routes a message fresh from the journal, as if it were the only
// processor: start, match and prefixesOf.
func (r *router) route(m *messages.Message, prefixes []string) []string {
	start(m)
	r.match(m)
	return r.prefixesOf(m, prefixes)
}

// start puts a message on the default stream, where Graylog puts every
// message before the message processors run.
func start(m *messages.Message) {
	m.Streams = append(m.Streams[:0], streams.DefaultStreamID)
}

// match is Graylog's StreamMatcher filter: it adds the streams whose rules
// match to those the message is on, and takes it off the default stream if
// one of them removes its matches from it. The default stream, when kept,
// comes last.
func (r *router) match(m *messages.Message) {
	onDefault := false
	kept := m.Streams[:0]
	for _, id := range m.Streams {
		if id == streams.DefaultStreamID {
			onDefault = true
			continue
		}
		kept = append(kept, id)
	}
	m.Streams = kept
	removeDefault := false
	filled := false
	for _, st := range r.candidates {
		if !filled {
			r.fill(m)
			filled = true
		}
		if !st.Matches(r.matchMap) {
			continue
		}
		if !slices.Contains(m.Streams, st.ID) {
			m.Streams = append(m.Streams, st.ID)
		}
		removeDefault = removeDefault || st.RemoveMatchesFromDefaultStream
	}
	if onDefault && !removeDefault {
		m.Streams = append(m.Streams, streams.DefaultStreamID)
	}
	if len(m.Streams) == 0 {
		m.Streams = nil
	}
}

// prefixesOf appends to prefixes (reset first) the prefixes of the index
// sets of the message's streams: one copy per distinct index set.
func (r *router) prefixesOf(m *messages.Message, prefixes []string) []string {
	prefixes = prefixes[:0]
	for _, id := range m.Streams {
		var set string
		var ok bool
		if id == streams.DefaultStreamID {
			set, ok = r.defaultSet, r.defaultSet != ""
		} else {
			set, ok = r.setOf[id]
		}
		if ok {
			prefixes = r.addPrefix(prefixes, set)
		}
	}
	return prefixes
}

// fill puts the fields the rules read into the match map, as
// Message.MatchMap would hold them.
func (r *router) fill(m *messages.Message) {
	clear(r.matchMap)
	for i := range m.Fields {
		if r.fields[m.Fields[i].Key] {
			r.matchMap[m.Fields[i].Key] = m.Fields[i].Value
		}
	}
	if r.needID {
		r.matchMap[messages.FieldID] = m.ID
	}
	if r.needTS {
		r.matchMap[messages.FieldTimestamp] = m.Timestamp
	}
}

func (r *router) addPrefix(prefixes []string, indexSetID string) []string {
	p, seen := r.last, r.lastSet == indexSetID && r.lastSet != ""
	if !seen {
		p, seen = r.prefixes[indexSetID]
	}
	if !seen {
		p.name, p.ok = r.prefixOf(indexSetID)
		r.prefixes[indexSetID] = p
	}
	// Most messages of a batch go to the index set the one before went to.
	r.lastSet, r.last = indexSetID, p
	if !p.ok || slices.Contains(prefixes, p.name) {
		return prefixes
	}
	return append(prefixes, p.name)
}
