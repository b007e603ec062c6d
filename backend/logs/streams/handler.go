package streams

import (
	"context"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /streams, /streams/{streamid}/rules and
// /streams/{streamid}/outputs.
type Handler struct {
	svc *Service
}

// NewHandler returns the /streams resources.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Request body examples for the API browser.
const (
	createBody = `{"title":"Errors","description":"Messages of level 3 and below","matching_type":"AND","remove_matches_from_default_stream":false,"index_set_id":"5fc3a1e2b1f1a4a1c3e7d9f0","rules":[{"type":4,"field":"level","value":"4","inverted":false,"description":"error or worse"}]}`
	updateBody = `{"title":"Errors","description":"Messages of level 3 and below","matching_type":"OR","remove_matches_from_default_stream":true,"index_set_id":"5fc3a1e2b1f1a4a1c3e7d9f0"}`
	cloneBody  = `{"title":"Errors (copy)","description":"A copy","remove_matches_from_default_stream":false,"index_set_id":"5fc3a1e2b1f1a4a1c3e7d9f0"}`
	matchBody  = `{"message":{"source":"web-1","level":3,"message":"disk full"}}`
	ruleBody   = `{"type":2,"field":"message","value":"^ERROR","inverted":false,"description":"errors"}`
	outputBody = `{"outputs":["5fc3a1e2b1f1a4a1c3e7d9f1"]}`
)

// Routes returns the routes. Literal paths (/streams/paginated,
// /streams/enabled, …/rules/types) come before the templates that would
// take them for an id: gorilla/mux matches in registration order.
func (h *Handler) Routes() []api.Route {
	routes := h.routes()
	for i := range routes {
		routes[i].Handler = h.fresh(routes[i].Handler)
	}
	return routes
}

// fresh makes a handler see the other nodes' stream changes first.
func (h *Handler) fresh(next api.HandlerFunc) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := h.svc.Refresh(r.Context()); err != nil {
			return err
		}
		return next(w, r)
	}
}

func (h *Handler) routes() []api.Route {
	const (
		one   = "/streams/{streamId}"
		rules = "/streams/{streamid}/rules"
		outs  = "/streams/{streamid}/outputs"
	)
	return []api.Route{
		{Method: "GET", Path: "/streams", Summary: "Get a list of all streams (deprecated: use /streams/paginated)", Permission: "streams:read:{streamId}", Successor: "/streams/paginated", Handler: h.list},
		{Method: "GET", Path: "/streams/paginated", Summary: "Get a paginated list of streams", Permission: "streams:read:{streamId}", Query: api.PageQuery, Handler: h.paginated},
		{Method: "GET", Path: "/streams/enabled", Summary: "Get a list of all enabled streams", Permission: "streams:read:{streamId}", Handler: h.enabled},
		{Method: "POST", Path: "/streams", Summary: "Create a stream", Permission: "streams:create", Body: createBody, Handler: h.create},
		{Method: "GET", Path: one, Summary: "Get a single stream", Permission: "streams:read:{streamId}", Handler: h.get},
		{Method: "PUT", Path: one, Summary: "Update a stream", Permission: "streams:edit:{streamId}", Body: updateBody, Handler: h.update},
		{Method: "DELETE", Path: one, Summary: "Delete a stream", Permission: "streams:edit:{streamId}", Handler: h.delete},
		{Method: "POST", Path: one + "/pause", Summary: "Pause a stream", Permission: "streams:changestate:{streamId}", Handler: h.pause},
		{Method: "POST", Path: one + "/resume", Summary: "Resume a stream", Permission: "streams:changestate:{streamId}", Handler: h.resume},
		{Method: "POST", Path: one + "/testMatch", Summary: "Test matching of a stream against a supplied message", Permission: "streams:read:{streamId}", Body: matchBody, Handler: api.JSON(h.testMatch)},
		// streams:read:{streamId} is checked too, by the handler.
		{Method: "POST", Path: one + "/clone", Summary: "Clone a stream", Permission: "streams:create", Body: cloneBody, Handler: h.clone},

		{Method: "GET", Path: rules + "/types", Summary: "Get all available stream types", Handler: api.JSON(h.ruleTypes)},
		{Method: "GET", Path: rules, Summary: "Get a list of all stream rules", Permission: "streams:read:{streamid}", Handler: api.JSON(h.listRules)},
		{Method: "POST", Path: rules, Summary: "Create a stream rule", Permission: "streams:edit:{streamid}", Body: ruleBody, Handler: h.createRule},
		{Method: "GET", Path: rules + "/{streamRuleId}", Summary: "Get a single stream rules", Permission: "streams:read:{streamid}", Handler: api.JSON(h.getRule)},
		{Method: "PUT", Path: rules + "/{streamRuleId}", Summary: "Update a stream rule", Permission: "streams:edit:{streamid}", Body: ruleBody, Handler: api.JSON(h.updateRule)},
		{Method: "POST", Path: rules + "/{streamRuleId}", Summary: "Update a stream rule (deprecated: use PUT)", Permission: "streams:edit:{streamid}", Successor: rules + "/{streamRuleId}", Body: ruleBody, Handler: h.updateRuleDeprecated},
		{Method: "DELETE", Path: rules + "/{streamRuleId}", Summary: "Delete a stream rule", Permission: "streams:edit:{streamid}", Handler: h.deleteRule},

		// stream_outputs:read is checked too, by the handler.
		{Method: "GET", Path: outs, Summary: "Get a list of all outputs for a stream", Permission: "streams:read:{streamid}", Handler: api.JSON(h.listOutputs)},
		// stream_outputs:create is checked too, by the handler.
		{Method: "POST", Path: outs, Summary: "Associate outputs with a stream", Permission: "streams:edit:{streamid}", Body: outputBody, Handler: h.addOutputs},
		// stream_outputs:read:{outputId} is checked too, by the handler.
		{Method: "GET", Path: outs + "/{outputId}", Summary: "Get specific output of a stream", Permission: "streams:read:{streamid}", Handler: api.JSON(h.getOutput)},
		// stream_outputs:delete:{outputId} is checked too, by the handler.
		{Method: "DELETE", Path: outs + "/{outputId}", Summary: "Delete output of a stream", Permission: "streams:edit:{streamid}", Handler: h.deleteOutput},
	}
}

// creator returns the username that new streams record as their creator.
func creator(ctx context.Context) (string, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return "", auth.Unauthenticated()
	}
	return p.Username, nil
}

// stream returns the stream with id once the caller may perform action
// ("read", "edit") on it: 403 before 404, so that a caller cannot learn
// which streams exist.
func (h *Handler) stream(ctx context.Context, id, action string) (*Stream, error) {
	if err := auth.Require(ctx, "streams:"+action+":"+id); err != nil {
		return nil, err
	}
	return h.svc.Get(id)
}

// decodeAs reads a request that creates something in the caller's name:
// the caller's username (Graylog's creator_user_id) and the body, read
// strictly as Graylog's request models are.
func decodeAs[T any](r *http.Request) (user string, req T, err error) {
	if user, err = creator(r.Context()); err != nil {
		return "", req, err
	}
	err = api.Decode(r, &req, true)
	return user, req, err
}

// notBuiltin refuses a change of a built-in stream with Graylog's message
// for it.
func notBuiltin(id, msg string) error {
	if norm, ok := normalID(id); ok && IsBuiltin(norm) {
		return api.Errorf(api.Invalid, "%s", msg)
	}
	return nil
}

// created answers 201 with a Location and a body such as {"stream_id":…}.
func created(w http.ResponseWriter, r *http.Request, path, key, id string) {
	w.Header().Set("Location", api.Location(r, path))
	api.WriteJSON(w, http.StatusCreated, map[string]string{key: id})
}
