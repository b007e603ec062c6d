// Package decorators keeps Graylog's search result decorators in the
// document store, serves /search/decorators and applies them: Graylog
// 4.0's five decorator types (syslog severity mapper, format string,
// hyperlink, lookup table, pipeline processor) decorate the messages of
// search answers, never the stored messages.
package decorators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/loggate/loggate/auth"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

const collection = "decorators"

// Decorator is Graylog's Decorator: a type, its configuration, the stream
// whose results it decorates (nil: searches over all messages) and its
// position among the stream's decorators.
type Decorator struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
	Stream *string        `json:"stream"`
	Order  int            `json:"order"`
}

// Service stores decorators and builds them for searches.
type Service struct {
	st      store.Store
	lookups Lookups
	pipes   Pipelines
	log     *slog.Logger
}

// NewService returns the decorators kept in st.
func NewService(st store.Store) *Service { return &Service{st: st} }

// All returns every decorator, ordered by stream and position.
func (s *Service) All(ctx context.Context) ([]Decorator, error) {
	out, err := store.All(ctx, s.st, collection, decode)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Decorator) int {
		if c := strings.Compare(deref(a.Stream), deref(b.Stream)); c != 0 {
			return c
		}
		return a.Order - b.Order
	})
	if out == nil {
		out = []Decorator{}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func decode(doc []byte) (Decorator, error) {
	var d Decorator
	if err := json.Unmarshal(doc, &d); err != nil {
		return Decorator{}, fmt.Errorf("stored decorator is unreadable: %w", err)
	}
	return d, nil
}

func check(d *Decorator) error {
	if strings.TrimSpace(d.Type) == "" {
		return api.Invalidf("type", "must not be empty")
	}
	if d.Config == nil {
		d.Config = map[string]any{}
	}
	return nil
}

// Create stores a new decorator under a new id.
func (s *Service) Create(ctx context.Context, d Decorator) (Decorator, error) {
	if err := check(&d); err != nil {
		return Decorator{}, err
	}
	d.ID = primitive.NewObjectID().Hex()
	doc, err := json.Marshal(d)
	if err != nil {
		return Decorator{}, err
	}
	return d, s.st.Insert(ctx, collection, d.ID, doc)
}

// Update replaces a decorator.
func (s *Service) Update(ctx context.Context, id string, d Decorator) (Decorator, error) {
	if err := check(&d); err != nil {
		return Decorator{}, err
	}
	d.ID = id
	err := s.st.Update(ctx, collection, id, func([]byte) ([]byte, error) { return json.Marshal(d) })
	return d, notFound(err, id)
}

// Get returns a decorator.
func (s *Service) Get(ctx context.Context, id string) (Decorator, error) {
	doc, err := s.st.Get(ctx, collection, id)
	if err != nil {
		return Decorator{}, notFound(err, id)
	}
	return decode(doc)
}

// Delete removes a decorator.
func (s *Service) Delete(ctx context.Context, id string) error {
	return notFound(s.st.Delete(ctx, collection, id), id)
}

func notFound(err error, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return api.Wrap(api.NotFound, fmt.Sprintf("Decorator with id %s not found.", id), err)
	}
	return err
}

// Handler serves /search/decorators.
type Handler struct{ s *Service }

// NewHandler returns the resource of s.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

const body = `{"type":"org.graylog2.decorators.FormatStringDecorator","config":{"format_string":"${source}: ${message}","target_field":"summary","require_all_fields":false},"stream":null,"order":0}`

// Routes returns the routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/search/decorators", Summary: "Returns all configured message decorations",
			Permission: "decorators:read", Handler: api.JSON(h.list)},
		{Method: "GET", Path: "/search/decorators/available", Summary: "Returns all available message decorations",
			Permission: "decorators:read", Handler: api.JSON(h.available)},
		{Method: "POST", Path: "/search/decorators", Summary: "Creates a message decoration configuration",
			Permission: "decorators:create", Body: body, Handler: api.JSON(h.create)},
		{Method: "PUT", Path: "/search/decorators/{decoratorId}", Summary: "Update a decorator",
			Permission: "decorators:create", Body: body, Handler: api.JSON(h.update)},
		{Method: "DELETE", Path: "/search/decorators/{decoratorId}", Summary: "Delete a decorator",
			Permission: "decorators:edit", Handler: h.delete},
	}
}

func (h *Handler) list(r *http.Request) (any, error) {
	all, err := h.s.All(r.Context())
	if err != nil {
		return nil, err
	}
	return all, nil
}

func (h *Handler) available(_ *http.Request) (any, error) {
	return h.s.Available(), nil
}

func (h *Handler) create(r *http.Request) (any, error) {
	var d Decorator
	if err := api.Decode(r, &d, false); err != nil {
		return nil, err
	}
	if err := editsStream(r, d); err != nil {
		return nil, err
	}
	d, err := h.s.Create(r.Context(), d)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (h *Handler) update(r *http.Request) (any, error) {
	var d Decorator
	if err := api.Decode(r, &d, false); err != nil {
		return nil, err
	}
	if err := h.editsStored(r); err != nil {
		return nil, err
	}
	if err := editsStream(r, d); err != nil {
		return nil, err
	}
	d, err := h.s.Update(r.Context(), api.Var(r, "decoratorId"), d)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.editsStored(r); err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), api.Var(r, "decoratorId")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

// editsStream checks, for a decorator of a stream, that the caller may edit
// that stream, as Graylog's DecoratorResource does.
func editsStream(r *http.Request, d Decorator) error {
	if d.Stream == nil || *d.Stream == "" {
		return nil
	}
	return auth.Require(r.Context(), "streams:edit:"+*d.Stream)
}

// editsStored is editsStream for the stored decorator a request names.
func (h *Handler) editsStored(r *http.Request) error {
	d, err := h.s.Get(r.Context(), api.Var(r, "decoratorId"))
	if err != nil {
		return err
	}
	return editsStream(r, d)
}
