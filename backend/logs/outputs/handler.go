package outputs

import (
	"encoding/json"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/outputs.
type Handler struct {
	outputs *Service
}

// NewHandler returns the output resource.
func NewHandler(outputs *Service) *Handler { return &Handler{outputs: outputs} }

const createBody = `{"title":"Forward to archive","type":"org.graylog2.outputs.GelfOutput","configuration":{"hostname":"archive.example.org","port":12201,"protocol":"TCP"},"streams":["000000000000000000000001"]}`

// Routes returns the output routes. The literal /available comes before
// /{outputId}, which would otherwise match it.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/outputs", Summary: "Get a list of all outputs", Permission: "outputs:read", Handler: h.list},
		{Method: "POST", Path: "/system/outputs", Summary: "Create an output", Permission: "outputs:create", Body: createBody, Handler: h.create},
		{Method: "GET", Path: "/system/outputs/available", Summary: "Get all available output modules", Permission: "outputs:read", Handler: api.JSON(h.available)},
		{Method: "GET", Path: "/system/outputs/{outputId}", Summary: "Get specific output", Permission: "outputs:read:{outputId}", PathChecked: true, Handler: api.JSON(h.get)},
		{Method: "PUT", Path: "/system/outputs/{outputId}", Summary: "Update output", Permission: "outputs:edit:{outputId}", PathChecked: true,
			Body: `{"title":"Forward to archive","configuration":{"hostname":"archive.example.org","port":12201,"protocol":"UDP"}}`, Handler: api.JSON(h.update)},
		{Method: "DELETE", Path: "/system/outputs/{outputId}", Summary: "Delete output", Permission: "outputs:terminate", Handler: h.delete},
	}
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	list, err := h.outputs.List(r.Context())
	if err != nil {
		return err
	}
	if list == nil {
		list = []Summary{}
	}
	api.WriteJSON(w, http.StatusOK, struct {
		Total   int       `json:"total"`
		Outputs []Summary `json:"outputs"`
	}{len(list), list})
	return nil
}

func (h *Handler) available(_ *http.Request) (any, error) {
	byClass := make(map[string]Type, len(Types()))
	for _, t := range Types() {
		byClass[t.Class] = t
	}
	return map[string]any{"types": byClass}, nil
}

// get checks the permission before the lookup, as Graylog does, so that the
// answer tells nothing of outputs one may not read.
func (h *Handler) get(r *http.Request) (any, error) {
	id := api.Var(r, "outputId")
	out, err := h.outputs.Get(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var req CreateRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	// Attaching it to streams is what POST /streams/{id}/outputs does,
	// with its permissions, checked before anything is stored (and before
	// a stream is looked up, so that unknown ids tell nothing).
	for _, sid := range req.Streams {
		if err := auth.Require(r.Context(), "stream_outputs:create"); err != nil {
			return err
		}
		if err := auth.Require(r.Context(), "streams:edit:"+sid); err != nil {
			return err
		}
	}
	out, err := h.outputs.Create(r.Context(), req, auth.FromContext(r.Context()).Username)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/system/outputs/"+out.ID))
	api.WriteJSON(w, http.StatusCreated, out)
	return nil
}

// update answers with the OutputSummary. Graylog 4.0 answers with its
// stored object instead (_id, and created_at in another date format); the
// summary is what clients read everywhere else.
func (h *Handler) update(r *http.Request) (any, error) {
	id := api.Var(r, "outputId")
	var delta map[string]json.RawMessage
	if err := api.Decode(r, &delta, false); err != nil {
		return nil, err
	}
	if delta == nil {
		return nil, api.Errorf(api.Invalid, "Request body must be a JSON object")
	}
	out, err := h.outputs.Update(r.Context(), id, delta)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.outputs.Delete(r.Context(), api.Var(r, "outputId")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
