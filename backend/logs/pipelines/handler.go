package pipelines

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// Streams is what the resources need of streams: that one exists.
type Streams interface {
	Get(id string) (*streams.Stream, error)
}

// Library lists the functions rules may call.
type Library interface {
	All() []*lang.Function
}

// Handler serves /system/pipelines.
type Handler struct {
	svc     *Service
	in      *Interpreter
	streams Streams
	lib     Library
}

// NewHandler returns the /system/pipelines resources.
func NewHandler(svc *Service, in *Interpreter, ss Streams, lib Library) *Handler {
	return &Handler{svc: svc, in: in, streams: ss, lib: lib}
}

// Request body examples for the API browser.
const (
	ruleExample       = `{"title":"","description":"parse the status","source":"rule \"status\"\nwhen has_field(\"message\")\nthen\n  set_field(\"status\", to_long(regex(\"(\\\\d{3})\", to_string($message.message))[\"0\"]));\nend"}`
	pipelineExample   = `{"title":"","description":"web logs","source":"pipeline \"web\"\nstage 0 match either\nrule \"status\"\nend"}`
	multipleExample   = `{"rules":["status"]}`
	metricsExample    = `{"metrics_enabled":false}`
	toStreamExample   = `{"stream_id":"000000000000000000000001","pipeline_ids":["5fc3a1e2b1f1a4a1c3e7d9f0"]}`
	toPipelineExample = `{"pipeline_id":"5fc3a1e2b1f1a4a1c3e7d9f0","stream_ids":["000000000000000000000001"]}`
	simulateExample   = `{"stream_id":"000000000000000000000001","message":{"_id":"a1","message":"GET /x 200","source":"web-1"},"input_id":null}`
)

// Routes returns the routes. Literal paths come before the {id} templates
// that would take them.
func (h *Handler) Routes() []api.Route {
	const (
		rule = "/system/pipelines/rule"
		pipe = "/system/pipelines/pipeline"
		conn = "/system/pipelines/connections"
	)
	rules := resource[RuleSource]{perm: "pipeline_rule", get: h.svc.Rule, create: h.svc.CreateRule,
		update: h.svc.UpdateRule, delete: h.svc.DeleteRule, parse: h.svc.ParseRule}
	pipes := resource[PipelineSource]{perm: "pipeline", pipeline: true, get: h.svc.Pipeline, create: h.svc.CreatePipeline,
		update: h.svc.UpdatePipeline, delete: h.svc.DeletePipeline, parse: h.svc.ParsePipeline}
	routes := []api.Route{
		{Method: "GET", Path: rule, Summary: "Get all processing rules", Permission: "pipeline_rule:read", Handler: h.listRules},
		{Method: "POST", Path: rule, Summary: "Create a processing rule from source", Permission: "pipeline_rule:create", Body: ruleExample, Handler: rules.createOne},
		{Method: "POST", Path: rule + "/parse", Summary: "Parse a processing rule without saving it", Body: ruleExample, Handler: rules.parseOne},
		{Method: "POST", Path: rule + "/multiple", Summary: "Retrieve the named processing rules in bulk", Body: multipleExample, Handler: h.multipleRules},
		{Method: "GET", Path: rule + "/functions", Summary: "Get function descriptors", Handler: h.functions},
		{Method: "GET", Path: rule + "/config/metrics", Summary: "Get rule metrics configuration", Handler: h.getMetrics},
		{Method: "PUT", Path: rule + "/config/metrics", Summary: "Update rule metrics configuration", Body: metricsExample, Handler: h.putMetrics},
		{Method: "GET", Path: rule + "/{id}", Summary: "Get a processing rule", Permission: "pipeline_rule:read:{id}", Handler: rules.getOne},
		{Method: "PUT", Path: rule + "/{id}", Summary: "Modify a processing rule", Permission: "pipeline_rule:edit:{id}", Body: ruleExample, Handler: rules.updateOne},
		{Method: "DELETE", Path: rule + "/{id}", Summary: "Delete a processing rule", Permission: "pipeline_rule:delete:{id}", Handler: rules.deleteOne},

		// Each pipeline needs pipeline:read:{id}; the others are left out.
		{Method: "GET", Path: pipe, Summary: "Get all processing pipelines", Handler: h.listPipelines},
		{Method: "POST", Path: pipe, Summary: "Create a processing pipeline from source", Permission: "pipeline:create", Body: pipelineExample, Handler: pipes.createOne},
		{Method: "POST", Path: pipe + "/parse", Summary: "Parse a processing pipeline without saving it", Body: pipelineExample, Handler: pipes.parseOne},
		{Method: "GET", Path: pipe + "/{id}", Summary: "Get a processing pipeline", Permission: "pipeline:read:{id}", Handler: pipes.getOne},
		{Method: "PUT", Path: pipe + "/{id}", Summary: "Modify a processing pipeline", Permission: "pipeline:edit:{id}", Body: pipelineExample, Handler: pipes.updateOne},
		{Method: "DELETE", Path: pipe + "/{id}", Summary: "Delete a processing pipeline", Permission: "pipeline:delete:{id}", Handler: pipes.deleteOne},

		{Method: "GET", Path: conn, Summary: "Get all pipeline connections", Permission: "pipeline_connection:read", Handler: h.listConnections},
		// streams:read:{streamId} and pipeline:read of each pipeline are
		// checked too, by the handlers.
		{Method: "POST", Path: conn + "/to_stream", Summary: "Connect processing pipelines to a stream", Permission: "pipeline_connection:edit", Body: toStreamExample, Handler: h.toStream},
		{Method: "POST", Path: conn + "/to_pipeline", Summary: "Connect streams to a processing pipeline", Permission: "pipeline_connection:edit", Body: toPipelineExample, Handler: h.toPipeline},
		{Method: "GET", Path: conn + "/{streamId}", Summary: "Get pipeline connections for the given stream", Permission: "pipeline_connection:read", Handler: h.getConnection},

		// streams:read:{stream_id} is checked too, by the handler.
		{Method: "POST", Path: "/system/pipelines/simulate", Summary: "Simulate the execution of the pipeline message processor", Permission: "pipeline_rule:read", Body: simulateExample, Handler: h.simulate},
	}
	for i := range routes {
		next := routes[i].Handler
		routes[i].Handler = func(w http.ResponseWriter, r *http.Request) error {
			// See the other nodes' changes first.
			if err := h.svc.Refresh(r.Context()); err != nil {
				return err
			}
			err := next(w, r)
			var errs lang.Errors
			if errors.As(err, &errs) {
				// Graylog answers parse errors with their list as the body.
				return &api.Error{Code: api.Invalid, Message: errs.Error(), Err: err, Body: []lang.Error(errs)}
			}
			return err
		}
	}
	return routes
}

// sourceRequest is a RuleSource or PipelineSource as clients send it;
// errors are response-only, so sending them is an unknown property.
type sourceRequest struct {
	ID          *string   `json:"id"`
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	Source      *string   `json:"source"`
	CreatedAt   *api.Time `json:"created_at"`
	ModifiedAt  *api.Time `json:"modified_at"`
}

type pipelineRequest struct {
	sourceRequest
	Stages []StageSource `json:"stages"`
}

func decodeSource(r *http.Request, pipeline bool) (sourceRequest, error) {
	var req sourceRequest
	var err error
	if pipeline {
		var p pipelineRequest
		err = api.Decode(r, &p, true)
		req = p.sourceRequest
	} else {
		err = api.Decode(r, &req, true)
	}
	if err != nil {
		return req, err
	}
	if req.Source == nil {
		return req, api.Errorf(api.Invalid, "Null source")
	}
	return req, nil
}

// resource serves rules and pipelines alike: T is RuleSource or
// PipelineSource, perm the permission domain.
type resource[T any] struct {
	perm     string
	pipeline bool
	get      func(id string) (T, error)
	create   func(ctx context.Context, description *string, source string) (T, error)
	update   func(ctx context.Context, id string, description *string, source string) (T, error)
	delete   func(ctx context.Context, id string) error
	parse    func(description *string, source string) (T, error)
}

// answer writes v with 200, or returns err.
func answer[T any](w http.ResponseWriter, v T, err error) error {
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, v)
	return nil
}

func (res resource[T]) getOne(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "id")
	if err := require(r.Context(), res.perm+":read:"+id); err != nil {
		return err
	}
	v, err := res.get(id)
	return answer(w, v, err)
}

func (res resource[T]) createOne(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeSource(r, res.pipeline)
	if err != nil {
		return err
	}
	v, err := res.create(r.Context(), req.Description, *req.Source)
	return answer(w, v, err)
}

func (res resource[T]) updateOne(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "id")
	if err := require(r.Context(), res.perm+":edit:"+id); err != nil {
		return err
	}
	req, err := decodeSource(r, res.pipeline)
	if err != nil {
		return err
	}
	v, err := res.update(r.Context(), id, req.Description, *req.Source)
	return answer(w, v, err)
}

func (res resource[T]) deleteOne(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "id")
	if err := require(r.Context(), res.perm+":delete:"+id); err != nil {
		return err
	}
	if err := res.delete(r.Context(), id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (res resource[T]) parseOne(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeSource(r, res.pipeline)
	if err != nil {
		return err
	}
	v, err := res.parse(req.Description, *req.Source)
	return answer(w, v, err)
}

func require(ctx context.Context, perm string) error { return auth.Require(ctx, perm) }

func permits(ctx context.Context, perm string) bool { return auth.FromContext(ctx).Permits(perm) }

func (h *Handler) listRules(w http.ResponseWriter, r *http.Request) error {
	api.WriteJSON(w, http.StatusOK, h.svc.Rules())
	return nil
}

func (h *Handler) multipleRules(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Rules []string `json:"rules"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	out := []RuleSource{}
	for _, rs := range h.svc.Rules() {
		if slices.Contains(req.Rules, *rs.Title) && permits(r.Context(), "pipeline_rule:read:"+*rs.ID) {
			out = append(out, rs)
		}
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

// functionDescriptor is Graylog's FunctionDescriptor as JSON.
type functionDescriptor struct {
	Name        string            `json:"name"`
	Pure        bool              `json:"pure"`
	ReturnType  string            `json:"return_type"`
	Params      []paramDescriptor `json:"params"`
	Description string            `json:"description"`
}

type paramDescriptor struct {
	Type            string `json:"type"`
	TransformedType string `json:"transformed_type"`
	Name            string `json:"name"`
	Optional        bool   `json:"optional"`
	Description     string `json:"description"`
}

func (h *Handler) functions(w http.ResponseWriter, r *http.Request) error {
	var out []functionDescriptor
	for _, f := range h.lib.All() {
		d := functionDescriptor{Name: f.Name, Pure: f.Pure, ReturnType: f.Return.Class(), Description: f.Description, Params: []paramDescriptor{}}
		for _, p := range f.Params {
			tt := p.Type
			if p.Transformed != lang.TObject {
				tt = p.Transformed
			}
			d.Params = append(d.Params, paramDescriptor{Type: p.Type.Class(), TransformedType: tt.Class(), Name: p.Name, Optional: p.Optional, Description: p.Description})
		}
		out = append(out, d)
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) getMetrics(w http.ResponseWriter, r *http.Request) error {
	api.WriteJSON(w, http.StatusOK, h.svc.MetricsConfig())
	return nil
}

func (h *Handler) putMetrics(w http.ResponseWriter, r *http.Request) error {
	var req MetricsConfig
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if err := h.svc.SetMetricsConfig(r.Context(), req); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, h.svc.MetricsConfig())
	return nil
}

func (h *Handler) listPipelines(w http.ResponseWriter, r *http.Request) error {
	out := []PipelineSource{}
	for _, p := range h.svc.Pipelines() {
		if permits(r.Context(), "pipeline:read:"+*p.ID) {
			out = append(out, p)
		}
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

// visible returns a connection with only the pipelines the caller may read.
func visible(ctx context.Context, c Connection) Connection {
	ids := []string{}
	for _, id := range c.PipelineIDs {
		if permits(ctx, "pipeline:read:"+id) {
			ids = append(ids, id)
		}
	}
	c.PipelineIDs = ids
	return c
}

func (h *Handler) listConnections(w http.ResponseWriter, r *http.Request) error {
	out := []Connection{}
	for _, c := range h.svc.Connections() {
		if permits(r.Context(), "streams:read:"+c.StreamID) {
			out = append(out, visible(r.Context(), c))
		}
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) getConnection(w http.ResponseWriter, r *http.Request) error {
	sid := api.Var(r, "streamId")
	if err := require(r.Context(), "streams:read:"+sid); err != nil {
		return err
	}
	c, ok := h.svc.Connection(sid)
	if !ok {
		// Graylog's words, its typo included.
		return api.Errorf(api.NotFound, "No pipeline connections with for stream %s", sid)
	}
	api.WriteJSON(w, http.StatusOK, visible(r.Context(), c))
	return nil
}

// checkStream checks that the caller may read a stream that exists.
func (h *Handler) checkStream(ctx context.Context, sid string) error {
	if err := require(ctx, "streams:read:"+sid); err != nil {
		return err
	}
	_, err := h.streams.Get(sid)
	return err
}

// checkPipeline checks that the caller may read a pipeline that exists.
func (h *Handler) checkPipeline(ctx context.Context, pid string) error {
	if err := require(ctx, "pipeline:read:"+pid); err != nil {
		return err
	}
	_, err := h.svc.Pipeline(pid)
	return err
}

func (h *Handler) toStream(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		StreamID    *string  `json:"stream_id"`
		PipelineIDs []string `json:"pipeline_ids"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if req.StreamID == nil {
		return api.Errorf(api.Invalid, "Null streamId")
	}
	if err := h.checkStream(r.Context(), *req.StreamID); err != nil {
		return err
	}
	ids := []string{}
	for _, pid := range req.PipelineIDs {
		if err := h.checkPipeline(r.Context(), pid); err != nil {
			return err
		}
		if !slices.Contains(ids, pid) {
			ids = append(ids, pid)
		}
	}
	out, err := h.svc.Connect(r.Context(), []Connection{{StreamID: *req.StreamID, PipelineIDs: ids}})
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, out[0])
	return nil
}

func (h *Handler) toPipeline(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		PipelineID *string  `json:"pipeline_id"`
		StreamIDs  []string `json:"stream_ids"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if req.PipelineID == nil {
		return api.Errorf(api.Invalid, "Null pipelineId")
	}
	pid := *req.PipelineID
	if err := h.checkPipeline(r.Context(), pid); err != nil {
		return err
	}
	for _, sid := range req.StreamIDs {
		if err := h.checkStream(r.Context(), sid); err != nil {
			return err
		}
	}
	// The pipeline leaves the streams not listed and joins the listed
	// ones; only the connections that change are written, the left and
	// listed ones answered.
	out, err := h.svc.ConnectPipeline(r.Context(), pid, req.StreamIDs)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}
