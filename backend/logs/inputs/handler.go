package inputs

import (
	"context"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/inputs, /system/inputs/types and
// /system/inputstates.
type Handler struct {
	inputs  *Service
	states  *States
	control Control
}

// Control starts and stops this node's running inputs; the message
// pipeline's input runner satisfies it. Each reports false for an input
// that does not run on this node.
type Control interface {
	Start(ctx context.Context, in Input) bool
	Stop(inputID string) bool
}

// NodeControl is a Control that also tells which inputs this node runs:
// global ones and those of its own node. With it, /system/inputstates
// shows only those, as Graylog's shows its node's input registry; without
// it, every input is shown.
type NodeControl interface {
	Control
	Runs(in Input) bool
}

// runsHere reports whether this node runs the input, as far as the
// handler knows.
func (h *Handler) runsHere(in Input) bool {
	nc, ok := h.control.(NodeControl)
	return !ok || nc.Runs(in)
}

// NewHandler returns the input resources. control may be nil on a server
// that runs no inputs: starting and stopping then answer 503.
func NewHandler(inputs *Service, states *States, control Control) *Handler {
	return &Handler{inputs: inputs, states: states, control: control}
}

const inputBody = `{"title":"GELF over UDP","type":"org.graylog2.inputs.gelf.udp.GELFUDPInput","global":true,"configuration":{"bind_address":"0.0.0.0","port":12201},"node":null}`

// Routes returns the input routes. Literal paths come before the
// {inputId} ones that would otherwise match them. Listings and the type
// endpoints need authentication only, as in Graylog: the listings show the
// inputs the caller may read.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/inputs", Summary: "Get all inputs", Permission: "inputs:read:{inputId}", Handler: h.list},
		{Method: "POST", Path: "/system/inputs", Summary: "Launch input on this node", Permission: "inputs:create", Body: inputBody, Handler: h.create},
		{Method: "GET", Path: "/system/inputs/types", Summary: "Get all available input types of this node", Handler: api.JSON(h.types)},
		{Method: "GET", Path: "/system/inputs/types/all", Summary: "Get information about all input types", Handler: api.JSON(h.allTypes)},
		{Method: "GET", Path: "/system/inputs/types/{inputType}", Summary: "Get information about a single input type", Handler: api.JSON(h.typeInfo)},
		{Method: "GET", Path: "/system/inputs/{inputId}", Summary: "Get information of a single input on this node", Permission: "inputs:read:{inputId}", PathChecked: true, Handler: api.JSON(h.get)},
		{Method: "PUT", Path: "/system/inputs/{inputId}", Summary: "Update input on this node", Permission: "inputs:edit:{inputId}", PathChecked: true, Body: inputBody, Handler: h.update},
		{Method: "DELETE", Path: "/system/inputs/{inputId}", Summary: "Terminate input on this node", Permission: "inputs:terminate:{inputId}", PathChecked: true, Handler: h.delete},
		{Method: "GET", Path: "/system/codecs/types/all", Summary: "Get all codec types (loggate has GELF only)", Handler: api.JSON(h.allCodecs)},
		{Method: "GET", Path: "/system/inputstates", Summary: "Get all input states of this node", Permission: "inputs:read:{inputId}", Handler: api.JSON(h.listStates)},
		{Method: "GET", Path: "/system/inputstates/{inputId}", Summary: "Get input state for specified input id on this node", Permission: "inputs:read:{inputId}", PathChecked: true, Handler: api.JSON(h.getState)},
		{Method: "PUT", Path: "/system/inputstates/{inputId}", Summary: "(Re-)Start specified input on this node", Permission: "inputs:changestate:{inputId}", PathChecked: true, Handler: api.JSON(h.start)},
		{Method: "DELETE", Path: "/system/inputstates/{inputId}", Summary: "Stop specified input on this node", Permission: "inputs:changestate:{inputId}", PathChecked: true, Handler: api.JSON(h.stop)},
	}
}

// readable returns the inputs the caller may read.
func (h *Handler) readable(r *http.Request) ([]Input, error) {
	all, err := h.inputs.All(r.Context())
	if err != nil {
		return nil, err
	}
	p := auth.FromContext(r.Context())
	out := all[:0]
	for _, in := range all {
		if p.Permits("inputs:read:" + in.ID) {
			out = append(out, in)
		}
	}
	return out, nil
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	list, err := h.readable(r)
	if err != nil {
		return err
	}
	out := make([]Summary, len(list))
	for i, in := range list {
		out[i] = in.Summary()
	}
	api.WriteJSON(w, http.StatusOK, struct {
		Total  int       `json:"total"`
		Inputs []Summary `json:"inputs"`
	}{len(out), out})
	return nil
}

// get checks the permission before the lookup, as Graylog does, so that the
// answer tells nothing of inputs one may not read.
func (h *Handler) get(r *http.Request) (any, error) {
	id := api.Var(r, "inputId")
	in, err := h.inputs.Get(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return in.Summary(), nil
}

type created struct {
	ID string `json:"id"`
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var req CreateRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	in, err := h.inputs.Create(r.Context(), req, auth.FromContext(r.Context()).Username)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/system/inputs/"+in.ID))
	api.WriteJSON(w, http.StatusCreated, created{in.ID})
	return nil
}

// update answers 201 Created with the input's id, as Graylog 4.0 does.
func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "inputId")
	var req CreateRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	in, err := h.inputs.Update(r.Context(), id, req)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/system/inputs/"+in.ID))
	api.WriteJSON(w, http.StatusCreated, created{in.ID})
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "inputId")
	if err := h.inputs.Delete(r.Context(), id); err != nil {
		return err
	}
	h.states.Forget(id)
	api.NoContent(w)
	return nil
}

func (h *Handler) types(_ *http.Request) (any, error) {
	names := make(map[string]string, len(Types()))
	for _, t := range Types() {
		names[t.Class] = t.Name
	}
	return map[string]any{"types": names}, nil
}

func (h *Handler) allTypes(_ *http.Request) (any, error) {
	byClass := make(map[string]Type, len(Types()))
	for _, t := range Types() {
		byClass[t.Class] = t
	}
	return byClass, nil
}

func (h *Handler) typeInfo(r *http.Request) (any, error) {
	class := api.Var(r, "inputType")
	t, ok := LookupType(class)
	if !ok {
		return nil, api.Errorf(api.NotFound, "Unknown input type %s requested.", class)
	}
	return t, nil
}

func (h *Handler) listStates(r *http.Request) (any, error) {
	list, err := h.readable(r)
	if err != nil {
		return nil, err
	}
	out := make([]StateSummary, 0, len(list))
	for _, in := range list {
		if h.runsHere(in) {
			out = append(out, h.states.Summary(in))
		}
	}
	return map[string][]StateSummary{"states": out}, nil
}

func (h *Handler) getState(r *http.Request) (any, error) {
	id := api.Var(r, "inputId")
	in, err := h.inputs.Get(r.Context(), id)
	if api.ErrorCode(err) == api.NotFound || err == nil && !h.runsHere(in) {
		return nil, api.Errorf(api.NotFound, "No input state for input id <%s> on this node.", id)
	}
	if err != nil {
		return nil, err
	}
	return h.states.Summary(in), nil
}

// changeState finds the input of a start or stop request, checking the
// caller may change its state.
func (h *Handler) changeState(r *http.Request) (Input, error) {
	id := api.Var(r, "inputId")
	in, err := h.inputs.Get(r.Context(), id)
	if err != nil {
		return Input{}, err
	}
	if h.control == nil {
		return Input{}, api.Errorf(api.Unavailable, "This server runs no inputs")
	}
	return in, nil
}

// start answers PUT /system/inputstates/{inputId} with Graylog's
// InputCreated. An input this node does not run (a non-global input of
// another node) is answered the same, as Graylog 4.0 answers it: its
// resource only posts the event, which such a node ignores. A 404 would
// fail PUT /cluster/inputstates/{inputId} before the node running the
// input is asked.
func (h *Handler) start(r *http.Request) (any, error) {
	in, err := h.changeState(r)
	if err != nil {
		return nil, err
	}
	h.control.Start(r.Context(), in)
	return map[string]string{"id": in.ID}, nil
}

// stop answers DELETE /system/inputstates/{inputId} with Graylog's
// InputDeleted, also for an input this node does not run (see start).
func (h *Handler) stop(r *http.Request) (any, error) {
	in, err := h.changeState(r)
	if err != nil {
		return nil, err
	}
	h.control.Stop(in.ID)
	return map[string]string{"id": in.ID}, nil
}
