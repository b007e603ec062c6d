package clusterconfig

import (
	"encoding/json"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves the cluster configuration resources.
type Handler struct {
	s *Service
	// release is the major.minor release the getting-started guide is
	// dismissed in.
	release string
}

// NewHandler returns the resources of s; release is the major.minor
// release of the API served ("4.0").
func NewHandler(s *Service, release string) *Handler { return &Handler{s: s, release: release} }

const (
	processorsBody = `{"processor_order":[{"name":"Message Filter Chain","class_name":"org.graylog2.messageprocessors.MessageFilterChainProcessor"}],"disabled_processors":[]}`
	whitelistBody  = `{"entries":[{"id":"f7033f1f-d50f-4323-96df-294ede41d951","type":"literal","value":"https://hooks.example.org/alert","title":"alert hook"}],"disabled":false}`
)

// Routes returns the routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/cluster_config", Summary: "List all configuration classes with a stored configuration",
			Permission: "clusterconfigentry:read", Handler: api.JSON(h.list)},
		{Method: "GET", Path: "/system/cluster_config/{configClass}", Summary: "Get configuration settings from database (204 when none are stored)",
			Permission: "clusterconfigentry:read", Handler: h.get},
		{Method: "PUT", Path: "/system/cluster_config/{configClass}", Summary: "Update configuration in database",
			Permission: "clusterconfigentry:edit", Body: `{"query_time_range_limit":"P30D"}`, Handler: h.put},
		{Method: "DELETE", Path: "/system/cluster_config/{configClass}", Summary: "Delete configuration settings from database",
			Permission: "clusterconfigentry:delete", Handler: h.delete},
		{Method: "GET", Path: "/system/messageprocessors/config", Summary: "Get message processor configuration",
			Permission: "clusterconfigentry:read", Handler: api.JSON(h.processors)},
		{Method: "PUT", Path: "/system/messageprocessors/config", Summary: "Update message processor configuration",
			Permission: "clusterconfigentry:edit", Body: processorsBody, Handler: api.JSON(h.setProcessors)},
		{Method: "GET", Path: "/system/urlwhitelist", Summary: "Get url whitelist",
			Permission: "urlwhitelist:read", Handler: api.JSON(h.whitelist)},
		{Method: "PUT", Path: "/system/urlwhitelist", Summary: "Update url whitelist",
			Permission: "urlwhitelist:write", Body: whitelistBody, Handler: h.setWhitelist},
		{Method: "POST", Path: "/system/urlwhitelist/check", Summary: "Check if a url is whitelisted",
			Body: `{"url":"https://hooks.example.org/alert"}`, Handler: api.JSON(h.check)},
		{Method: "POST", Path: "/system/urlwhitelist/generate_regex", Summary: "Generates a regex that can be used as a value for a whitelist entry",
			Body: `{"url_template":"https://hooks.example.org/${key}"}`, Handler: api.JSON(h.generateRegex)},
		{Method: "GET", Path: "/system/gettingstarted", Summary: "Check whether to display the Getting started guide for this version", Handler: api.JSON(h.gettingStarted)},
		{Method: "POST", Path: "/system/gettingstarted/dismiss", Summary: "Dismiss auto-showing getting started guide for this version", Handler: h.dismiss},
	}
}

func (h *Handler) list(r *http.Request) (any, error) {
	names, err := h.s.Classes(r.Context())
	if err != nil {
		return nil, err
	}
	return map[string]any{"classes": names, "total": len(names)}, nil
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	doc, err := h.s.Get(r.Context(), api.Var(r, "configClass"))
	if err != nil {
		return err
	}
	if doc == nil {
		api.NoContent(w)
		return nil
	}
	api.WriteRawJSON(w, http.StatusOK, doc)
	return nil
}

func (h *Handler) put(w http.ResponseWriter, r *http.Request) error {
	// Graylog asks for both: a class may be written for the first time.
	if err := auth.Require(r.Context(), "clusterconfigentry:create"); err != nil {
		return err
	}
	var body json.RawMessage
	if err := api.Decode(r, &body, false); err != nil {
		return err
	}
	doc, err := h.s.Put(r.Context(), api.Var(r, "configClass"), body)
	if err != nil {
		return err
	}
	api.WriteRawJSON(w, http.StatusAccepted, doc)
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.Delete(r.Context(), api.Var(r, "configClass")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) processors(r *http.Request) (any, error) {
	c, err := h.s.Processors(r.Context())
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (h *Handler) setProcessors(r *http.Request) (any, error) {
	var in ProcessorsConfig
	if err := api.Decode(r, &in, false); err != nil {
		return nil, err
	}
	if _, err := h.s.SetProcessors(r.Context(), in); err != nil {
		return nil, err
	}
	// Graylog answers with the request body, not the normalized value
	// a GET then reads.
	if in.Order == nil {
		in.Order = []Processor{}
	}
	if in.Disabled == nil {
		in.Disabled = []string{}
	}
	return in, nil
}

func (h *Handler) whitelist(r *http.Request) (any, error) {
	wl, err := h.s.Whitelist(r.Context())
	if err != nil {
		return nil, err
	}
	return wl, nil
}

func (h *Handler) setWhitelist(w http.ResponseWriter, r *http.Request) error {
	var in Whitelist
	if err := api.Decode(r, &in, false); err != nil {
		return err
	}
	if err := h.s.SetWhitelist(r.Context(), in); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) check(r *http.Request) (any, error) {
	var in struct {
		URL string `json:"url"`
	}
	if err := api.Decode(r, &in, false); err != nil {
		return nil, err
	}
	if in.URL == "" {
		return nil, api.Invalidf("url", "must not be empty")
	}
	wl, err := h.s.Whitelist(r.Context())
	if err != nil {
		return nil, err
	}
	return map[string]any{"url": in.URL, "is_whitelisted": wl.Permits(in.URL)}, nil
}

func (h *Handler) generateRegex(r *http.Request) (any, error) {
	var in struct {
		URLTemplate string `json:"url_template"`
	}
	if err := api.Decode(r, &in, false); err != nil {
		return nil, err
	}
	if in.URLTemplate == "" {
		return nil, api.Invalidf("url_template", "must not be empty")
	}
	return map[string]string{"regex": RegexForTemplate(in.URLTemplate)}, nil
}

func (h *Handler) gettingStarted(r *http.Request) (any, error) {
	g, err := h.s.GettingStarted(r.Context(), h.release)
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (h *Handler) dismiss(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.DismissGettingStarted(r.Context(), h.release); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
