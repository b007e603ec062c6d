package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Verifier checks a username and password for a new session.
type Verifier interface {
	Login(ctx context.Context, username, password string) (*auth.Principal, error)
}

// Handler serves /system/sessions.
type Handler struct {
	sessions *Service
	verify   Verifier
	now      func() time.Time
}

// NewHandler returns the session resource.
func NewHandler(s *Service, v Verifier, now func() time.Time) *Handler {
	return &Handler{sessions: s, verify: v, now: now}
}

// Routes returns the /system/sessions routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/system/sessions", Summary: "Create a new session", Public: true, Handler: h.create},
		{Method: "GET", Path: "/system/sessions", Summary: "Validate an existing session", Public: true, Handler: h.validate},
		{Method: "DELETE", Path: "/system/sessions/{sessionId}", Summary: "Terminate an existing session", Handler: h.terminate},
	}
}

// validUntilLayout is java.util.Date as Jackson 2.9 writes it: milliseconds
// and a numeric offset without a colon.
const validUntilLayout = "2006-01-02T15:04:05.000-0700"

type sessionResponse struct {
	SessionID  string `json:"session_id"`
	ValidUntil string `json:"valid_until"`
	Username   string `json:"username"`
	UserID     string `json:"user_id"`
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body map[string]json.RawMessage
	if err := api.Decode(r, &body, false); err != nil {
		return err
	}
	username, password, host := str(body["username"]), str(body["password"]), str(body["host"])
	var missing []string
	if username == "" {
		missing = append(missing, "username")
	}
	if password == "" {
		missing = append(missing, "password")
	}
	if len(missing) > 0 {
		return api.Errorf(api.Invalid, "Missing required properties: %s.", strings.Join(missing, ", "))
	}
	p, err := h.verify.Login(ctx, username, password)
	if auth.ErrInvalidCredentials(err) {
		return &api.Error{Code: api.Unauthorized, Message: "Invalid credentials.",
			Header: http.Header{"Www-Authenticate": {`Basic realm="Graylog Server session"`}}}
	}
	if err != nil {
		return err
	}
	rec, err := h.reuse(ctx, r, p)
	if err != nil {
		return err
	}
	if rec.ID == "" {
		if rec, err = h.sessions.Create(ctx, p, host, clientAddress(r)); err != nil {
			return err
		}
	}
	api.WriteJSON(w, http.StatusOK, sessionResponse{
		SessionID: rec.ID, ValidUntil: rec.LastAccess.Add(rec.Timeout).UTC().Format(validUntilLayout),
		Username: p.Username, UserID: p.UserID,
	})
	return nil
}

// reuse returns the caller's still valid session of the same user, extended,
// when the login request names one as its Basic user, as Graylog does.
func (h *Handler) reuse(ctx context.Context, r *http.Request, p *auth.Principal) (auth.SessionRecord, error) {
	c, err := auth.ParseAuthorization(r.Header.Get("Authorization"))
	if err != nil || c.User == "" {
		return auth.SessionRecord{}, nil
	}
	rec, err := h.sessions.FindSession(ctx, h.sessions.Key(c.User))
	if errors.Is(err, store.ErrNotFound) {
		return auth.SessionRecord{}, nil
	}
	if err != nil {
		return auth.SessionRecord{}, err
	}
	rec.ID = c.User
	now := h.now()
	if t, ok := h.sessions.LastTouch(rec.Key); ok && t.After(rec.LastAccess) {
		rec.LastAccess = t
	}
	if rec.UserID != p.UserID || rec.Expired(now) {
		return auth.SessionRecord{}, nil
	}
	h.sessions.Touch(rec.Key, now)
	rec.LastAccess = now
	return rec, nil
}

func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// validate answers whether the request's credentials are valid. It never
// answers 401. A caller authenticated by the trusted header alone (no
// Authorization, the only way the router believes the header) gets a
// session made on the fly, its id and username in the answer, as Graylog's
// web interface expects behind a trusted proxy; otherwise both are null.
func (h *Handler) validate(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	out := map[string]any{"is_valid": p != nil, "session_id": nil, "username": nil}
	if p != nil && p.SessionID == "" && p.TokenID == "" && r.Header.Get("Authorization") == "" {
		rec, err := h.sessions.Create(r.Context(), p, "", clientAddress(r))
		if err != nil {
			return err
		}
		out["session_id"], out["username"] = rec.ID, p.Username
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

// terminate ends the caller's session. Like Graylog it logs out the session
// the request authenticated with, whatever the path says; a caller who
// authenticated otherwise may end one of their own sessions by id.
func (h *Handler) terminate(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := auth.FromContext(ctx)
	var key string
	if p.SessionID != "" {
		key = h.sessions.Key(p.SessionID)
	} else {
		rec, err := h.sessions.FindSession(ctx, h.sessions.Key(api.Var(r, "sessionId")))
		switch {
		case err == nil && rec.UserID == p.UserID:
			key = rec.Key
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		}
	}
	if key != "" {
		if err := h.sessions.Delete(ctx, key); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	api.NoContent(w)
	return nil
}
