package views

import (
	"encoding/json"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// sortable are Graylog's ViewDTO.SORT_FIELDS. Graylog falls back to title
// for any other field; loggate's one pagination answers 400 instead, as
// every listing of loggate does.
var sortable = []string{"id", "title", "created_at"}

// searchable are the query fields of Graylog's views listing; summary
// searches the description, as Graylog maps it.
var searchable = []string{"id", "title", "summary"}

// list serves a listing of the views of one type ("" for all) that the
// caller may read, in Graylog's generic paginated envelope under "views".
func (h *Handler) list(typ Type) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		page, err := api.ParsePage(r, "title", sortable...)
		if err != nil {
			return err
		}
		q, err := api.ParseQuery(page.Query, "title", searchable...)
		if err != nil {
			return err
		}
		all, err := h.views.summaries(ctx, typ)
		if err != nil {
			return err
		}
		grandTotal := len(all)
		p := auth.FromContext(ctx)
		visible := all[:0] // all is this request's own copy
		for _, s := range all {
			if canRead(p, s.ref()) {
				visible = append(visible, s)
			}
		}
		items, total := api.PageOf(visible, page, q, field)
		// The stored document is the ViewDTO: the page is written as
		// stored, without decoding the views' state.
		docs := make([]json.RawMessage, len(items))
		for i, s := range items {
			docs[i] = s.doc
		}
		api.WriteJSON(w, http.StatusOK, api.Listing{
			Key: "views", Items: docs, Count: len(docs), Total: total, GrandTotal: &grandTotal, Page: page,
		}.Body())
		return nil
	}
}

func field(s summary, name string) string {
	switch name {
	case "id":
		return s.id
	case "summary":
		return s.description
	case "created_at":
		return s.createdAt
	}
	return s.title
}
