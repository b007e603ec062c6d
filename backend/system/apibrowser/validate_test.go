package apibrowser_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// The parts of an OpenAPI 3.0 document the tests read.
type (
	oaDoc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"info"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Tags []struct {
			Name string `json:"name"`
		} `json:"tags"`
		Paths      map[string]map[string]oaOp `json:"paths"`
		Components struct {
			Schemas         map[string]json.RawMessage `json:"schemas"`
			Responses       map[string]oaResponse      `json:"responses"`
			SecuritySchemes map[string]struct {
				Type   string `json:"type"`
				Scheme string `json:"scheme"`
			} `json:"securitySchemes"`
		} `json:"components"`
	}
	oaOp struct {
		OperationID  string        `json:"operationId"`
		Summary      string        `json:"summary"`
		Description  string        `json:"description"`
		Tags         []string      `json:"tags"`
		Parameters   []oaParameter `json:"parameters"`
		RequestBody  *oaBody       `json:"requestBody"`
		Responses    map[string]oaResponse
		Deprecated   bool                  `json:"deprecated"`
		Security     []map[string][]string `json:"security"`
		Permission   string                `json:"x-permission"`
		PathTemplate string                `json:"x-path-template"`
	}
	oaParameter struct {
		Name     string `json:"name"`
		In       string `json:"in"`
		Required bool   `json:"required"`
		Schema   struct {
			Type    string   `json:"type"`
			Pattern string   `json:"pattern"`
			Enum    []string `json:"enum"`
			Minimum *int     `json:"minimum"`
		} `json:"schema"`
	}
	oaBody struct {
		Required bool `json:"required"`
		Content  map[string]struct {
			Example json.RawMessage `json:"example"`
		} `json:"content"`
	}
	oaResponse struct {
		Ref         string `json:"$ref"`
		Description string `json:"description"`
		Content     map[string]struct {
			Schema struct {
				Ref string `json:"$ref"`
			} `json:"schema"`
		} `json:"content"`
	}
)

var (
	placeholder = regexp.MustCompile(`\{([^{}]*)\}`)
	methods     = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}
)

// validateOpenAPI decodes an OpenAPI document and checks the structural rules
// of OpenAPI 3.0 that tools depend on.
func validateOpenAPI(t *testing.T, body []byte) oaDoc {
	t.Helper()
	var doc oaDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("the OpenAPI document does not parse: %v", err)
	}
	if doc.OpenAPI != "3.0.3" || doc.Info.Title == "" || doc.Info.Version == "" {
		t.Errorf("openapi %q, title %q, version %q: want 3.0.3 and both set", doc.OpenAPI, doc.Info.Title, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/api" {
		t.Errorf("servers %+v, want one with url /api", doc.Servers)
	}
	tags := map[string]bool{}
	for _, tag := range doc.Tags {
		tags[tag.Name] = true
	}
	ids := map[string]string{}
	shapes := map[string]string{}
	for path, item := range doc.Paths {
		if !strings.HasPrefix(path, "/") || strings.Contains(path, ":") {
			t.Errorf("path %q is not an absolute path without patterns", path)
		}
		shape := placeholder.ReplaceAllString(path, "{}")
		if other, dup := shapes[shape]; dup {
			t.Errorf("paths %q and %q are identical to OpenAPI", path, other)
		}
		shapes[shape] = path
		inPath := map[string]bool{}
		for _, m := range placeholder.FindAllStringSubmatch(path, -1) {
			inPath[m[1]] = true
		}
		for method, op := range item {
			where := method + " " + path
			if !methods[method] {
				t.Errorf("%s: not an HTTP method", where)
			}
			if op.OperationID == "" {
				t.Errorf("%s: no operationId", where)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("%s: operationId %q is also %s's", where, op.OperationID, other)
			}
			ids[op.OperationID] = where
			if len(op.Responses) == 0 {
				t.Errorf("%s: no responses", where)
			}
			for code, r := range op.Responses {
				if r.Ref != "" {
					shared, ok := doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
					if !ok {
						t.Errorf("%s: response %s refers to the missing %s", where, code, r.Ref)
					}
					r = shared
				}
				if r.Description == "" {
					t.Errorf("%s: response %s has no description", where, code)
				}
				for _, c := range r.Content {
					if ref := c.Schema.Ref; ref != "" && doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")] == nil {
						t.Errorf("%s: response %s refers to the missing %s", where, code, ref)
					}
				}
			}
			if len(op.Tags) == 0 {
				t.Errorf("%s: no tags", where)
			}
			for _, tag := range op.Tags {
				if !tags[tag] {
					t.Errorf("%s: tag %q is not declared", where, tag)
				}
			}
			for _, req := range op.Security {
				for scheme := range req {
					if _, ok := doc.Components.SecuritySchemes[scheme]; !ok {
						t.Errorf("%s: security scheme %q is not declared", where, scheme)
					}
				}
			}
			declared := map[string]bool{}
			for _, p := range op.Parameters {
				if declared[p.In+" "+p.Name] {
					t.Errorf("%s: parameter %s in %s declared twice", where, p.Name, p.In)
				}
				declared[p.In+" "+p.Name] = true
				if p.Schema.Type == "" {
					t.Errorf("%s: parameter %s has no type", where, p.Name)
				}
				if p.In == "path" && (!p.Required || !inPath[p.Name]) {
					t.Errorf("%s: path parameter %s is not a required placeholder of the path", where, p.Name)
				}
			}
			for name := range inPath {
				if !declared["path "+name] {
					t.Errorf("%s: path parameter %s is not declared", where, name)
				}
			}
			if op.RequestBody != nil {
				for mt, c := range op.RequestBody.Content {
					if mt == "application/json" && !json.Valid(c.Example) {
						t.Errorf("%s: the body example %s is not JSON", where, c.Example)
					}
				}
			}
		}
	}
	return doc
}
