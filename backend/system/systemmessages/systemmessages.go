// Package systemmessages keeps Graylog's system messages (/system/messages):
// the cluster's notable events — a node started, an input started, stopped or
// failed, an index rotated or retired — newest first, for the overview page.
// They live in the document store, shared by the nodes of a cluster, and the
// oldest are dropped past a fixed number, as Graylog's capped collection does.
package systemmessages

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/capped"
	"github.com/loggate/loggate/router/api"
)

// Collection holds the messages under time-ordered ids.
const Collection = "system_messages"

// PerPage is Graylog's page size of /system/messages.
const PerPage = 30

// Message is Graylog's SystemMessage.
type Message struct {
	Caller    string   `json:"caller"`
	Content   string   `json:"content"`
	Timestamp api.Time `json:"timestamp"`
	NodeID    string   `json:"node_id"`
}

// Service records and lists system messages.
type Service struct {
	c    *capped.Collection
	node string
	now  func() time.Time
}

// NewService returns the system messages of the cluster whose documents st
// holds; node is this node's id. keep is how many are kept (≤ 0: 2,000).
func NewService(st store.Store, node string, now func() time.Time, keep int) *Service {
	if keep <= 0 {
		keep = 2000
	}
	return &Service{c: capped.New(st, Collection, keep, now), node: node, now: now}
}

// Record stores a message from caller (the part of loggate that speaks, in
// Graylog's dotted class-name style).
func (s *Service) Record(ctx context.Context, caller, format string, args ...any) error {
	doc, err := api.Marshal(Message{Caller: caller, Content: fmt.Sprintf(format, args...),
		Timestamp: api.Time{Time: s.now().UTC()}, NodeID: s.node})
	if err != nil {
		return err
	}
	return s.c.Add(ctx, doc)
}

// Page returns page (1-based) of the messages, newest first, and how many
// there are.
func (s *Service) Page(ctx context.Context, page int) ([]Message, int, error) {
	page = max(page, 1)
	offset := PerPage * (page - 1)
	if page-1 > math.MaxInt/PerPage { // past any collection: no overflow
		offset = math.MaxInt
	}
	docs, total, err := s.c.Newest(ctx, offset, PerPage)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Message, len(docs))
	for i, d := range docs {
		if err := json.Unmarshal(d, &out[i]); err != nil {
			return nil, 0, fmt.Errorf("stored system message: %w", err)
		}
	}
	return out, total, nil
}

// Handler serves /system/messages.
type Handler struct{ s *Service }

// NewHandler returns the /system/messages resource.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

// Routes returns the system message routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/messages", Summary: "Get internal Graylog system messages",
			Permission: "systemmessages:read", Query: []string{"page"}, Handler: h.list},
	}
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	page, err := api.IntParam(r.URL.Query(), "page", 1, 1, math.MaxInt32)
	if err != nil {
		return err
	}
	msgs, total, err := h.s.Page(r.Context(), page)
	if err != nil {
		return err
	}
	if msgs == nil {
		msgs = []Message{}
	}
	api.WriteJSON(w, http.StatusOK, struct {
		Messages []Message `json:"messages"`
		Total    int       `json:"total"`
	}{msgs, total})
	return nil
}
