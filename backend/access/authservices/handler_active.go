package authservices

import (
	"net/http"

	"github.com/loggate/loggate/router/api"
)

func (h *Handler) writeConfiguration(r *http.Request) (any, error) {
	id, err := h.svc.ActiveID(r.Context())
	if err != nil {
		return nil, err
	}
	c := globalConfig{}
	if id != "" {
		c.ActiveBackend = &id
	}
	return map[string]any{"configuration": c}, nil
}

func (h *Handler) getConfiguration(w http.ResponseWriter, r *http.Request) error {
	return api.JSON(h.writeConfiguration)(w, r)
}

// setConfiguration activates the backend the body names, or none for null
// (or a blank id).
func (h *Handler) setConfiguration(w http.ResponseWriter, r *http.Request) error {
	var c globalConfig
	if err := api.Decode(r, &c, true); err != nil {
		return err
	}
	id := ""
	if c.ActiveBackend != nil {
		id = *c.ActiveBackend
	}
	if err := h.svc.SetActive(r.Context(), id); err != nil {
		return err
	}
	return api.JSON(h.writeConfiguration)(w, r)
}

func (h *Handler) getActiveBackend(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	b, err := h.svc.ActiveBackend(ctx)
	if err != nil {
		return err
	}
	if b != nil {
		if err := requireRead(r, b.ID); err != nil {
			return err
		}
	}
	n, err := h.svc.Count(ctx)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{
		"backend": b, "context": map[string]int{"backends_total": n},
	})
	return nil
}
