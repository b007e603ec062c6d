package grok

import (
	"math"
	"mime"
	"net/http"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/grok.
type Handler struct {
	s *Service
}

// NewHandler returns the /system/grok resource.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

// Request body examples for the API browser.
const (
	patternExample = `{"name":"NGINX_STATUS","pattern":"%{NUMBER:status:int}"}`
	listExample    = `{"patterns":[{"name":"NGINX_STATUS","pattern":"%{NUMBER:status:int}"}]}`
	testExample    = `{"grok_pattern":{"name":"CLIENT","pattern":"%{IPORHOST:client} %{WORD:verb}"},"sampleData":"10.0.0.1 GET"}`
)

// Routes returns the /system/grok routes. The literal paths come before
// /system/grok/{patternId}, which would otherwise take them.
func (h *Handler) Routes() []api.Route {
	routes := h.routes()
	for i := range routes {
		next := routes[i].Handler
		routes[i].Handler = func(w http.ResponseWriter, r *http.Request) error {
			// See the other nodes' changes first.
			if err := h.s.Refresh(r.Context()); err != nil {
				return err
			}
			return next(w, r)
		}
	}
	return routes
}

func (h *Handler) routes() []api.Route {
	replace := []string{"replace"}
	return []api.Route{
		{Method: "GET", Path: "/system/grok", Summary: "Get all existing grok patterns", Permission: "inputs:read",
			Successor: "/system/grok/paginated", Handler: api.JSON(h.list)},
		{Method: "GET", Path: "/system/grok/paginated", Summary: "Get existing grok patterns paged", Permission: "inputs:read",
			Query: api.PageQuery, Handler: h.page},
		{Method: "POST", Path: "/system/grok/test", Summary: "Test pattern with sample data",
			Body: testExample, Handler: api.JSON(h.test)},
		{Method: "GET", Path: "/system/grok/{patternId}", Summary: "Get the existing grok pattern", Permission: "inputs:read",
			Handler: api.JSON(h.get)},
		{Method: "POST", Path: "/system/grok", Consumes: []string{"text/plain"}, Summary: "Add a new named pattern; with Content-Type text/plain, add the patterns of a patterns file",
			Permission: "inputs:create", Query: replace, Body: patternExample, Handler: h.create},
		{Method: "PUT", Path: "/system/grok", Summary: "Add a list of new patterns", Permission: "inputs:create",
			Query: replace, Body: listExample, Handler: h.bulk},
		{Method: "PUT", Path: "/system/grok/{patternId}", Summary: "Update an existing pattern", Permission: "inputs:edit",
			Body: patternExample, Handler: api.JSON(h.update)},
		{Method: "DELETE", Path: "/system/grok/{patternId}", Summary: "Remove an existing pattern by id", Permission: "inputs:edit",
			Handler: h.delete},
	}
}

// patternBody is a GrokPattern as clients send it. The web interface sends
// the id with every save; Graylog's model reads it as _id too.
type patternBody struct {
	ID          string  `json:"id"`
	MongoID     string  `json:"_id"`
	Name        string  `json:"name"`
	Pattern     string  `json:"pattern"`
	ContentPack *string `json:"content_pack"`
}

func (b patternBody) pattern() Pattern {
	id := b.ID
	if id == "" {
		id = b.MongoID
	}
	return Pattern{ID: id, Name: b.Name, Pattern: b.Pattern, ContentPack: b.ContentPack}
}

func (h *Handler) list(r *http.Request) (any, error) {
	return map[string][]Pattern{"patterns": h.s.All()}, nil
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) error {
	page, err := api.ParsePage(r, "name", "name", "pattern", "id")
	if err != nil {
		return err
	}
	q, err := api.ParseQuery(page.Query, "name", "name", "pattern")
	if err != nil {
		return err
	}
	all := h.s.All()
	items, total := api.PageOf(all, page, q, field)
	grand := len(all)
	api.WriteJSON(w, http.StatusOK, api.Listing{
		Key: "patterns", Items: items, Count: len(items), Total: total, GrandTotal: &grand, Page: page,
	}.Body())
	return nil
}

// field returns a pattern's value of a searchable or sortable field.
func field(p Pattern, name string) string {
	switch name {
	case "name":
		return p.Name
	case "pattern":
		return p.Pattern
	case "id":
		return p.ID
	}
	return ""
}

func (h *Handler) get(r *http.Request) (any, error) {
	p, err := h.s.Get(api.Var(r, "patternId"))
	if err != nil {
		return nil, err
	}
	return p, nil
}

// create adds one pattern from JSON, or imports a patterns file sent as
// text/plain: Graylog serves both on POST /system/grok by media type.
func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	switch mediaType(r) {
	case "text/plain":
		return h.importFile(w, r)
	case "application/json", "":
	default:
		return api.Errorf(api.Unsupported, "HTTP 415 Unsupported Media Type")
	}
	var body patternBody
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	p := body.pattern()
	p.ID = "" // only ever used to create new patterns
	saved, err := h.s.Create(r.Context(), p)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/system/grok/"+saved.ID))
	api.WriteJSON(w, http.StatusCreated, saved)
	return nil
}

func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "invalid"
	}
	return mt
}

// replaceParam reads ?replace as Jersey reads a boolean: "true" in any case
// is true, anything else false.
func replaceParam(r *http.Request) bool {
	return strings.EqualFold(r.URL.Query().Get("replace"), "true")
}

func (h *Handler) importFile(w http.ResponseWriter, r *http.Request) error {
	file, err := api.ReadBody(r)
	if err != nil {
		return err
	}
	// An empty file changes nothing, even with replace, as in Graylog.
	if ps := ParsePatternsFile(file); len(ps) > 0 {
		if err := h.s.Import(r.Context(), ps, replaceParam(r)); err != nil {
			return err
		}
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

type listBody struct {
	Patterns []patternBody `json:"patterns"`
}

func (h *Handler) bulk(w http.ResponseWriter, r *http.Request) error {
	var body listBody
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	ps := make([]Pattern, len(body.Patterns))
	for i, b := range body.Patterns {
		ps[i] = b.pattern()
	}
	if err := h.s.Import(r.Context(), ps, replaceParam(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (h *Handler) update(r *http.Request) (any, error) {
	var body patternBody
	if err := api.Decode(r, &body, true); err != nil {
		return nil, err
	}
	saved, err := h.s.Update(r.Context(), api.Var(r, "patternId"), body.pattern())
	if err != nil {
		return nil, err
	}
	return saved, nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.Delete(r.Context(), api.Var(r, "patternId")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

// testBody is Graylog's GrokPatternTestRequest; note the camelCase
// sampleData.
type testBody struct {
	GrokPattern *patternBody `json:"grok_pattern"`
	SampleData  *string      `json:"sampleData"`
}

// test matches sample data against an unsaved pattern and answers the
// captures: an empty object when the data does not match.
func (h *Handler) test(r *http.Request) (any, error) {
	var body testBody
	if err := api.Decode(r, &body, true); err != nil {
		return nil, err
	}
	// Graylog's model refuses both as null.
	switch {
	case body.GrokPattern == nil:
		return nil, api.Errorf(api.Invalid, "grok_pattern is mandatory")
	case body.SampleData == nil:
		return nil, api.Errorf(api.Invalid, "sampleData is mandatory")
	}
	m, err := h.s.CompileUnsaved(body.GrokPattern.pattern())
	if err != nil {
		return nil, err
	}
	captures := m.Match(*body.SampleData)
	for k, v := range captures {
		// JSON cannot encode NaN or an infinity (a float capture of
		// "NaN"); Jackson writes them as Java spells them, in quotes.
		if f, ok := v.(float64); ok {
			switch {
			case math.IsNaN(f):
				captures[k] = "NaN"
			case math.IsInf(f, 1):
				captures[k] = "Infinity"
			case math.IsInf(f, -1):
				captures[k] = "-Infinity"
			}
		}
	}
	return captures, nil
}
