package apibrowser

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The OpenAPI 3.0.3 document. Only the parts loggate fills are modelled;
// encoding/json sorts map keys, so the output is deterministic.
type (
	openAPIDoc struct {
		OpenAPI    string              `json:"openapi"`
		Info       openAPIInfo         `json:"info"`
		Servers    []openAPIServer     `json:"servers"`
		Tags       []openAPITag        `json:"tags"`
		Paths      map[string]pathItem `json:"paths"`
		Components components          `json:"components"`
	}
	openAPIInfo struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Version     string `json:"version"`
	}
	openAPIServer struct {
		URL string `json:"url"`
	}
	openAPITag struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	// pathItem maps lower-case methods to operations.
	pathItem  map[string]*operation
	operation struct {
		OperationID string                `json:"operationId"`
		Summary     string                `json:"summary,omitempty"`
		Description string                `json:"description"`
		Tags        []string              `json:"tags"`
		Parameters  []parameter           `json:"parameters,omitempty"`
		RequestBody *requestBody          `json:"requestBody,omitempty"`
		Responses   map[string]response   `json:"responses"`
		Deprecated  bool                  `json:"deprecated,omitempty"`
		Security    []map[string][]string `json:"security,omitempty"`
		Permission  string                `json:"x-permission,omitempty"`
		// PathTemplate is the route's own template when the operation is
		// documented under a path whose variables are named differently.
		PathTemplate string `json:"x-path-template,omitempty"`
	}
	parameter struct {
		Name        string `json:"name"`
		In          string `json:"in"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required"`
		Schema      schema `json:"schema"`
	}
	schema struct {
		Type       string            `json:"type,omitempty"`
		Pattern    string            `json:"pattern,omitempty"`
		Minimum    *int              `json:"minimum,omitempty"`
		Enum       []string          `json:"enum,omitempty"`
		Properties map[string]schema `json:"properties,omitempty"`
		Items      *schema           `json:"items,omitempty"`
		Ref        string            `json:"$ref,omitempty"`
	}
	requestBody struct {
		Required bool                 `json:"required"`
		Content  map[string]mediaType `json:"content"`
	}
	mediaType struct {
		Schema  schema `json:"schema"`
		Example any    `json:"example,omitempty"`
	}
	// response is a Response Object, or a Reference Object when Ref is set.
	response struct {
		Ref         string               `json:"$ref,omitempty"`
		Description string               `json:"description,omitempty"`
		Content     map[string]mediaType `json:"content,omitempty"`
	}
	components struct {
		Schemas         map[string]schema         `json:"schemas"`
		Responses       map[string]response       `json:"responses"`
		SecuritySchemes map[string]securityScheme `json:"securitySchemes"`
	}
	securityScheme struct {
		Type        string `json:"type"`
		Scheme      string `json:"scheme"`
		Description string `json:"description"`
	}
)

const (
	jsonType    = "application/json"
	basicScheme = "basicAuth"
)

// openAPI returns the OpenAPI 3.0.3 description of the routes. The server
// URL is relative, so the document holds behind any http_publish_uri.
func openAPI(m *model, version string) openAPIDoc {
	doc := openAPIDoc{
		OpenAPI: "3.0.3",
		Info: openAPIInfo{
			Title:       "loggate API",
			Description: "The Graylog " + version + " compatible REST API of loggate. Requests other than GET, HEAD and OPTIONS need an X-Requested-By header.",
			Version:     version,
		},
		Servers: []openAPIServer{{URL: "/api"}},
		Tags:    []openAPITag{},
		Paths:   map[string]pathItem{},
		Components: components{
			Schemas: map[string]schema{"ApiError": {
				Type: "object",
				Properties: map[string]schema{
					"type":    {Type: "string"},
					"message": {Type: "string"},
				},
			}},
			Responses: errorComponents(),
			SecuritySchemes: map[string]securityScheme{basicScheme: {
				Type: "http", Scheme: "basic",
				Description: "A username and password, an access token with the password \"token\", or a session id with the password \"session\".",
			}},
		},
	}
	for _, g := range m.groups {
		doc.Tags = append(doc.Tags, openAPITag{Name: g.name, Description: g.description()})
	}
	for _, op := range m.ops {
		key := op.key.String()
		item := doc.Paths[key]
		if item == nil {
			item = pathItem{}
			doc.Paths[key] = item
		}
		item[strings.ToLower(op.route.Method)] = openAPIOperation(op)
	}
	return doc
}

// errorComponents are the shared error responses: each has Graylog's
// ApiError body.
func errorComponents() map[string]response {
	out := map[string]response{}
	for _, e := range errorResponses {
		out[e.name] = response{
			Description: e.text,
			Content:     map[string]mediaType{jsonType: {Schema: schema{Ref: "#/components/schemas/ApiError"}}},
		}
	}
	return out
}

func openAPIOperation(op *operationInfo) *operation {
	r := op.route
	o := &operation{
		OperationID: op.id,
		Summary:     r.Summary,
		Description: op.description(),
		Tags:        []string{op.group.name},
		Responses:   map[string]response{"2XX": {Description: "Success"}},
		Deprecated:  r.IsDeprecated(),
		Permission:  r.Permission,
	}
	if !r.Public {
		o.Security = []map[string][]string{{basicScheme: {}}}
	}
	if own := op.tpl.String(); own != op.key.String() {
		o.PathTemplate = own
	}
	own := op.tpl.vars()
	for i, v := range op.key.vars() {
		p := parameter{Name: v.name, In: "path", Required: true, Schema: schema{Type: "string"}}
		if own[i].name != v.name {
			p.Description = "The " + own[i].name + "; this path is shared with routes that name the variable " + v.name + "."
		}
		if own[i].pattern != "" {
			p.Schema.Pattern = "^" + own[i].pattern + "$"
		}
		o.Parameters = append(o.Parameters, p)
	}
	for _, q := range r.Query {
		o.Parameters = append(o.Parameters, parameter{Name: q, In: "query", Schema: querySchema(q)})
	}
	if r.Body != "" {
		o.RequestBody = &requestBody{Required: true, Content: map[string]mediaType{jsonType: bodyMedia(r.Body)}}
	}
	for _, code := range op.errorStatuses() {
		o.Responses[strconv.Itoa(code)] = response{Ref: "#/components/responses/" + errorResponses[code].name}
	}
	return o
}

// querySchema types the parameters of api.ParsePage, which refuses anything
// else; every other query parameter is read as a string.
func querySchema(name string) schema {
	zero, one := 0, 1
	switch name {
	case "page":
		return schema{Type: "integer", Minimum: &one}
	case "per_page": // 0: every item
		return schema{Type: "integer", Minimum: &zero}
	case "order":
		return schema{Type: "string", Enum: []string{"asc", "desc"}}
	}
	return schema{Type: "string"}
}

// bodyMedia describes a request body by its example. An example that is not
// JSON is kept as text rather than dropped, so the browser still shows it.
func bodyMedia(example string) mediaType {
	if !json.Valid([]byte(example)) {
		return mediaType{Schema: schema{}, Example: example}
	}
	var s schema
	switch strings.TrimSpace(example)[0] {
	case '{':
		s.Type = "object"
	case '[':
		s.Type, s.Items = "array", &schema{}
	}
	return mediaType{Schema: s, Example: json.RawMessage(example)}
}
