package notify

import (
	"net/http"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /events/notifications except its listing, which the
// events package serves.
type Handler struct {
	s      *Service
	out    *Deliverer
	now    func() time.Time
	owners entity.Owners
}

// NewHandler returns the notifications resources; owners records who
// created each notification, who may then do anything with it.
func NewHandler(s *Service, out *Deliverer, now func() time.Time, owners entity.Owners) *Handler {
	return &Handler{s: s, out: out, now: now, owners: owners}
}

// require checks the caller's permission perm on the notification id,
// which its owner has without it.
func (h *Handler) require(r *http.Request, verb, id string) error {
	return h.owners.Require(r.Context(), "eventnotifications:"+verb+":"+id, entity.TypeNotification, id)
}

const example = `{"title":"ops hook","description":"","config":{"type":"http-notification-v1","url":"https://hooks.example.org/alert"}}`

// Routes returns the notifications routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/events/notifications", Summary: "Create new notification definition",
			Permission: "eventnotifications:create", Body: example, Handler: h.create},
		{Method: "POST", Path: "/events/notifications/test", Summary: "Send a test alert for a given event notification",
			Permission: "eventnotifications:create", Body: example, Handler: h.testUnsaved},
		{Method: "GET", Path: "/events/notifications/legacy/types", Summary: "List all available legacy alarm callback types", Handler: h.legacyTypes},
		{Method: "GET", Path: "/events/notifications/{notificationId}", Summary: "Get a notification",
			Permission: "eventnotifications:read:{notificationId}", Handler: h.get},
		{Method: "PUT", Path: "/events/notifications/{notificationId}", Summary: "Update existing notification",
			Permission: "eventnotifications:edit:{notificationId}", Body: example, Handler: h.update},
		{Method: "DELETE", Path: "/events/notifications/{notificationId}", Summary: "Delete notification",
			Permission: "eventnotifications:delete:{notificationId}", Handler: h.delete},
		{Method: "POST", Path: "/events/notifications/{notificationId}/test", Summary: "Send a test alert for a given event notification",
			Permission: "eventnotifications:edit:{notificationId}", Handler: h.testSaved},
	}
}

// read parses and validates a body; a failed validation is a 400 whose
// body is the validation result.
func read(r *http.Request) (n Notification, err error) {
	body, err := api.ReadBody(r)
	if err != nil {
		return n, err
	}
	if n, err = Parse(body); err != nil {
		return n, err
	}
	if v := n.Validate(); v.Failed {
		return n, invalid(v)
	}
	return n, nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	n, err := read(r)
	if err != nil {
		return err
	}
	n.ID = ""
	if n, err = h.s.Save(r.Context(), n); err != nil {
		return err
	}
	if err := h.owners.Own(r.Context(), entity.TypeNotification, n.ID); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, n)
	return nil
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "notificationId")
	if err := h.require(r, "read", id); err != nil {
		return err
	}
	n, err := h.s.Get(r.Context(), id)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, n)
	return nil
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "notificationId")
	if err := h.require(r, "edit", id); err != nil {
		return err
	}
	if _, err := h.s.Get(r.Context(), id); err != nil {
		return err
	}
	n, err := read(r)
	if err != nil {
		return err
	}
	if n.ID != id {
		return api.Errorf(api.Invalid, "Notification IDs don't match")
	}
	if n, err = h.s.Save(r.Context(), n); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, n)
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "notificationId")
	if err := h.require(r, "delete", id); err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), id); err != nil {
		return err
	}
	if err := h.owners.Forget(r.Context(), entity.TypeNotification, id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

// test delivers Graylog's dummy event now; a failure is a 500 naming it.
func (h *Handler) test(w http.ResponseWriter, r *http.Request, n Notification) error {
	m := testModel(auth.FromContext(r.Context()).Username, api.Time{Time: h.now().UTC().Truncate(time.Millisecond)})
	if err := h.out.Deliver(r.Context(), n, m); err != nil {
		return api.Wrap(api.Internal, err.Error(), err)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) testSaved(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "notificationId")
	if err := h.require(r, "edit", id); err != nil {
		return err
	}
	n, err := h.s.Get(r.Context(), id)
	if err != nil {
		return err
	}
	return h.test(w, r, n)
}

func (h *Handler) testUnsaved(w http.ResponseWriter, r *http.Request) error {
	n, err := read(r)
	if err != nil {
		return err
	}
	return h.test(w, r, n)
}

func (h *Handler) legacyTypes(w http.ResponseWriter, r *http.Request) error {
	if auth.FromContext(r.Context()) == nil {
		return auth.Unauthenticated()
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"types": LegacyTypes()})
	return nil
}

// invalid is a failed validation, answered 400 with its result as the body.
func invalid(v any) error {
	return &api.Error{Code: api.Invalid, Message: "Validation failed", Body: v}
}
