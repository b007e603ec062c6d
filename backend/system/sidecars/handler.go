package sidecars

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Permissions, Graylog's SidecarRestPermissions.
const (
	PermSidecarsRead        = "sidecars:read"
	PermSidecarsUpdate      = "sidecars:update"
	PermCollectorsRead      = "sidecar_collectors:read"
	PermCollectorsCreate    = "sidecar_collectors:create"
	PermCollectorsUpdate    = "sidecar_collectors:update"
	PermCollectorsDelete    = "sidecar_collectors:delete"
	PermConfigurationsRead  = "sidecar_collector_configurations:read"
	PermConfigurationsNew   = "sidecar_collector_configurations:create"
	PermConfigurationsEdit  = "sidecar_collector_configurations:update"
	PermConfigurationsErase = "sidecar_collector_configurations:delete"
)

// VersionHeader is the header every Sidecar registration carries.
const VersionHeader = "X-Graylog-Sidecar-Version"

// Handler serves the Sidecar API: /sidecars and /sidecar/….
type Handler struct {
	s *Service
}

// NewHandler returns the Sidecar resources.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

// Request body examples for the API browser.
const (
	registrationExample   = `{"node_name":"web-1","node_details":{"operating_system":"Linux","ip":"10.0.0.1","metrics":{"disks_75":[],"cpu_idle":97.5,"load_1":0.1},"log_file_list":null,"status":{"status":0,"message":"1 running / 0 stopped / 0 failing","collectors":[{"collector_id":"5f0c0e0b6e4a5c0001a1b2c3","status":0,"message":"Running","verbose_message":""}]}}}`
	assignExample         = `{"nodes":[{"node_id":"d1f3a7c2-0c1e-4a51-9d3e-6a1b2c3d4e5f","assignments":[{"collector_id":"5f0c0e0b6e4a5c0001a1b2c3","configuration_id":"5f0c0e0b6e4a5c0001a1b2c4"}]}]}`
	collectorExample      = `{"name":"filebeat","service_type":"exec","node_operating_system":"linux","executable_path":"/usr/share/filebeat/bin/filebeat","execute_parameters":"-c %s","validation_parameters":"test config -c %s","default_template":""}`
	configurationExample  = `{"collector_id":"5f0c0e0b6e4a5c0001a1b2c3","name":"web logs","color":"#ffffff","template":"fields.gl2_source_collector: ${sidecar.nodeId}\n"}`
	previewExample        = `{"template":"fields.collector_node_id: ${sidecar.nodeName}\n"}`
	variableExample       = `{"name":"logstash_host","description":"where the beats send to","content":"10.0.0.5:5044"}`
	administrationExample = `{"page":1,"per_page":50,"query":"","filters":{"os":"linux"}}`
	bulkActionExample     = `{"action":"restart","collectors":[{"sidecar_id":"d1f3a7c2-0c1e-4a51-9d3e-6a1b2c3d4e5f","collector_ids":["5f0c0e0b6e4a5c0001a1b2c3"]}]}`
	actionExample         = `[{"collector_id":"5f0c0e0b6e4a5c0001a1b2c3","properties":{"restart":true}}]`
)

// Routes returns the Sidecar routes. Literal paths come before the
// templates that would take them (/sidecars/all before
// /sidecars/{sidecarId}).
func (h *Handler) Routes() []api.Route {
	sidecarList := append(slices.Clone(api.PageQuery), "only_active")
	page := api.PageQuery
	return []api.Route{
		// SidecarResource
		{Method: "GET", Path: "/sidecars/all", Summary: "Lists all existing Sidecar registrations", Permission: PermSidecarsRead,
			Handler: api.JSON(h.allSidecars)},
		{Method: "GET", Path: "/sidecars", Summary: "Lists existing Sidecar registrations using pagination", Permission: PermSidecarsRead,
			Query: sidecarList, Handler: api.JSON(h.listSidecars)},
		{Method: "PUT", Path: "/sidecars/configurations", Summary: "Assign configurations to sidecars", Permission: PermSidecarsUpdate,
			Body: assignExample, Handler: h.assign},
		{Method: "GET", Path: "/sidecars/{sidecarId}", Summary: "Returns at most one Sidecar summary for the specified id", Permission: PermSidecarsRead,
			Handler: api.JSON(h.getSidecar)},
		{Method: "PUT", Path: "/sidecars/{sidecarId}", Summary: "Create/update a Sidecar registration (the Sidecar's heartbeat; header " + VersionHeader + " required)",
			Permission: PermSidecarsUpdate, Body: registrationExample, Handler: h.register},

		// CollectorResource
		{Method: "GET", Path: "/sidecar/collectors", Summary: "List all collectors", Permission: PermCollectorsRead,
			Handler: h.listCollectors},
		{Method: "GET", Path: "/sidecar/collectors/summary", Summary: "List a summary of all collectors", Permission: PermCollectorsRead,
			Query: page, Handler: api.JSON(h.collectorSummary)},
		{Method: "POST", Path: "/sidecar/collectors/validate", Summary: "Validates collector parameters", Permission: PermCollectorsRead,
			Body: collectorExample, Handler: api.JSON(validating(decodeCollector, h.s.ValidateCollector))},
		{Method: "GET", Path: "/sidecar/collectors/{id}", Summary: "Show collector details", Permission: PermCollectorsRead,
			Handler: api.JSON(h.getCollector)},
		{Method: "POST", Path: "/sidecar/collectors", Summary: "Create a new collector", Permission: PermCollectorsCreate,
			Body: collectorExample, Handler: api.JSON(saving(decodeCollector, h.s.SaveCollector, false))},
		{Method: "PUT", Path: "/sidecar/collectors/{id}", Summary: "Update a collector", Permission: PermCollectorsUpdate,
			Body: collectorExample, Handler: api.JSON(saving(decodeCollector, h.s.SaveCollector, true))},
		{Method: "POST", Path: "/sidecar/collectors/{id}/{name}", Summary: "Copy a collector (needs " + PermCollectorsRead + " and " + PermCollectorsCreate + ")",
			Permission: PermCollectorsRead, Handler: also(copying(h.s.CopyCollector), PermCollectorsCreate)},
		{Method: "DELETE", Path: "/sidecar/collectors/{id}", Summary: "Delete a collector", Permission: PermCollectorsDelete,
			Handler: deleting(h.s.DeleteCollector)},

		// ConfigurationResource
		{Method: "GET", Path: "/sidecar/configurations", Summary: "List all configurations", Permission: PermConfigurationsRead,
			Query: page, Handler: api.JSON(h.listConfigurations)},
		{Method: "POST", Path: "/sidecar/configurations/validate", Summary: "Validates configuration parameters", Permission: PermConfigurationsRead,
			Body: configurationExample, Handler: api.JSON(validating(decodeConfiguration, h.s.ValidateConfiguration))},
		{Method: "POST", Path: "/sidecar/configurations/render/preview", Summary: "Render preview of a configuration template", Permission: PermConfigurationsRead,
			Body: previewExample, Handler: api.JSON(h.preview)},
		{Method: "GET", Path: "/sidecar/configurations/render/{sidecarId}/{configurationId}", Summary: "Render configuration template", Permission: PermConfigurationsRead,
			Handler: h.render},
		{Method: "GET", Path: "/sidecar/configurations/{id}", Summary: "Show configuration details", Permission: PermConfigurationsRead,
			Handler: api.JSON(h.getConfiguration)},
		{Method: "GET", Path: "/sidecar/configurations/{id}/sidecars", Summary: "Show sidecars using the given configuration (needs " + PermConfigurationsRead + " and " + PermSidecarsRead + ")",
			Permission: PermConfigurationsRead, Handler: also(api.JSON(h.configurationSidecars), PermSidecarsRead)},
		{Method: "POST", Path: "/sidecar/configurations", Summary: "Create new configuration", Permission: PermConfigurationsNew,
			Body: configurationExample, Handler: api.JSON(saving(decodeConfiguration, h.s.SaveConfiguration, false))},
		{Method: "POST", Path: "/sidecar/configurations/{id}/{name}", Summary: "Copy a configuration (needs " + PermConfigurationsRead + " and " + PermConfigurationsNew + ")",
			Permission: PermConfigurationsRead, Handler: also(copying(h.s.CopyConfiguration), PermConfigurationsNew)},
		{Method: "PUT", Path: "/sidecar/configurations/{id}", Summary: "Update a configuration", Permission: PermConfigurationsEdit,
			Body: configurationExample, Handler: api.JSON(saving(decodeConfiguration, h.s.SaveConfiguration, true))},
		{Method: "DELETE", Path: "/sidecar/configurations/{id}", Summary: "Delete a configuration", Permission: PermConfigurationsErase,
			Handler: deleting(h.s.DeleteConfiguration)},

		// ConfigurationVariableResource
		{Method: "GET", Path: "/sidecar/configuration_variables", Summary: "List all configuration variables", Permission: PermConfigurationsRead,
			Handler: api.JSON(h.listVariables)},
		{Method: "POST", Path: "/sidecar/configuration_variables/validate", Summary: "Validate a configuration variable", Permission: PermConfigurationsRead,
			Body: variableExample, Handler: api.JSON(h.validateVariable)},
		{Method: "GET", Path: "/sidecar/configuration_variables/{id}/configurations", Summary: "Show configurations using this variable", Permission: PermConfigurationsRead,
			Handler: api.JSON(h.variableConfigurations)},
		{Method: "POST", Path: "/sidecar/configuration_variables", Summary: "Create new configuration variable", Permission: PermConfigurationsNew,
			Body: variableExample, Handler: api.JSON(h.createVariable)},
		{Method: "PUT", Path: "/sidecar/configuration_variables/{id}", Summary: "Update a configuration variable", Permission: PermConfigurationsEdit,
			Body: variableExample, Handler: api.JSON(h.updateVariable)},
		{Method: "DELETE", Path: "/sidecar/configuration_variables/{id}", Summary: "Delete a configuration variable", Permission: PermConfigurationsEdit,
			Handler: deleting(h.s.DeleteVariable)},

		// AdministrationResource and ActionResource
		{Method: "POST", Path: "/sidecar/administration", Summary: "Lists existing Sidecar registrations including compatible sidecars using pagination (needs " +
			PermSidecarsRead + ", " + PermCollectorsRead + " and " + PermConfigurationsRead + ")",
			Permission: PermSidecarsRead, Body: administrationExample, Handler: also(api.JSON(h.administration), PermCollectorsRead, PermConfigurationsRead)},
		{Method: "PUT", Path: "/sidecar/administration/action", Summary: "Set collector actions in bulk", Permission: PermSidecarsUpdate,
			Body: bulkActionExample, Handler: h.bulkAction},
		{Method: "GET", Path: "/sidecar/action/{sidecarId}", Summary: "Returns queued actions for the specified Sidecar id", Permission: PermSidecarsRead,
			Handler: api.JSON(h.getActions)},
		{Method: "PUT", Path: "/sidecar/action/{sidecarId}", Summary: "Set a collector action", Permission: PermSidecarsUpdate,
			Body: actionExample, Handler: h.setActions},
	}
}

// also checks the permissions Graylog requires besides the route's own
// (@RequiresPermissions with several): every one is needed.
func also(next api.HandlerFunc, perms ...string) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		for _, p := range perms {
			if err := auth.Require(r.Context(), p); err != nil {
				return err
			}
		}
		return next(w, r)
	}
}

func accepted(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) }

// notModified is Graylog's answer to a DELETE of an id that is not there.
func notModified(w http.ResponseWriter) { w.WriteHeader(http.StatusNotModified) }

// cached writes v with an ETag of its bytes, or 304 when the client has
// them already (If-None-Match), with Graylog's Cache-Control. The Sidecar
// asks for collectors and rendered configurations this way every interval.
func cached(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := api.Marshal(v)
	if err != nil {
		return err
	}
	sum := md5.Sum(body)
	tag := hex.EncodeToString(sum[:])
	w.Header().Set("Cache-Control", "private, no-transform")
	w.Header().Set("ETag", `"`+tag+`"`)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.ReplaceAll(inm, `"`, "") == tag {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	api.WriteRawJSON(w, http.StatusOK, body)
	return nil
}

// checkLen refuses a list longer than maxItems.
func checkLen(name string, n int) error {
	if n > maxItems {
		return api.Errorf(api.Invalid, "Too many %s: %d; at most %d are accepted", name, n, maxItems)
	}
	return nil
}

// required is the 400 of a property the model cannot be without.
func required(name string) error {
	return api.Errorf(api.Invalid, "Unable to map request: %s must not be null", name)
}

// requireAll is the error of the first nil property of pairs (a name,
// then its *string), in order.
func requireAll(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, _ := pairs[i+1].(*string); v == nil {
			return required(pairs[i].(string))
		}
	}
	return nil
}

func sortBy[T any](items []T, key func(T) string) {
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}

// --- Sidecars ---

type registrationBody struct {
	NodeName    *string      `json:"node_name"`
	NodeDetails *NodeDetails `json:"node_details"`
}

func (h *Handler) register(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "sidecarId")
	if len(id) > maxIDLength {
		return api.Errorf(api.Invalid, "Sidecar id is longer than %d bytes", maxIDLength)
	}
	version := r.Header.Get(VersionHeader)
	if version == "" {
		return api.Errorf(api.Invalid, "The header %s is mandatory", VersionHeader)
	}
	var body registrationBody
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	switch {
	case body.NodeName == nil || *body.NodeName == "":
		return api.Invalidf("node_name", "must not be empty")
	case body.NodeDetails == nil:
		return required("node_details")
	case body.NodeDetails.OperatingSystem == "":
		return api.Invalidf("node_details.operating_system", "must not be empty")
	}
	d := body.NodeDetails
	if err := checkLen("log files", len(d.LogFileList)); err != nil {
		return err
	}
	if d.Status != nil {
		if err := checkLen("collector statuses", len(d.Status.Collectors)); err != nil {
			return err
		}
		if d.Status.Collectors == nil {
			d.Status.Collectors = []CollectorStatus{}
		}
	}
	if d.Metrics != nil {
		if err := checkLen("disks", len(d.Metrics.Disks75)); err != nil {
			return err
		}
	}
	resp, err := h.s.Register(r.Context(), id, Registration{NodeName: *body.NodeName, NodeDetails: *d, Version: version})
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusAccepted, resp)
	return nil
}

// sidecarList is Graylog's SidecarListResponse.
type sidecarList struct {
	Query      *string           `json:"query"`
	Pagination Pagination        `json:"pagination"`
	Total      int               `json:"total"`
	OnlyActive bool              `json:"only_active"`
	Sort       *string           `json:"sort"`
	Order      *string           `json:"order"`
	Sidecars   []Summary         `json:"sidecars"`
	Filters    map[string]string `json:"filters"`
}

func (h *Handler) allSidecars(r *http.Request) (any, error) {
	scs, err := h.s.Sidecars(r.Context())
	if err != nil {
		return nil, err
	}
	settings, err := h.s.Settings(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(scs))
	for i, sc := range scs {
		out[i] = sc.summary(h.s.active(sc, settings))
	}
	empty := ""
	return sidecarList{Query: &empty, Pagination: Pagination{Total: len(out), Count: len(out), Page: 1, PerPage: len(out)},
		Total: len(out), Sidecars: out}, nil
}

// sidecarFields are the searchable fields of the Sidecar listings.
var sidecarFields = []string{"id", "node_id", "name", "sidecar_version", "last_seen", "operating_system", "status"}

// sidecarSorts are the fields the Sidecar listing sorts by, the web
// interface's columns among them.
var sidecarSorts = []string{"node_name", "node_id", "sidecar_version", "last_seen", "node_details.operating_system", "node_details.status.status", "id"}

func sidecarField(sc Sidecar, f string) string {
	switch f {
	case "id":
		return sc.ID
	case "node_id":
		return sc.NodeID
	case "name", "node_name":
		return sc.NodeName
	case "sidecar_version":
		return sc.SidecarVersion
	case "last_seen":
		return sc.LastSeen.UTC().Format(api.TimeLayout)
	case "operating_system", "node_details.operating_system":
		return sc.NodeDetails.OperatingSystem
	case "status", "node_details.status.status":
		if st := sc.NodeDetails.Status; st != nil {
			return strconv.Itoa(st.Status)
		}
	}
	return ""
}

var statusQuery = regexp.MustCompile(`(?i)\bstatus:(running|unknown|failing|stopped)\b`)

// sidecarQuery parses a Sidecar listing query, status names replaced by
// their codes as Graylog's SidecarStatusMapper does.
func sidecarQuery(q string) (api.Query, error) {
	q = statusQuery.ReplaceAllStringFunc(q, func(m string) string {
		return "status:" + strconv.Itoa(statusNames[strings.ToLower(m[len("status:"):])])
	})
	return api.ParseQuery(q, "name", sidecarFields...)
}

func (h *Handler) listSidecars(r *http.Request) (any, error) {
	page, err := api.ParsePage(r, "node_name", sidecarSorts...)
	if err != nil {
		return nil, err
	}
	q, err := sidecarQuery(page.Query)
	if err != nil {
		return nil, err
	}
	onlyActive := strings.EqualFold(r.URL.Query().Get("only_active"), "true")
	scs, err := h.s.Sidecars(r.Context())
	if err != nil {
		return nil, err
	}
	settings, err := h.s.Settings(r.Context())
	if err != nil {
		return nil, err
	}
	total := len(scs)
	if onlyActive {
		scs = slices.DeleteFunc(scs, func(sc Sidecar) bool { return !h.s.active(sc, settings) })
	}
	items, matched := api.PageOf(scs, page, q, sidecarField)
	out := make([]Summary, len(items))
	for i, sc := range items {
		out[i] = sc.summary(h.s.active(sc, settings))
	}
	return sidecarList{Query: &page.Query, Pagination: Pagination{Total: matched, Count: len(out), Page: page.Page, PerPage: page.PerPage},
		Total: total, OnlyActive: onlyActive, Sort: &page.Sort, Order: &page.Order, Sidecars: out}, nil
}

func (h *Handler) getSidecar(r *http.Request) (any, error) {
	sc, err := h.s.Sidecar(r.Context(), api.Var(r, "sidecarId"))
	if err != nil {
		return nil, err
	}
	settings, err := h.s.Settings(r.Context())
	if err != nil {
		return nil, err
	}
	return sc.summary(h.s.active(sc, settings)), nil
}

func (h *Handler) assign(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Nodes []NodeAssignments `json:"nodes"`
	}
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	if body.Nodes == nil {
		return required("nodes")
	}
	if err := checkLen("nodes", len(body.Nodes)); err != nil {
		return err
	}
	n := 0
	for _, node := range body.Nodes {
		if node.NodeID == "" {
			return required("node_id")
		}
		if node.Assignments == nil {
			return required("assignments")
		}
		n += len(node.Assignments)
		for _, a := range node.Assignments {
			if a.CollectorID == "" || a.ConfigurationID == "" {
				return required("collector_id and configuration_id")
			}
		}
	}
	if err := checkLen("assignments", n); err != nil {
		return err
	}
	if err := h.s.Assign(r.Context(), body.Nodes); err != nil {
		return err
	}
	accepted(w)
	return nil
}

// --- Collectors ---

type collectorBody struct {
	ID                   *string `json:"id"`
	Name                 *string `json:"name"`
	ServiceType          *string `json:"service_type"`
	NodeOperatingSystem  *string `json:"node_operating_system"`
	ExecutablePath       *string `json:"executable_path"`
	ExecuteParameters    *string `json:"execute_parameters"`
	ValidationParameters *string `json:"validation_parameters"`
	DefaultTemplate      *string `json:"default_template"`
}

// decodeAs reads a request body of type B, which value checks and turns
// into what it stands for.
func decodeAs[B any, T any](value func(B) (T, error)) func(*http.Request) (T, error) {
	return func(r *http.Request) (T, error) {
		var b B
		if err := api.Decode(r, &b, true); err != nil {
			var zero T
			return zero, err
		}
		return value(b)
	}
}

// orEmpty is an optional id: empty when the body names none.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var decodeCollector = decodeAs(collectorBody.collector)

func (b collectorBody) collector() (Collector, error) {
	if err := requireAll("name", b.Name, "service_type", b.ServiceType, "node_operating_system", b.NodeOperatingSystem,
		"executable_path", b.ExecutablePath); err != nil {
		return Collector{}, err
	}
	return Collector{ID: orEmpty(b.ID), Name: *b.Name, ServiceType: *b.ServiceType, NodeOperatingSystem: *b.NodeOperatingSystem,
		ExecutablePath: *b.ExecutablePath, ExecuteParameters: b.ExecuteParameters, ValidationParameters: b.ValidationParameters,
		DefaultTemplate: b.DefaultTemplate}, nil
}

func (h *Handler) listCollectors(w http.ResponseWriter, r *http.Request) error {
	cs, err := h.s.Collectors(r.Context())
	if err != nil {
		return err
	}
	if cs == nil {
		cs = []Collector{}
	}
	return cached(w, r, struct {
		Total      int         `json:"total"`
		Collectors []Collector `json:"collectors"`
	}{len(cs), cs})
}

func collectorField(c Collector, f string) string {
	switch f {
	case "id":
		return c.ID
	case "name":
		return c.Name
	case "operating_system", "node_operating_system":
		return c.NodeOperatingSystem
	case "service_type":
		return c.ServiceType
	}
	return ""
}

func (h *Handler) getCollector(r *http.Request) (any, error) {
	return h.s.Collector(r.Context(), api.Var(r, "id"))
}

// --- Configurations ---

type configurationBody struct {
	ID          *string `json:"id"`
	CollectorID *string `json:"collector_id"`
	Name        *string `json:"name"`
	Color       *string `json:"color"`
	Template    *string `json:"template"`
}

var decodeConfiguration = decodeAs(configurationBody.configuration)

func (b configurationBody) configuration() (Configuration, error) {
	if err := requireAll("collector_id", b.CollectorID, "name", b.Name, "color", b.Color, "template", b.Template); err != nil {
		return Configuration{}, err
	}
	return Configuration{ID: orEmpty(b.ID), CollectorID: *b.CollectorID, Name: *b.Name, Color: *b.Color, Template: *b.Template}, nil
}

func configurationField(c Configuration, f string) string {
	switch f {
	case "id":
		return c.ID
	case "name":
		return c.Name
	case "collector_id":
		return c.CollectorID
	}
	return ""
}

func (h *Handler) getConfiguration(r *http.Request) (any, error) {
	return h.s.Configuration(r.Context(), api.Var(r, "id"))
}

func (h *Handler) configurationSidecars(r *http.Request) (any, error) {
	id := api.Var(r, "id")
	ids, err := h.s.ConfigurationSidecars(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []string{}
	}
	return map[string]any{"configuration_id": id, "sidecar_ids": ids}, nil
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request) error {
	c, err := h.s.Render(r.Context(), api.Var(r, "sidecarId"), api.Var(r, "configurationId"))
	if err != nil {
		return err
	}
	return cached(w, r, c)
}

func (h *Handler) preview(r *http.Request) (any, error) {
	var body struct {
		Template *string `json:"template"`
	}
	if err := api.Decode(r, &body, true); err != nil {
		return nil, err
	}
	if body.Template == nil {
		return nil, required("template")
	}
	out, err := h.s.Preview(r.Context(), *body.Template)
	var re *renderError
	if errors.As(err, &re) {
		return nil, api.Errorf(api.Invalid, "Could not render template preview: %s", re.msg)
	}
	if err != nil {
		return nil, err
	}
	return map[string]string{"preview": out}, nil
}

// --- Configuration variables ---

type variableBody struct {
	ID          *string `json:"id"`
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Content     *string `json:"content"`
}

var decodeVariable = decodeAs(variableBody.variable)

func (b variableBody) variable() (Variable, error) {
	switch {
	case b.Name == nil:
		return Variable{}, required("name")
	case b.Content == nil:
		return Variable{}, required("content")
	}
	return Variable{ID: orEmpty(b.ID), Name: *b.Name, Description: b.Description, Content: *b.Content}, nil
}

func (h *Handler) listVariables(r *http.Request) (any, error) {
	vs, err := h.s.Variables(r.Context())
	if vs == nil {
		vs = []Variable{}
	}
	return vs, err
}

func (h *Handler) variableConfigurations(r *http.Request) (any, error) {
	v, err := h.s.Variable(r.Context(), api.Var(r, "id"))
	if err != nil {
		return nil, err
	}
	return h.s.VariableConfigurations(r.Context(), v)
}

func (h *Handler) validateVariable(r *http.Request) (any, error) {
	v, err := decodeVariable(r)
	if err != nil {
		return nil, err
	}
	return h.s.ValidateVariable(r.Context(), v.ID, v)
}

func (h *Handler) createVariable(r *http.Request) (any, error) {
	v, err := decodeVariable(r)
	if err != nil {
		return nil, err
	}
	return h.s.SaveVariable(r.Context(), "", v)
}

func (h *Handler) updateVariable(r *http.Request) (any, error) {
	v, err := decodeVariable(r)
	if err != nil {
		return nil, err
	}
	return h.s.SaveVariable(r.Context(), api.Var(r, "id"), v)
}

// --- Administration and actions ---

func (h *Handler) administration(r *http.Request) (any, error) {
	var body struct {
		Page    int               `json:"page"`
		PerPage int               `json:"per_page"`
		Query   *string           `json:"query"`
		Filters map[string]string `json:"filters"`
	}
	if err := api.Decode(r, &body, true); err != nil {
		return nil, err
	}
	if body.Page == 0 {
		body.Page = 1
	}
	if body.PerPage == 0 {
		body.PerPage = 50
	}
	if body.Page < 0 || body.PerPage < 0 {
		return nil, api.Errorf(api.Invalid, "Invalid page or per_page; they must be whole numbers of at least 1")
	}
	if body.Query == nil {
		body.Query = new(string)
	}
	if body.Filters == nil {
		body.Filters = map[string]string{}
	}
	q, err := sidecarQuery(*body.Query)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	filter, compatible, err := h.adminFilters(r, body.Filters)
	if err != nil {
		return nil, err
	}
	scs, err := h.s.Sidecars(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := h.s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	total := len(scs)
	scs = slices.DeleteFunc(scs, func(sc Sidecar) bool { return !filter(sc) })
	page := api.Page{Page: body.Page, PerPage: body.PerPage, Query: *body.Query, Sort: "node_name", Order: "asc"}
	items, matched := api.PageOf(scs, page, q, sidecarField)
	out := make([]Summary, 0, len(items))
	for _, sc := range items {
		sum := sc.summary(h.s.active(sc, settings))
		sum.Collectors = []string{}
		for _, c := range compatible {
			if strings.EqualFold(c.NodeOperatingSystem, sc.NodeDetails.OperatingSystem) {
				sum.Collectors = append(sum.Collectors, c.ID)
			}
		}
		// As in Graylog, a filtered listing leaves out the Sidecars no
		// collector of the filter may run on (after paginating).
		if len(body.Filters) > 0 && len(sum.Collectors) == 0 {
			continue
		}
		out = append(out, sum)
	}
	sort, order := "node_name", "asc"
	return sidecarList{Query: body.Query, Pagination: Pagination{Total: matched, Count: len(items), Page: body.Page, PerPage: body.PerPage},
		Total: total, Sort: &sort, Order: &order, Sidecars: out, Filters: body.Filters}, nil
}

// adminFilters reads the administration filters (collector, configuration,
// os, status; all must match) and the collectors whose ids the answer
// lists, as Graylog's AdministrationFiltersFactory and getCollectors do.
func (h *Handler) adminFilters(r *http.Request, filters map[string]string) (func(Sidecar) bool, []Collector, error) {
	ctx := r.Context()
	var preds []func(Sidecar) bool
	var ids []string
	for name, value := range filters {
		switch strings.ToLower(name) {
		case "collector":
			c, err := h.s.Collector(ctx, value)
			if err != nil {
				return nil, nil, err
			}
			preds = append(preds, func(sc Sidecar) bool { return strings.EqualFold(c.NodeOperatingSystem, sc.NodeDetails.OperatingSystem) })
			if !slices.Contains(ids, value) {
				ids = append(ids, value)
			}
		case "configuration":
			conf, err := h.s.Configuration(ctx, value)
			if err != nil {
				return nil, nil, err
			}
			preds = append(preds, func(sc Sidecar) bool {
				return slices.ContainsFunc(sc.Assignments, func(a Assignment) bool { return a.ConfigurationID == value })
			})
			if !slices.Contains(ids, conf.CollectorID) {
				ids = append(ids, conf.CollectorID)
			}
		case "os":
			preds = append(preds, func(sc Sidecar) bool { return strings.EqualFold(sc.NodeDetails.OperatingSystem, value) })
		case "status":
			code, err := strconv.Atoi(value)
			if err != nil {
				return nil, nil, api.Errorf(api.Invalid, "Invalid status filter %q; it must be a status code", value)
			}
			want := statusOf(code)
			preds = append(preds, func(sc Sidecar) bool {
				st := sc.NodeDetails.Status
				if st == nil {
					return want == StatusUnknown
				}
				return slices.ContainsFunc(st.Collectors, func(c CollectorStatus) bool { return statusOf(c.Status) == want })
			})
		default:
			return nil, nil, api.Errorf(api.Invalid, "Invalid filter %q; use collector, configuration, os or status", name)
		}
	}
	var compatible []Collector
	switch len(ids) {
	case 0:
		all, err := h.s.Collectors(ctx)
		if err != nil {
			return nil, nil, err
		}
		compatible = all
	case 1:
		c, err := h.s.Collector(ctx, ids[0])
		if err != nil {
			return nil, nil, err
		}
		compatible = []Collector{c}
	}
	return func(sc Sidecar) bool {
		for _, p := range preds {
			if !p(sc) {
				return false
			}
		}
		return true
	}, compatible, nil
}

// actionNames are the actions a Sidecar carries out on a collector.
var actionNames = []string{"start", "stop", "restart"}

func (h *Handler) bulkAction(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Action     *string      `json:"action"`
		Collectors []BulkAction `json:"collectors"`
	}
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	switch {
	case body.Action == nil:
		return required("action")
	case !slices.Contains(actionNames, *body.Action):
		return api.Errorf(api.Invalid, "Invalid action %q; use start, stop or restart", *body.Action)
	case body.Collectors == nil:
		return required("collectors")
	}
	n := 0
	for _, b := range body.Collectors {
		if b.SidecarID == "" || b.CollectorIDs == nil {
			return required("sidecar_id and collector_ids")
		}
		n += len(b.CollectorIDs)
	}
	if err := checkLen("Sidecars", len(body.Collectors)); err != nil {
		return err
	}
	if err := checkLen("collectors", n); err != nil {
		return err
	}
	if err := h.s.AddBulkAction(r.Context(), *body.Action, body.Collectors); err != nil {
		return err
	}
	accepted(w)
	return nil
}

func (h *Handler) getActions(r *http.Request) (any, error) {
	return h.s.PendingActions(r.Context(), api.Var(r, "sidecarId"))
}

func (h *Handler) setActions(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "sidecarId")
	if len(id) > maxIDLength {
		return api.Errorf(api.Invalid, "Sidecar id is longer than %d bytes", maxIDLength)
	}
	var actions []Action
	if err := api.Decode(r, &actions, true); err != nil {
		return err
	}
	if actions == nil {
		return required("the list of actions")
	}
	if err := checkLen("actions", len(actions)); err != nil {
		return err
	}
	for _, a := range actions {
		if a.CollectorID == "" || a.Properties == nil {
			return required("collector_id and properties")
		}
	}
	if err := h.s.AddActions(r.Context(), id, actions); err != nil {
		return err
	}
	accepted(w)
	return nil
}

// The handlers collectors and configurations share: each decodes its own
// document and calls its own service method.

// validating answers a document's validation.
func validating[T any](decode func(*http.Request) (T, error), validate func(context.Context, T) (*ValidationResult, error)) func(*http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		v, err := decode(r)
		if err != nil {
			return nil, err
		}
		return validate(r.Context(), v)
	}
}

// saving creates a document (byID false) or updates the one the path's id
// names.
func saving[T, R any](decode func(*http.Request) (T, error), save func(context.Context, string, T) (R, error), byID bool) func(*http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		v, err := decode(r)
		if err != nil {
			return nil, err
		}
		id := ""
		if byID {
			id = api.Var(r, "id")
		}
		return save(r.Context(), id, v)
	}
}

// copying copies the path's id to the path's name, answering 202.
func copying(copyTo func(ctx context.Context, id, name string) error) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := copyTo(r.Context(), api.Var(r, "id"), api.Var(r, "name")); err != nil {
			return err
		}
		accepted(w)
		return nil
	}
}

// deleting deletes the path's id: 202, or 304 for an unknown one, as
// Graylog answers.
func deleting(del func(ctx context.Context, id string) (bool, error)) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		deleted, err := del(r.Context(), api.Var(r, "id"))
		if err != nil {
			return err
		}
		if !deleted {
			notModified(w)
			return nil
		}
		accepted(w)
		return nil
	}
}

func (h *Handler) collectorSummary(r *http.Request) (any, error) {
	return summaries(r, "collectors", h.s.Collectors, collectorField,
		[]string{"name", "name", "id", "node_operating_system", "service_type"}, []string{"name", "id", "name", "operating_system"},
		func(c Collector) CollectorSummary {
			return CollectorSummary{ID: c.ID, Name: c.Name, ServiceType: c.ServiceType, NodeOperatingSystem: c.NodeOperatingSystem}
		})
}

func (h *Handler) listConfigurations(r *http.Request) (any, error) {
	return summaries(r, "configurations", h.s.Configurations, configurationField,
		[]string{"name", "name", "id", "collector_id"}, []string{"name", "id", "collector_id", "name"},
		func(c Configuration) ConfigurationSummary {
			return ConfigurationSummary{ID: c.ID, Name: c.Name, CollectorID: c.CollectorID, Color: c.Color}
		})
}

// summaries is a page of collectors or configurations, Graylog's
// paginated answer with the summaries under key: sorts and fields are the
// default sort and the sort fields, the default query field and the query
// fields.
func summaries[T, S any](r *http.Request, key string, all func(context.Context) ([]T, error), field func(T, string) string,
	sorts, fields []string, summary func(T) S) (any, error) {
	page, err := api.ParsePage(r, sorts[0], sorts[1:]...)
	if err != nil {
		return nil, err
	}
	q, err := api.ParseQuery(page.Query, fields[0], fields[1:]...)
	if err != nil {
		return nil, err
	}
	list, err := all(r.Context())
	if err != nil {
		return nil, err
	}
	items, matched := api.PageOf(list, page, q, field)
	out := make([]S, len(items))
	for i, v := range items {
		out[i] = summary(v)
	}
	return map[string]any{
		"query": page.Query, "pagination": Pagination{matched, len(out), page.Page, page.PerPage}, "total": len(list),
		"sort": page.Sort, "order": page.Order, key: out,
	}, nil
}
