package apibrowser

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// swaggerVersion is the Swagger version Graylog's /api-docs emulates.
const swaggerVersion = "1.2"

// The Swagger 1.2 shapes of Graylog 4.0's /api-docs (its Generator class).
type (
	resourceListing struct {
		APIVersion     string        `json:"apiVersion"`
		SwaggerVersion string        `json:"swaggerVersion"`
		APIs           []listedGroup `json:"apis"`
	}
	listedGroup struct {
		Name        string `json:"name"`
		Path        string `json:"path"`
		Description string `json:"description"`
	}
	resourceDoc struct {
		APIs           []swaggerAPI   `json:"apis"`
		BasePath       string         `json:"basePath"`
		Models         map[string]any `json:"models"`
		ResourcePath   string         `json:"resourcePath"`
		APIVersion     string         `json:"apiVersion"`
		SwaggerVersion string         `json:"swaggerVersion"`
	}
	swaggerAPI struct {
		Path       string             `json:"path"`
		Operations []swaggerOperation `json:"operations"`
	}
	swaggerOperation struct {
		Method           string             `json:"method"`
		Summary          string             `json:"summary"`
		Notes            string             `json:"notes"`
		Nickname         string             `json:"nickname"`
		Parameters       []swaggerParameter `json:"parameters"`
		ResponseMessages []responseMessage  `json:"responseMessages"`
		// Deprecated is a string in Swagger 1.2.
		Deprecated string `json:"deprecated,omitempty"`
	}
	swaggerParameter struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		Required     bool            `json:"required"`
		ParamType    string          `json:"paramType"`
		Type         string          `json:"type"`
		DefaultValue json.RawMessage `json:"defaultValue,omitempty"`
	}
	responseMessage struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
)

// listing returns the resource listing, sorted by name as Graylog sorts it.
func listing(m *model, version string) resourceListing {
	l := resourceListing{APIVersion: version, SwaggerVersion: swaggerVersion, APIs: []listedGroup{}}
	for _, g := range m.groups {
		l.APIs = append(l.APIs, listedGroup{Name: g.name, Path: g.path, Description: g.description()})
	}
	return l
}

// resource returns one resource's operations, or false when route names
// none. route is the path after /api-docs/; Graylog's "global/" prefix (the
// cluster-global browser) names the same resources.
func resource(m *model, route, version, basePath string) (resourceDoc, bool) {
	route = strings.Trim(strings.TrimPrefix(strings.TrimPrefix(route, "/"), "global/"), "/")
	g := m.byPath["/"+route]
	if g == nil || route == "" {
		return resourceDoc{}, false
	}
	doc := resourceDoc{
		APIs: []swaggerAPI{}, BasePath: basePath, Models: map[string]any{},
		ResourcePath: g.path, APIVersion: version, SwaggerVersion: swaggerVersion,
	}
	for _, op := range g.ops {
		path := op.tpl.String()
		if n := len(doc.APIs); n == 0 || doc.APIs[n-1].Path != path {
			doc.APIs = append(doc.APIs, swaggerAPI{Path: path})
		}
		api := &doc.APIs[len(doc.APIs)-1]
		api.Operations = append(api.Operations, swaggerOp(op))
	}
	return doc, true
}

func swaggerOp(op *operationInfo) swaggerOperation {
	r := op.route
	o := swaggerOperation{
		Method: r.Method, Summary: r.Summary, Notes: op.description(), Nickname: op.id,
		Parameters: []swaggerParameter{}, ResponseMessages: []responseMessage{},
	}
	if r.IsDeprecated() {
		o.Deprecated = "true"
	}
	for _, v := range op.tpl.vars() {
		p := swaggerParameter{Name: v.name, Required: true, ParamType: "path", Type: "string"}
		if v.pattern != "" {
			p.Description = "Matches " + v.pattern
		}
		o.Parameters = append(o.Parameters, p)
	}
	for _, q := range r.Query {
		o.Parameters = append(o.Parameters, swaggerParameter{Name: q, ParamType: "query", Type: querySchema(q).Type})
	}
	if r.Body != "" {
		p := swaggerParameter{Name: "JSON body", Required: true, ParamType: "body", Type: "string"}
		// Swagger UI 1.x fills the body field from defaultValue.
		p.DefaultValue, _ = api.Marshal(r.Body)
		o.Parameters = append(o.Parameters, p)
	}
	for _, code := range op.errorStatuses() {
		msg := errorResponses[code].text
		if code == http.StatusForbidden {
			msg = "Not authorized: the permission " + r.Permission + " is missing"
		}
		o.ResponseMessages = append(o.ResponseMessages, responseMessage{Code: code, Message: msg})
	}
	return o
}
