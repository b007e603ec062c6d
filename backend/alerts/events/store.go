package events

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// Store is the part of the message store the event search reads.
type Store interface {
	Search(ctx context.Context, q messages.Query) (messages.Result, error)
}

// Searching is what the event search needs: the store, the index
// prefixes of the events and system events index sets, and the streams'
// names for the answer's context.
type Searching struct {
	Store    Store
	Prefixes func(ctx context.Context) ([]string, error)
	// Stream returns a stream's title and description.
	Stream func(id string) (title, description string, ok bool)
}

// SetSearch makes the event search read stored events.
func (h *Handler) SetSearch(s *Searching) *Handler {
	h.events = s
	return h
}

// maxScanned bounds the events one search reads to filter by permission.
const maxScanned = 10_000

// find runs the search of p for the caller in ctx.
func (h *Handler) find(ctx context.Context, p searchParameters) (searchResponse, error) {
	out := searchResponse{Events: []json.RawMessage{}, UsedIndices: []string{}, Parameters: p,
		Context: searchContext{EventDefinitions: map[string]any{}, Streams: map[string]any{}}}
	var spec *search.RangeSpec
	if err := json.Unmarshal(p.TimeRange, &spec); err != nil {
		return out, errInvalidRange(err)
	}
	r, err := spec.Resolve(h.now())
	if err != nil {
		return out, errInvalidRange(err)
	}
	q := []string{"_exists_:event_definition_id"}
	if s := strings.TrimSpace(p.Query); s != "" && s != "*" {
		q = append(q, "("+s+")")
	}
	switch *p.Filter.Alerts {
	case "only":
		q = append(q, "alert:true")
	case "exclude":
		q = append(q, "NOT alert:true")
	}
	if len(p.Filter.EventDefinitions) > 0 {
		ors := make([]string, len(p.Filter.EventDefinitions))
		for i, id := range p.Filter.EventDefinitions {
			ors[i] = "event_definition_id:" + quoted(id)
		}
		q = append(q, "("+strings.Join(ors, " OR ")+")")
	}
	node, err := query.Parse(strings.Join(q, " AND "), query.Options{})
	if err != nil {
		// Only the caller's query can fail to parse.
		return out, api.Errorf(api.Invalid, "%s", err.Error())
	}
	prefixes, err := h.events.Prefixes(ctx)
	if err != nil {
		return out, err
	}
	sort := messages.Sort{Asc: p.SortDirection == "asc"}
	if p.SortBy != "timestamp" {
		sort.Field = p.SortBy
	}
	res, err := h.events.Store.Search(ctx, messages.Query{Query: node, From: r.From, To: r.To, Prefixes: prefixes,
		Sort: sort, Limit: maxScanned, Window: maxScanned})
	if err != nil {
		return out, err
	}
	for _, ix := range res.Indices {
		out.UsedIndices = append(out.UsedIndices, ix.Name)
	}
	defs := map[string]Entity{}
	if all, err := h.src.Definitions(ctx); err == nil {
		for _, e := range all {
			defs[e.ID] = e
		}
	}
	pr := auth.FromContext(ctx)
	var visible []Event
	var indices []string
	for _, hit := range res.Hits {
		ev, err := FromMessage(hit.Message)
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(ev.SourceStreams, func(s string) bool { return !pr.Permits("streams:read:" + s) }) {
			visible = append(visible, ev)
			indices = append(indices, hit.Index)
		}
	}
	out.TotalEvents = int64(len(visible))
	// In int64 whatever int's size: page and per_page are at most 2³¹-1.
	start := int(min(int64(p.Page-1)*int64(p.PerPage), int64(len(visible))))
	end := min(start+p.PerPage, len(visible))
	for i := start; i < end; i++ {
		ev := visible[i]
		doc, err := json.Marshal(map[string]any{"event": ev, "index_name": indices[i], "index_type": "message"})
		if err != nil {
			return out, err
		}
		out.Events = append(out.Events, doc)
		if d, ok := defs[ev.EventDefinitionID]; ok {
			out.Context.EventDefinitions[d.ID] = map[string]string{"id": d.ID, "title": d.Title, "description": d.Description}
		}
		for _, s := range ev.SourceStreams {
			if title, desc, ok := h.events.Stream(s); ok {
				out.Context.Streams[s] = map[string]string{"id": s, "title": title, "description": desc}
			}
		}
	}
	return out, nil
}

// quoted quotes a value for the query language.
func quoted(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
