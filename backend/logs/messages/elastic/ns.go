package elastic

import (
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
)

// The store works with physical names, the namespace included, and
// converts at its API: prefixes and index names coming in get the
// namespace, index names going out lose it.

// phys returns the physical name of a prefix or index.
func (s *Store) phys(name string) string { return s.ns + name }

func (s *Store) physAll(prefixes []string) []string {
	out := make([]string, len(prefixes))
	for i, p := range prefixes {
		out[i] = s.ns + p
	}
	return out
}

// logical returns the name without the namespace.
func (s *Store) logical(name string) string { return strings.TrimPrefix(name, s.ns) }

// logicalIndices strips the namespace from a listing, in place.
func (s *Store) logicalIndices(list []messages.Index) []messages.Index {
	if s.ns == "" {
		return list
	}
	for i := range list {
		list[i].Name = s.logical(list[i].Name)
		list[i].Prefix = s.logical(list[i].Prefix)
	}
	return list
}

func (s *Store) logicalHits(hits []messages.Hit) []messages.Hit {
	if s.ns == "" {
		return hits
	}
	for i := range hits {
		hits[i].Index = s.logical(hits[i].Index)
	}
	return hits
}

// Namespace returns Options.Namespace.
func (s *Store) Namespace() string { return s.ns }
