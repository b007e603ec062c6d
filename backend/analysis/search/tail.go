package search

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// Live tail: the web interface follows new matching messages by asking
// again and again for those received after the last one it has. The cursor
// is that message's gl2_message_id, a ULID its input gave it on receipt,
// so messages come in the order they arrived whatever timestamp their
// sender wrote. A cursor rather than a held connection keeps every call
// short and bounded (one page of at most TailMaxLimit messages), needs no
// state on the server, and ends by itself when the client stops asking.
const (
	// TailDefaultLimit and TailMaxLimit bound one answer of the tail.
	TailDefaultLimit = 100
	TailMaxLimit     = 500
	// tailLookback is how far before its receipt a message's own
	// timestamp may lie and the tail still find it: it bounds the
	// indices each call reads to the recent ones.
	tailLookback = time.Hour
	// tailLag starts a tail that has nothing yet a little in the past, so
	// that a message received just before the first call but still on
	// its way through the journal is not missed.
	tailLag = 5 * time.Second
)

var tailQuery = []string{"query", "filter", "after", "limit"}

// tailAnswer is the answer of GET /search/tail.
type tailAnswer struct {
	Query    string          `json:"query"`
	Messages []ResultMessage `json:"messages"`
	// Cursor is what the next call passes as after.
	Cursor string `json:"cursor"`
}

// tail serves GET /search/tail: without after, the newest messages of the
// last hour (oldest first) and the cursor after them; with after, the
// messages received after that cursor, oldest first.
func (h *Handler) tail(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	raw := strings.TrimSpace(q.Get("query"))
	if raw == "" {
		raw = "*"
	}
	// Parsed alone first, so that a syntax error names its position in
	// what the user typed, not in the query the cursor is added to.
	node, err := query.Parse(raw, query.Options{AllowLeadingWildcard: h.svc.opts.AllowLeadingWildcard})
	if err != nil {
		return parseError(err)
	}
	streams, err := streamFilter(r, "relative", q.Get("filter"))
	if err != nil {
		return err
	}
	limit, err := api.IntParam(q, "limit", TailDefaultLimit, 1, TailMaxLimit)
	if err != nil {
		return err
	}
	now := h.svc.Now()
	req := Request{Query: raw, Streams: streams, Limit: limit}
	after := strings.TrimSpace(q.Get("after"))
	if after == "" {
		req.Range = TimeRange{From: now.Add(-tailLookback)}
		req.Sort = messages.Sort{Field: messages.FieldMessageID}
	} else {
		id, err := ulid.ParseStrict(after)
		if err != nil {
			return api.Errorf(api.Invalid, "Invalid parameter `after`: %q is not a cursor of the tail (a gl2_message_id)", after)
		}
		req.Query = afterQuery(raw, node, id)
		req.Range = TimeRange{From: ulid.Time(id.Time()).UTC().Add(-tailLookback)}
		req.Sort = messages.Sort{Field: messages.FieldMessageID, Asc: true}
	}
	w, ctx, done, err := h.admitWriting(r.Context(), w)
	if err != nil {
		return err
	}
	defer done()
	resp, err := h.svc.Search(ctx, req)
	if err != nil {
		return err
	}
	hits := resp.Result.Hits
	if after == "" {
		slices.Reverse(hits)
	}
	out := tailAnswer{Query: raw, Messages: make([]ResultMessage, 0, len(hits)), Cursor: after}
	for _, hit := range hits {
		out.Messages = append(out.Messages, ResultMessage{Message: hit.Message.Map(), Index: hit.Index})
		if id, ok := hit.Message.String(messages.FieldMessageID); ok && id > out.Cursor {
			out.Cursor = id
		}
	}
	if out.Cursor == "" {
		// The lowest id of that millisecond: every later message is after it.
		var start ulid.ULID
		_ = start.SetTime(ulid.Timestamp(now.Add(-tailLag)))
		out.Cursor = start.String()
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

// afterQuery is the user's query restricted to messages received after id.
func afterQuery(raw string, node query.Node, id ulid.ULID) string {
	after := messages.FieldMessageID + ":>" + id.String()
	if _, all := node.(*query.MatchAll); all {
		return after
	}
	return "(" + raw + ") AND " + after
}
