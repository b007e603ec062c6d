package metrics

import (
	"net/http"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Routes returns the /system/metrics resource. Literal paths come before
// /system/metrics/{metricName}, which would otherwise match them.
func (r *Registry) Routes() []api.Route {
	h := handler{r}
	return []api.Route{
		{Method: http.MethodGet, Path: "/system/metrics", Summary: "Get all metrics", Permission: "metrics:readall", Handler: api.JSON(h.all)},
		{Method: http.MethodGet, Path: "/system/metrics/names", Summary: "Get all metrics keys/names", Permission: "metrics:allkeys", Handler: api.JSON(h.names)},
		{Method: http.MethodGet, Path: "/system/metrics/namespace/{namespace}", Summary: "Get all metrics of a namespace (each needs metrics:read:<name>)", Permission: "metrics:read:{metricName}", Handler: h.namespace},
		{Method: http.MethodPost, Path: "/system/metrics/multiple", Summary: "Get the values of multiple metrics at once (each needs metrics:read:<name>)", Permission: "metrics:read:{metricName}", Handler: api.JSON(h.multiple)},
		{Method: http.MethodGet, Path: "/system/metrics/{metricName}", Summary: "Get a single metric", Permission: "metrics:read:{metricName}", Handler: api.JSON(h.one)},
	}
}

type handler struct{ reg *Registry }

func (h handler) all(r *http.Request) (any, error) {
	return h.reg, nil
}

func (h handler) names(r *http.Request) (any, error) {
	return map[string][]string{"names": h.reg.Names()}, nil
}

func (h handler) one(r *http.Request) (any, error) {
	name := api.Var(r, "metricName")
	if err := auth.Require(r.Context(), "metrics:read:"+name); err != nil {
		return nil, err
	}
	m, ok := h.reg.lookup(name)
	if !ok {
		return nil, api.Errorf(api.NotFound, "I do not have a metric called [%s].", name)
	}
	return m.dump(), nil
}

// namespace lists the metrics whose names start with the namespace, as a
// plain string prefix like Graylog's, leaving out those the caller may not
// read.
func (h handler) namespace(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	if p == nil {
		return auth.Unauthenticated()
	}
	ns := api.Var(r, "namespace")
	entries := h.reg.entries(func(name string) bool {
		return strings.HasPrefix(name, ns) && p.Permits("metrics:read:"+name)
	})
	if len(entries) == 0 {
		return api.Errorf(api.NotFound, "No metrics with namespace [%s] found.", ns)
	}
	list := listJSON{Total: len(entries), Metrics: make([]listItem, len(entries))}
	for i, e := range entries {
		list.Metrics[i] = listItemOf(e.name, e.m)
	}
	api.WriteJSON(w, http.StatusOK, list)
	return nil
}

// multipleRequest is Graylog's MetricsReadRequest.
type multipleRequest struct {
	Metrics []string `json:"metrics"`
}

// multiple lists the requested metrics in the order asked for, silently
// leaving out unknown ones and those the caller may not read. A name asked
// for again is answered once, so that the answer is bounded by the
// registry rather than by the body: a body repeating a gauge's name would
// otherwise read it (the heap gauges stop the world) and encode it
// hundreds of thousands of times.
func (h handler) multiple(r *http.Request) (any, error) {
	p := auth.FromContext(r.Context())
	if p == nil {
		return nil, auth.Unauthenticated()
	}
	var req multipleRequest
	if err := api.Decode(r, &req, false); err != nil {
		return nil, err
	}
	if req.Metrics == nil {
		return nil, api.Errorf(api.Invalid, "Missing required property metrics")
	}
	list := listJSON{Metrics: []listItem{}}
	listed := map[string]bool{}
	for _, name := range req.Metrics {
		if listed[name] || !p.Permits("metrics:read:"+name) {
			continue
		}
		if m, ok := h.reg.lookup(name); ok {
			listed[name] = true
			list.Metrics = append(list.Metrics, listItemOf(name, m))
		}
	}
	list.Total = len(list.Metrics)
	return list, nil
}
