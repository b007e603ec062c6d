package events

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /events/definitions, /events/notifications and
// /events/search.
type Handler struct {
	src    Source
	now    func() time.Time
	events *Searching
}

// Scheduled is a Source that knows the scheduling state of its
// definitions, for context.scheduler of the listing.
type Scheduled interface {
	SchedulerContext(ctx context.Context, ids []string) (map[string]any, error)
}

// NewHandler returns the events resources over src.
func NewHandler(src Source, now func() time.Time) *Handler {
	return &Handler{src: src, now: now}
}

const searchExample = `{"query":"","page":1,"per_page":10,"timerange":{"type":"relative","range":3600},` +
	`"filter":{"alerts":"only","event_definitions":[]},"sort_by":"timestamp","sort_direction":"desc"}`

// Routes returns the events routes. The listings need no permission of
// their own: each item is shown to those who may read it.
func (h *Handler) Routes() []api.Route {
	query := []string{"page", "per_page", "query"}
	return []api.Route{
		{Method: "GET", Path: "/events/definitions", Summary: "List event definitions (each needs eventdefinitions:read:<id>)",
			Query: query, Handler: h.list("event_definitions", "eventdefinitions:read:", h.src.Definitions, true)},
		{Method: "GET", Path: "/events/notifications", Summary: "List event notifications (each needs eventnotifications:read:<id>)",
			Query: query, Handler: h.list("notifications", "eventnotifications:read:", h.src.Notifications, false)},
		{Method: "POST", Path: "/events/search", Summary: "Search events", Body: searchExample, Handler: h.search},
	}
}

// searchable are the query fields of both listings; title is the default.
var searchable = []string{"id", "title", "description"}

// list serves a paginated listing, sorted by title, of the entities the
// caller may read (perm followed by the id) or owns. Definitions carry the
// scheduler's state of each in context.scheduler.
func (h *Handler) list(key, perm string, all func(context.Context) ([]Entity, error), scheduler bool) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		page, err := api.ParsePage(r, "title", "title")
		if err != nil {
			return err
		}
		q, err := api.ParseQuery(page.Query, "title", searchable...)
		if err != nil {
			return err
		}
		items, err := all(ctx)
		if err != nil {
			return err
		}
		grandTotal := len(items)
		p := auth.FromContext(ctx)
		visible := make([]Entity, 0, len(items))
		for _, e := range items {
			if p.Permits(perm+e.ID) || entity.Owns(p, e.Owner) {
				visible = append(visible, e)
			}
		}
		shown, total := api.PageOf(visible, page, q, field)
		docs := make([]json.RawMessage, len(shown))
		for i, e := range shown {
			docs[i] = e.Doc
		}
		l := api.Listing{Key: key, Items: docs, Count: len(docs), Total: total, GrandTotal: &grandTotal, Page: page}
		if scheduler {
			states := map[string]any{}
			if sc, ok := h.src.(Scheduled); ok {
				ids := make([]string, len(shown))
				for i, e := range shown {
					ids[i] = e.ID
				}
				if states, err = sc.SchedulerContext(ctx, ids); err != nil {
					return err
				}
			}
			l.Context = map[string]any{"scheduler": states}
		}
		api.WriteJSON(w, http.StatusOK, l.Body())
		return nil
	}
}

func field(e Entity, name string) string {
	switch name {
	case "id":
		return e.ID
	case "description":
		return e.Description
	}
	return e.Title
}
