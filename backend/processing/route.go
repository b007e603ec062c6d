package processing

import (
	"slices"

	"github.com/loggate/loggate/backend/messages"
	"github.com/loggate/loggate/backend/streams"
)

// route assigns a message its streams, as Graylog's StreamRouter does: every
// enabled stream whose rules match, and the default stream unless one of
// those removes its matches from it. It returns the prefixes of the index
// sets the message is written to: one copy per distinct index set.
//
// The built-in event streams never match by rules; streams without rules
// never match (Graylog: a stream needs at least one rule).
func route(m *messages.Message, all []*streams.Stream, prefixOf func(indexSetID string) (string, bool), prefixes []string) []string {
	m.Streams = m.Streams[:0]
	removeDefault := false
	var fields map[string]any
	for _, st := range all {
		if st.Disabled || len(st.Rules) == 0 || streams.IsBuiltin(st.ID) {
			continue
		}
		if fields == nil {
			// Built once and only when a stream has rules to run: the map
			// costs as much as the rest of processing.
			fields = m.MatchMap()
		}
		if !st.Matches(fields) {
			continue
		}
		m.Streams = append(m.Streams, st.ID)
		removeDefault = removeDefault || st.RemoveMatchesFromDefaultStream
		prefixes = addPrefix(prefixes, st.IndexSetID, prefixOf)
	}
	if !removeDefault {
		m.Streams = append(m.Streams, streams.DefaultStreamID)
		for _, st := range all {
			if st.ID == streams.DefaultStreamID {
				prefixes = addPrefix(prefixes, st.IndexSetID, prefixOf)
				break
			}
		}
	}
	if len(m.Streams) == 0 {
		m.Streams = nil
	}
	return prefixes
}

func addPrefix(prefixes []string, indexSetID string, prefixOf func(string) (string, bool)) []string {
	p, ok := prefixOf(indexSetID)
	if !ok || slices.Contains(prefixes, p) {
		return prefixes
	}
	return append(prefixes, p)
}
