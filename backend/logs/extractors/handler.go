package extractors

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/inputs/{inputId}/extractors and
// /system/inputs/{inputId}/staticfields.
type Handler struct{ s *Service }

// NewHandler returns the resources of s.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

const (
	extractorBody = `{"title":"response time","cut_or_copy":"copy","source_field":"message","target_field":"took_ms","extractor_type":"regex","extractor_config":{"regex_value":"took (\\d+) ms"},"converters":{"numeric":{}},"condition_type":"string","condition_value":"took","order":0}`
	orderBody     = `{"order":{"0":"<extractorId>","1":"<extractorId>"}}`
	staticBody    = `{"key":"environment","value":"production"}`
)

// Routes returns the routes. The order route comes before the
// {extractorId} ones, which would take "order" for an id.
func (h *Handler) Routes() []api.Route {
	const list = "/system/inputs/{inputId}/extractors"
	const one = list + "/{extractorId}"
	return append([]api.Route{
		{Method: "GET", Path: list, Summary: "List all extractors of an input", Permission: "inputs:read:{inputId}", PathChecked: true, Handler: api.JSON(h.list)},
		{Method: "POST", Path: list, Summary: "Add an extractor to an input", Permission: "inputs:edit:{inputId}", PathChecked: true, Body: extractorBody, Handler: h.create},
		{Method: "POST", Path: list + "/order", Summary: "Update extractor order of an input", Permission: "inputs:edit:{inputId}", PathChecked: true, Body: orderBody, Handler: h.order},
		{Method: "GET", Path: one, Summary: "Get information of a single extractor of an input", Permission: "inputs:read:{inputId}", PathChecked: true, Handler: api.JSON(h.get)},
		{Method: "PUT", Path: one, Summary: "Update an extractor", Permission: "inputs:edit:{inputId}", PathChecked: true, Body: extractorBody, Handler: api.JSON(h.update)},
		{Method: "DELETE", Path: one, Summary: "Delete an extractor", Permission: "inputs:edit:{inputId}", PathChecked: true, Handler: h.delete},
		{Method: "POST", Path: "/system/inputs/{inputId}/staticfields", Summary: "Add a static field to an input", Permission: "inputs:edit:{inputId}", PathChecked: true, Body: staticBody, Handler: h.addStatic},
		{Method: "DELETE", Path: "/system/inputs/{inputId}/staticfields/{key}", Summary: "Remove static field of an input", Permission: "inputs:edit:{inputId}", PathChecked: true, Handler: h.removeStatic},
	}, h.toolRoutes()...)
}

// Summary is Graylog's ExtractorSummary.
type Summary struct {
	ID                  string      `json:"id"`
	Title               string      `json:"title"`
	Type                string      `json:"type"`
	CursorStrategy      string      `json:"cursor_strategy"`
	SourceField         string      `json:"source_field"`
	TargetField         string      `json:"target_field"`
	Config              config      `json:"extractor_config"`
	CreatorUserID       string      `json:"creator_user_id"`
	Converters          []Converter `json:"converters"`
	ConditionType       string      `json:"condition_type"`
	ConditionValue      string      `json:"condition_value"`
	Order               int64       `json:"order"`
	Exceptions          int64       `json:"exceptions"`
	ConverterExceptions int64       `json:"converter_exceptions"`
	Metrics             Metrics     `json:"metrics"`
}

// Metrics is Graylog's ExtractorMetrics: timers in Graylog's
// TimerRateMetricsResponse shape and the condition counts.
type Metrics struct {
	Total           any   `json:"total"`
	Condition       any   `json:"condition"`
	Execution       any   `json:"execution"`
	Converters      any   `json:"converters"`
	ConditionHits   int64 `json:"condition_hits"`
	ConditionMisses int64 `json:"condition_misses"`
}

// summary shows an extractor with this node's metrics and counts.
func (h *Handler) summary(e Extractor) Summary {
	m := h.s.metricsOf(e)
	convs := e.Converters
	if convs == nil {
		convs = []Converter{}
	}
	for i := range convs {
		if convs[i].Config == nil {
			convs[i].Config = config{}
		}
	}
	cfg := e.Config
	if cfg == nil {
		cfg = config{}
	}
	return Summary{
		ID: e.ID, Title: e.Title, Type: e.Type, CursorStrategy: e.CursorStrategy, SourceField: e.SourceField,
		TargetField: e.TargetField, Config: cfg, CreatorUserID: e.CreatorUserID, Converters: convs,
		ConditionType: e.ConditionType, ConditionValue: e.ConditionValue, Order: e.Order,
		Exceptions: m.exceptions.Load(), ConverterExceptions: m.converterExceptions.Load(),
		Metrics: Metrics{
			Total: m.total.Summary(), Condition: m.condition.Summary(), Execution: m.execution.Summary(),
			Converters: m.converters.Summary(), ConditionHits: m.hits.Count(), ConditionMisses: m.misses.Count(),
		},
	}
}

func (h *Handler) list(r *http.Request) (any, error) {
	list, err := h.s.List(r.Context(), api.Var(r, "inputId"))
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(list))
	for i, e := range list {
		out[i] = h.summary(e)
	}
	return struct {
		Total      int       `json:"total"`
		Extractors []Summary `json:"extractors"`
	}{len(out), out}, nil
}

func (h *Handler) get(r *http.Request) (any, error) {
	e, err := h.s.Get(r.Context(), api.Var(r, "inputId"), api.Var(r, "extractorId"))
	if err != nil {
		return nil, err
	}
	return h.summary(e), nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "inputId")
	var req Request
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	e, err := h.s.Create(r.Context(), id, req, auth.FromContext(r.Context()).Username)
	if err != nil {
		return err
	}
	// Graylog's Location repeats the input id where the extractor id
	// belongs; loggate's names the extractor.
	w.Header().Set("Location", api.Location(r, "/system/inputs/"+url.PathEscape(id)+"/extractors/"+url.PathEscape(e.ID)))
	api.WriteJSON(w, http.StatusCreated, map[string]string{"extractor_id": e.ID})
	return nil
}

func (h *Handler) update(r *http.Request) (any, error) {
	var req Request
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	e, err := h.s.Update(r.Context(), api.Var(r, "inputId"), api.Var(r, "extractorId"), req, auth.FromContext(r.Context()).Username)
	if err != nil {
		return nil, err
	}
	return h.summary(e), nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	return noContent(w, h.s.Delete(r.Context(), api.Var(r, "inputId"), api.Var(r, "extractorId")))
}

// noContent answers 204 when err is nil.
func noContent(w http.ResponseWriter, err error) error {
	if err == nil {
		api.NoContent(w)
	}
	return err
}

// orderRequest is Graylog's OrderExtractorsRequest: positions (integers
// as JSON object keys) to extractor ids.
type orderRequest struct {
	Order map[string]string `json:"order"`
}

// ParseOrder reads the body of the order request.
func ParseOrder(body []byte) (map[int64]string, error) {
	var req orderRequest
	if err := api.DecodeBytes(body, &req, true); err != nil {
		return nil, err
	}
	if req.Order == nil {
		return nil, api.Errorf(api.Invalid, "Null order")
	}
	out := make(map[int64]string, len(req.Order))
	for k, v := range req.Order {
		pos, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			return nil, api.Errorf(api.Invalid, "Unable to parse JSON: order key %q is not an integer", k)
		}
		out[pos] = v
	}
	return out, nil
}

func (h *Handler) order(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "inputId")
	body, err := api.ReadBody(r)
	if err != nil {
		return err
	}
	order, err := ParseOrder(body)
	if err != nil {
		return err
	}
	return noContent(w, h.s.Reorder(r.Context(), id, order))
}

type staticRequest struct {
	Key   *string `json:"key"`
	Value *string `json:"value"`
}

func (h *Handler) addStatic(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "inputId")
	var req staticRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if err := h.s.AddStaticField(r.Context(), id, req.Key, req.Value); err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/system/inputs/"+url.PathEscape(id)))
	w.WriteHeader(http.StatusCreated)
	return nil
}

func (h *Handler) removeStatic(w http.ResponseWriter, r *http.Request) error {
	return noContent(w, h.s.RemoveStaticField(r.Context(), api.Var(r, "inputId"), api.Var(r, "key")))
}
