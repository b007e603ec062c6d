package scheduler

import (
	"encoding/json"
	"net/http"

	"github.com/loggate/loggate/router/api"
)

// Handler serves /scheduler/jobs and /scheduler/triggers. Graylog checks no
// permission beyond authentication there; loggate asks for the
// administrator's "*" instead, since these endpoints can fire any job.
type Handler struct{ s *Scheduler }

// NewHandler returns the scheduler resources.
func NewHandler(s *Scheduler) *Handler { return &Handler{s: s} }

const (
	adminOnly  = "*"
	jobExample = `{"title":"my job","description":"","config":{"type":"notification-execution-v1","notification_id":"5fc5a0b1c2d3e4f5a6b7c8d9"}}`
	trExample  = `{"job_definition_id":"5fc5a0b1c2d3e4f5a6b7c8d9","start_time":"2020-12-01T10:00:00.000Z","next_time":"2020-12-01T10:00:00.000Z","schedule":{"type":"once"}}`
)

// Routes returns the scheduler routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/scheduler/jobs", Summary: "List job definitions", Permission: adminOnly, Query: api.PageQuery, Handler: h.listJobs},
		{Method: "POST", Path: "/scheduler/jobs", Summary: "Create job definition", Permission: adminOnly, Body: jobExample, Handler: h.createJob},
		{Method: "GET", Path: "/scheduler/jobs/{jobDefinitionId}", Summary: "Get job definition", Permission: adminOnly, Handler: h.getJob},
		{Method: "PUT", Path: "/scheduler/jobs/{jobDefinitionId}", Summary: "Update job definition", Permission: adminOnly, Body: jobExample, Handler: h.updateJob},
		{Method: "DELETE", Path: "/scheduler/jobs/{jobDefinitionId}", Summary: "Delete job definition", Permission: adminOnly, Handler: h.deleteJob},
		{Method: "GET", Path: "/scheduler/triggers", Summary: "List job triggers", Permission: adminOnly, Handler: h.listTriggers},
		{Method: "POST", Path: "/scheduler/triggers", Summary: "Create job trigger", Permission: adminOnly, Body: trExample, Handler: h.createTrigger},
	}
}

func (h *Handler) listJobs(w http.ResponseWriter, r *http.Request) error {
	page, err := api.ParsePage(r, "title", "title")
	if err != nil {
		return err
	}
	all, err := h.s.Jobs(r.Context())
	if err != nil {
		return err
	}
	shown := api.Slice(all, page)
	api.WriteJSON(w, http.StatusOK, api.Listing{Key: "job_definitions", Items: shown, Count: len(shown), Total: len(all), Page: page}.Body())
	return nil
}

func (h *Handler) getJob(w http.ResponseWriter, r *http.Request) error {
	d, err := h.s.Job(r.Context(), api.Var(r, "jobDefinitionId"))
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d)
	return nil
}

func (h *Handler) createJob(w http.ResponseWriter, r *http.Request) error {
	var d JobDefinition
	if err := api.Decode(r, &d, true); err != nil {
		return err
	}
	d.ID = ""
	d, err := h.s.PutJob(r.Context(), d)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d)
	return nil
}

func (h *Handler) updateJob(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "jobDefinitionId")
	if _, err := h.s.Job(r.Context(), id); err != nil {
		return err
	}
	var d JobDefinition
	if err := api.Decode(r, &d, true); err != nil {
		return err
	}
	if d.ID != id {
		return api.Errorf(api.Invalid, "Job definition IDs don't match")
	}
	d, err := h.s.PutJob(r.Context(), d)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, d)
	return nil
}

func (h *Handler) deleteJob(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "jobDefinitionId")
	if _, err := h.s.Job(r.Context(), id); err != nil {
		return err
	}
	if err := h.s.DeleteJob(r.Context(), id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) listTriggers(w http.ResponseWriter, r *http.Request) error {
	all, err := h.s.Triggers(r.Context())
	if err != nil {
		return err
	}
	page := api.Page{Page: 1, PerPage: 50}
	shown := api.Slice(all, page)
	api.WriteJSON(w, http.StatusOK, api.Listing{Key: "triggers", Items: shown, Count: len(shown), Total: len(all), Page: page}.Body())
	return nil
}

func (h *Handler) createTrigger(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		JobDefinitionID string          `json:"job_definition_id"`
		StartTime       api.Time        `json:"start_time"`
		EndTime         *api.Time       `json:"end_time"`
		NextTime        api.Time        `json:"next_time"`
		Schedule        Schedule        `json:"schedule"`
		Data            json.RawMessage `json:"data"`
	}
	if err := api.Decode(r, &in, true); err != nil {
		return err
	}
	if _, err := h.s.Job(r.Context(), in.JobDefinitionID); err != nil {
		return api.Errorf(api.Invalid, "%v", err)
	}
	tr, err := h.s.AddTrigger(r.Context(), Trigger{JobDefinitionID: in.JobDefinitionID, StartTime: in.StartTime, EndTime: in.EndTime,
		NextTime: in.NextTime, Schedule: in.Schedule, Data: in.Data})
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, tr)
	return nil
}
