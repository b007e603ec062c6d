package streams

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// outputList is Graylog's OutputListResponse.
type outputList struct {
	Total   int               `json:"total"`
	Outputs []outputs.Summary `json:"outputs"`
}

// addOutputsRequest is Graylog's AddOutputRequest (strict).
type addOutputsRequest struct {
	Outputs *[]string `json:"outputs"`
}

// output returns an output, with Graylog's 404 for one that does not exist.
func (h *Handler) output(ctx context.Context, id string) (outputs.Summary, error) {
	norm, ok := normalID(id)
	if !ok {
		return outputs.Summary{}, api.Errorf(api.NotFound, "Couldn't find output with id %s", id)
	}
	sum, err := h.svc.outputs.Get(ctx, norm)
	if errors.Is(err, store.ErrNotFound) {
		return outputs.Summary{}, api.Errorf(api.NotFound, "Couldn't find output with id %s", id)
	}
	return sum, err
}

func (h *Handler) listOutputs(r *http.Request) (any, error) {
	ctx := r.Context()
	sid := api.Var(r, "streamid")
	if err := auth.Require(ctx, "streams:read:"+sid); err != nil {
		return nil, err
	}
	if err := auth.Require(ctx, "stream_outputs:read"); err != nil {
		return nil, err
	}
	st, err := h.svc.Get(sid)
	if err != nil {
		return nil, err
	}
	sums, err := h.svc.summaries(ctx, st.Outputs)
	if err != nil {
		return nil, err
	}
	return outputList{Total: len(sums), Outputs: sums}, nil
}

func (h *Handler) getOutput(r *http.Request) (any, error) {
	ctx := r.Context()
	sid, oid := api.Var(r, "streamid"), api.Var(r, "outputId")
	if err := auth.Require(ctx, "streams:read:"+sid); err != nil {
		return nil, err
	}
	if err := auth.Require(ctx, "stream_outputs:read:"+oid); err != nil {
		return nil, err
	}
	st, err := h.svc.Get(sid)
	if err != nil {
		return nil, err
	}
	if norm, _ := normalID(oid); !slices.Contains(st.Outputs, norm) {
		return nil, api.Errorf(api.NotFound, "Output <%s> is not assigned to stream <%s>", oid, st.ID)
	}
	sum, err := h.output(ctx, oid)
	if err != nil {
		return nil, err
	}
	return sum, nil
}

func (h *Handler) addOutputs(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	sid := api.Var(r, "streamid")
	if err := auth.Require(ctx, "streams:edit:"+sid); err != nil {
		return err
	}
	if err := auth.Require(ctx, "stream_outputs:create"); err != nil {
		return err
	}
	if _, err := h.svc.Get(sid); err != nil {
		return err
	}
	var req addOutputsRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if req.Outputs == nil {
		return api.Invalidf("outputs", `Value "null" is not a list of output ids`)
	}
	ids := make([]string, 0, len(*req.Outputs))
	for _, id := range *req.Outputs {
		if _, err := h.output(ctx, id); err != nil {
			return err
		}
		norm, _ := normalID(id)
		ids = append(ids, norm)
	}
	if err := h.svc.AddOutputs(ctx, sid, ids...); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (h *Handler) deleteOutput(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	sid, oid := api.Var(r, "streamid"), api.Var(r, "outputId")
	if err := auth.Require(ctx, "streams:edit:"+sid); err != nil {
		return err
	}
	if err := auth.Require(ctx, "stream_outputs:delete:"+oid); err != nil {
		return err
	}
	norm, ok := normalID(oid)
	if !ok {
		if _, err := h.svc.Get(sid); err != nil {
			return err
		}
		return api.Errorf(api.NotFound, "Output <%s> is not assigned to stream <%s>", oid, sid)
	}
	if err := h.svc.DetachOutput(ctx, sid, norm); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
