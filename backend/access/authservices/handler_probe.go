package authservices

import (
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

func (h *Handler) testConnection(w http.ResponseWriter, r *http.Request) error {
	req, err := h.parseTest(r)
	if err != nil {
		return err
	}
	res, err := h.svc.TestConnection(r.Context(), req)
	if err != nil {
		return failure(err)
	}
	api.WriteJSON(w, http.StatusOK, res)
	return nil
}

func (h *Handler) testLogin(w http.ResponseWriter, r *http.Request) error {
	req, err := h.parseTest(r)
	if err != nil {
		return err
	}
	res, err := h.svc.TestLogin(r.Context(), req)
	if err != nil {
		return failure(err)
	}
	api.WriteJSON(w, http.StatusOK, res)
	return nil
}

// parseTest decodes a test request. Using a stored password needs the
// right to edit that backend: whoever may edit it may point it at another
// server anyway, but a mere tester must not be able to send the stored
// password to a server of their choosing.
func (h *Handler) parseTest(r *http.Request) (TestRequest, error) {
	var body testBody
	if err := api.Decode(r, &body, true); err != nil {
		return TestRequest{}, err
	}
	req, err := body.request()
	if err != nil {
		return TestRequest{}, err
	}
	// The permission comes first, so that testers learn nothing about
	// which backends exist.
	if req.UsesStoredPassword() {
		if err := auth.Require(r.Context(), "authservicebackend:edit:"+req.BackendID); err != nil {
			return TestRequest{}, err
		}
		if _, err := h.svc.Get(r.Context(), req.BackendID); err != nil {
			return TestRequest{}, err
		}
	}
	return req, nil
}
