package definitions

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/router/api"
)

// Executor runs a definition over a time range now (/execute).
type Executor interface {
	Run(ctx context.Context, d Definition, from, to api.Time) error
}

// Handler serves /events/definitions except its listing, which the events
// package serves with the notifications' listing.
type Handler struct {
	s      *Service
	exec   Executor
	owners entity.Owners
}

// NewHandler returns the definitions resources; owners records who
// created each definition, who may then do anything with it.
func NewHandler(s *Service, exec Executor, owners entity.Owners) *Handler {
	return &Handler{s: s, exec: exec, owners: owners}
}

// require checks the caller's permission perm on the definition id, which
// its owner has without it.
func (h *Handler) require(r *http.Request, verb, id string) error {
	return h.owners.Require(r.Context(), "eventdefinitions:"+verb+":"+id, entity.TypeDefinition, id)
}

// Example is a definition as the API browser shows it.
const Example = `{"title":"Many errors","description":"","priority":2,"alert":true,` +
	`"config":{"type":"aggregation-v1","query":"level:error","query_parameters":[],"streams":[],"group_by":[],` +
	`"series":[{"id":"count-id","function":"count","field":null}],` +
	`"conditions":{"expression":{"expr":">","left":{"expr":"number-ref","ref":"count-id"},"right":{"expr":"number","value":10}}},` +
	`"search_within_ms":60000,"execute_every_ms":60000},"field_spec":{},"key_spec":[],` +
	`"notification_settings":{"grace_period_ms":0,"backlog_size":0},"notifications":[]}`

// Routes returns the definitions routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/events/definitions", Summary: "Create new event definition", Permission: "eventdefinitions:create",
			Query: []string{"schedule"}, Body: Example, Handler: h.create},
		{Method: "POST", Path: "/events/definitions/validate", Summary: "Validate an event definition", Permission: "eventdefinitions:create",
			Body: Example, Handler: h.validate},
		{Method: "GET", Path: "/events/definitions/{definitionId}", Summary: "Get an event definition",
			Permission: "eventdefinitions:read:{definitionId}", Handler: h.get},
		{Method: "GET", Path: "/events/definitions/{definitionId}/with-context", Summary: "Get an event definition with its context",
			Permission: "eventdefinitions:read:{definitionId}", Handler: h.withContext},
		{Method: "PUT", Path: "/events/definitions/{definitionId}", Summary: "Update existing event definition",
			Permission: "eventdefinitions:edit:{definitionId}", Query: []string{"schedule"}, Body: Example, Handler: h.update},
		{Method: "DELETE", Path: "/events/definitions/{definitionId}", Summary: "Delete event definition",
			Permission: "eventdefinitions:delete:{definitionId}", Handler: h.delete},
		{Method: "PUT", Path: "/events/definitions/{definitionId}/schedule", Summary: "Enable event definition",
			Permission: "eventdefinitions:edit:{definitionId}", Handler: h.schedule(true)},
		{Method: "PUT", Path: "/events/definitions/{definitionId}/unschedule", Summary: "Disable event definition",
			Permission: "eventdefinitions:edit:{definitionId}", Handler: h.schedule(false)},
		{Method: "POST", Path: "/events/definitions/{definitionId}/execute", Summary: "Execute event definition",
			Permission: "eventdefinitions:execute:{definitionId}",
			Body:       `{"type":"aggregation-v1","timerange":{"type":"absolute","from":"2020-12-01T10:00:00.000Z","to":"2020-12-01T11:00:00.000Z"},"streams":[],"batch_size":500}`,
			Handler:    h.execute},
		{Method: "GET", Path: "/events/entity_types", Summary: "List all available entity types", Handler: h.entityTypes},
	}
}

func scheduleParam(r *http.Request) (bool, error) {
	v := r.URL.Query().Get("schedule")
	if v == "" {
		return true, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, api.Errorf(api.Invalid, "Invalid schedule %q; use true or false", v)
	}
	return b, nil
}

// read parses and validates a body; a failed validation is a 400 whose
// body is the validation result.
func (h *Handler) read(r *http.Request) (d Definition, err error) {
	body, err := api.ReadBody(r)
	if err != nil {
		return d, err
	}
	if d, err = ParseDefinition(body, h.s.NewID); err != nil {
		return d, err
	}
	if v := d.Validate(); v.Failed {
		return d, invalid(v)
	}
	for _, perm := range d.Config.RequiredPermissions() {
		if err := auth.Require(r.Context(), perm); err != nil {
			return d, err
		}
	}
	return d, nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	schedule, err := scheduleParam(r)
	if err != nil {
		return err
	}
	d, err := h.read(r)
	if err != nil {
		return err
	}
	d.ID = ""
	if d, err = h.s.Save(r.Context(), d, schedule); err != nil {
		return err
	}
	if err := h.owners.Own(r.Context(), entity.TypeDefinition, d.ID); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d)
	return nil
}

func (h *Handler) validate(w http.ResponseWriter, r *http.Request) error {
	body, err := api.ReadBody(r)
	if err != nil {
		return err
	}
	d, err := ParseDefinition(body, h.s.NewID)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d.Config.Validate())
	return nil
}

// readable returns the definition of the path if the caller may read it.
func (h *Handler) readable(r *http.Request) (Definition, error) {
	id := api.Var(r, "definitionId")
	if err := h.require(r, "read", id); err != nil {
		return Definition{}, err
	}
	return h.s.Get(r.Context(), id)
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	d, err := h.readable(r)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d)
	return nil
}

func (h *Handler) withContext(w http.ResponseWriter, r *http.Request) error {
	d, err := h.readable(r)
	if err != nil {
		return err
	}
	sc, err := h.s.SchedulerContext(r.Context(), []string{d.ID})
	if err != nil {
		return err
	}
	// As Graylog's contextFor(definition), the context of one definition is
	// its own scheduling state, not keyed by id as the listing's: the edit
	// page reads context.scheduler.is_scheduled into the schedule query
	// parameter of its save.
	api.WriteJSON(w, http.StatusOK, map[string]any{"event_definition": d, "context": map[string]any{"scheduler": sc[d.ID]}})
	return nil
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "definitionId")
	if err := h.require(r, "edit", id); err != nil {
		return err
	}
	schedule, err := scheduleParam(r)
	if err != nil {
		return err
	}
	if _, err := h.s.Get(r.Context(), id); err != nil {
		return err
	}
	d, err := h.read(r)
	if err != nil {
		return err
	}
	if d.ID != id {
		v := newValidation()
		v.add("id", "Event definition IDs don't match")
		return invalid(v)
	}
	if d, err = h.s.Save(r.Context(), d, schedule); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d)
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "definitionId")
	if err := h.require(r, "delete", id); err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), id); err != nil {
		return err
	}
	if err := h.owners.Forget(r.Context(), entity.TypeDefinition, id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) schedule(on bool) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := api.Var(r, "definitionId")
		if err := h.require(r, "edit", id); err != nil {
			return err
		}
		var err error
		if on {
			err = h.s.Schedule(r.Context(), id)
		} else {
			if _, err = h.s.Get(r.Context(), id); err == nil {
				err = h.s.Unschedule(r.Context(), id)
			} else if api.ErrorCode(err) == api.NotFound {
				err = api.Wrap(api.Internal, err.Error(), err)
			}
		}
		if err != nil {
			return err
		}
		api.NoContent(w)
		return nil
	}
}

func (h *Handler) execute(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "definitionId")
	if err := h.require(r, "execute", id); err != nil {
		return err
	}
	var in struct {
		Type      string `json:"type"`
		TimeRange struct {
			Type string   `json:"type"`
			From api.Time `json:"from"`
			To   api.Time `json:"to"`
		} `json:"timerange"`
		Streams   []string `json:"streams"`
		BatchSize int      `json:"batch_size"`
	}
	if err := api.Decode(r, &in, false); err != nil {
		return err
	}
	if in.Type != TypeAggregation {
		return api.Errorf(api.Invalid, "Unknown parameters type")
	}
	d, err := h.s.Get(r.Context(), id)
	if err != nil {
		return err
	}
	if err := h.exec.Run(r.Context(), d, in.TimeRange.From, in.TimeRange.To); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) entityTypes(w http.ResponseWriter, r *http.Request) error {
	if auth.FromContext(r.Context()) == nil {
		return auth.Unauthenticated()
	}
	functions := slices.Sorted(maps.Keys(seriesFunctions))
	api.WriteJSON(w, http.StatusOK, map[string][]string{
		"processor_types":       {TypeAggregation},
		"aggregation_functions": functions,
		"field_provider_types":  {TypeTemplateField, TypeLookupField},
		"storage_handler_types": {TypePersist},
		"notification_types":    {"email-notification-v1", "http-notification-v1", "legacy-alarm-callback-notification-v1"},
	})
	return nil
}

// invalid is a failed validation, answered 400 with its result as the body.
func invalid(v any) error {
	return &api.Error{Code: api.Invalid, Message: "Validation failed", Body: v}
}
