// Package systemmessages keeps Graylog's system messages (/system/messages):
// the cluster's notable events — a node started, an input started, stopped or
// failed, an index rotated or retired — newest first, for the overview page.
// They live in the document store, shared by the nodes of a cluster, and the
// oldest are dropped past a fixed number, as Graylog's capped collection does.
package systemmessages

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/store"
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
	st   store.Store
	node string
	now  func() time.Time
	keep int

	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
	written int
}

// NewService returns the system messages of the cluster whose documents st
// holds; node is this node's id. keep is how many are kept (≤ 0: 2,000).
func NewService(st store.Store, node string, now func() time.Time, keep int) *Service {
	if keep <= 0 {
		keep = 2000
	}
	return &Service{st: st, node: node, now: now, keep: keep, entropy: ulid.Monotonic(rand.Reader, 0)}
}

// Record stores a message from caller (the part of loggate that speaks, in
// Graylog's dotted class-name style).
func (s *Service) Record(ctx context.Context, caller, format string, args ...any) error {
	now := s.now().UTC()
	s.mu.Lock()
	id, err := ulid.New(ulid.Timestamp(now), s.entropy)
	s.written++
	trim := s.written%50 == 1
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("system message id: %w", err)
	}
	doc, err := json.Marshal(Message{Caller: caller, Content: fmt.Sprintf(format, args...),
		Timestamp: api.Time{Time: now}, NodeID: s.node})
	if err != nil {
		return err
	}
	if err := s.st.Insert(ctx, Collection, id.String(), doc); err != nil {
		return fmt.Errorf("record system message: %w", err)
	}
	// Trimmed now and then, not on every write: a little over keep is fine.
	if trim {
		return s.trim(ctx)
	}
	return nil
}

// trim drops the oldest messages beyond keep.
func (s *Service) trim(ctx context.Context) error {
	n, err := s.st.Count(ctx, Collection)
	if err != nil || n <= s.keep {
		return err
	}
	var old []string
	err = s.st.List(ctx, Collection, func(id string, _ []byte) error {
		if len(old) == n-s.keep {
			return errStop
		}
		old = append(old, id)
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	for _, id := range old {
		if err := s.st.Delete(ctx, Collection, id); err != nil {
			return fmt.Errorf("drop old system message: %w", err)
		}
	}
	return nil
}

var errStop = fmt.Errorf("stop")

// Page returns page (1-based) of the messages, newest first, and how many
// there are.
func (s *Service) Page(ctx context.Context, page int) ([]Message, int, error) {
	var all []Message
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		var m Message
		if err := json.Unmarshal(doc, &m); err != nil {
			return fmt.Errorf("stored system message: %w", err)
		}
		all = append(all, m)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(all)
	page = max(page, 1)
	if page-1 > len(all)/PerPage { // compared before multiplying: no overflow
		return nil, len(all), nil
	}
	from := min(PerPage*(page-1), len(all))
	return all[from:min(from+PerPage, len(all))], len(all), nil
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
	page := 1
	if v := r.URL.Query().Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return api.Errorf(api.Invalid, "Invalid page %q; it must be a whole number from 1 to %d", v, math.MaxInt)
		}
		page = n
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
