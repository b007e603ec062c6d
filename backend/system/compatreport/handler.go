// Package compatreport serves `loggate compat report` over the API
// (GET /system/compat/report), for the web interface's compatibility page:
// which clients still speak an older API release, read from the access log.
package compatreport

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/loggate/loggate/cmd/loggate/report"
	"github.com/loggate/loggate/router/api"
)

// Handler reads the access log at path on each request: the report is as
// current as the log, and memory holds one entry per client, not the log.
type Handler struct {
	path string
	now  func() time.Time
}

// NewHandler reports on the access log at path ("" when access_log is not
// set).
func NewHandler(path string, now func() time.Time) *Handler {
	return &Handler{path: path, now: now}
}

// Routes returns the report's route.
func (h *Handler) Routes() []api.Route {
	return []api.Route{{Method: "GET", Path: "/system/compat/report",
		Summary:    "Clients that spoke an older API release or needed a version change, from the access log (loggate; `loggate compat report`); `since` is a duration such as 168h, 0 for the whole log",
		Permission: "compatreport:read", Query: []string{"since"}, Handler: h.report}}
}

// answer is the report as JSON.
type answer struct {
	// Enabled is false when access_log is not set: there is nothing to read.
	Enabled bool           `json:"enabled"`
	Since   *api.Time      `json:"since"`
	Read    int            `json:"read"`
	Skipped int            `json:"skipped"`
	Clients []client       `json:"clients"`
	Removed map[string]int `json:"removed"`
}

type client struct {
	User      string         `json:"user"`
	TokenID   string         `json:"token_id"`
	UserAgent string         `json:"user_agent"`
	Release   string         `json:"release"`
	Source    string         `json:"source"`
	Requests  int            `json:"requests"`
	First     api.Time       `json:"first"`
	Last      api.Time       `json:"last"`
	Changes   map[string]int `json:"changes"`
	Removed   int            `json:"removed"`
}

func (h *Handler) report(w http.ResponseWriter, r *http.Request) error {
	out := answer{Clients: []client{}, Removed: map[string]int{}}
	var since time.Time
	if s := r.URL.Query().Get("since"); s != "" && s != "0" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return api.Errorf(api.Invalid, "Invalid parameter `since`: %q is not a duration such as 168h", s)
		}
		since = h.now().Add(-d).UTC()
		out.Since = &api.Time{Time: since}
	}
	if h.path == "" {
		api.WriteJSON(w, http.StatusOK, out)
		return nil
	}
	out.Enabled = true
	f, err := os.Open(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		api.WriteJSON(w, http.StatusOK, out)
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sum, err := report.Read(f, since)
	if err != nil {
		return err
	}
	out.Read, out.Skipped, out.Removed = sum.Read, sum.Skipped, sum.Removed
	for _, u := range sum.Clients {
		out.Clients = append(out.Clients, client{User: u.User, TokenID: u.TokenID, UserAgent: u.UserAgent, Release: u.Release,
			Source: u.Source, Requests: u.Requests, First: api.Time{Time: u.First.UTC()}, Last: api.Time{Time: u.Last.UTC()},
			Changes: u.Changes, Removed: u.Removed})
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}
