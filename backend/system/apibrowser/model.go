package apibrowser

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/loggate/loggate/router/api"
)

// model is the route table arranged for documentation: one operation per
// route that the router can serve, grouped into resources.
type model struct {
	ops    []*operationInfo // in table order
	groups []*group         // sorted by name
	byPath map[string]*group
}

// operationInfo is one documented route.
type operationInfo struct {
	route api.Route
	tpl   template
	// key is the template the operation is documented under: routes whose
	// templates differ only in variable names (PUT /users/{userId}, DELETE
	// /users/{username}) share one OpenAPI path, which OpenAPI requires, and
	// take the variable names of the lexically smallest of them.
	key   template
	group *group
	id    string // operationId and Swagger 1.2 nickname
}

// group is a resource: the routes under one path prefix, Graylog's unit of
// API documentation (one JAX-RS resource class, one @Api name).
type group struct {
	path string // "/system/sessions"
	name string // "System/Sessions"
	ops  []*operationInfo
}

// description says what the resource holds, for the Swagger listing and the
// OpenAPI tags.
func (g *group) description() string {
	if len(g.ops) == 1 {
		return "1 operation under " + g.path
	}
	return strconv.Itoa(len(g.ops)) + " operations under " + g.path
}

// namespaces are first path segments under which Graylog 4.0 mounts many
// resources of their own (System/Sessions, System/Grok, Cluster/Loggers,
// Authorization/Roles…); under them the resource is named by two segments.
var namespaces = map[string]bool{
	"authz": true, "cluster": true, "events": true, "legacy": true, "plugins": true,
	"scheduler": true, "search": true, "sidecar": true, "system": true, "views": true,
}

// newModel documents routes. A route whose template mux cannot parse is left
// out, as mux cannot serve it; a route shadowed by an earlier one of the same
// method and shape is left out, as mux serves only the first.
func newModel(routes []api.Route) *model {
	m := &model{byPath: map[string]*group{}}
	keys := map[string]template{}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, r := range routes {
		tpl, err := parseTemplate(r.Path)
		if err != nil {
			continue
		}
		shape := tpl.shape()
		if seen[r.Method+" "+shape] {
			continue
		}
		seen[r.Method+" "+shape] = true
		if k, ok := keys[shape]; !ok || tpl.String() < k.String() {
			keys[shape] = tpl
		}
		op := &operationInfo{route: r, tpl: tpl, id: operationID(r.Method, tpl)}
		for n, base := 2, op.id; ids[op.id]; n++ {
			op.id = base + strconv.Itoa(n)
		}
		ids[op.id] = true
		path, name := groupOf(tpl)
		g := m.byPath[path]
		if g == nil {
			g = &group{path: path, name: name}
			m.byPath[path] = g
			m.groups = append(m.groups, g)
		}
		op.group = g
		g.ops = append(g.ops, op)
		m.ops = append(m.ops, op)
	}
	for _, op := range m.ops {
		op.key = keys[op.tpl.shape()]
	}
	slices.SortFunc(m.groups, func(a, b *group) int { return strings.Compare(a.name, b.name) })
	for _, g := range m.groups {
		slices.SortStableFunc(g.ops, func(a, b *operationInfo) int {
			if c := strings.Compare(a.tpl.String(), b.tpl.String()); c != 0 {
				return c
			}
			return methodRank(a.route.Method) - methodRank(b.route.Method)
		})
	}
	return m
}

// methodRank orders operations on one path as readers expect them.
func methodRank(m string) int {
	switch m {
	case http.MethodGet:
		return 0
	case http.MethodPost:
		return 1
	case http.MethodPut:
		return 2
	case http.MethodPatch:
		return 3
	case http.MethodDelete:
		return 4
	}
	return 5
}

// groupOf names the resource a template belongs to: its first literal
// segment, or its first two under a namespace (see namespaces). The API root
// is Graylog's "Hello World" resource.
func groupOf(t template) (path, name string) {
	segs := t.segments
	if len(segs) == 0 || (len(segs) == 1 && segs[0].text == "") {
		return "/", "Hello World"
	}
	if !segs[0].literal {
		return "/", "Hello World"
	}
	n := 1
	if namespaces[segs[0].text] && len(segs) > 1 && segs[1].literal && segs[1].text != "" {
		n = 2
	}
	var p, names []string
	for _, s := range segs[:n] {
		p = append(p, s.text)
		names = append(names, camel(s.text))
	}
	return "/" + strings.Join(p, "/"), strings.Join(names, "/")
}

// camel joins the words of s, each capitalised: "cluster_config" gives
// "ClusterConfig".
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		b.WriteString(upperFirst(w))
	}
	return b.String()
}

func upperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// operationID derives a readable identifier from the method and the path:
// GET /users/{userId}/tokens gives getUsersByUserIdTokens.
func operationID(method string, t template) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	if len(t.segments) == 0 {
		b.WriteString("Root")
	}
	for _, s := range t.segments {
		text := s.text
		for _, v := range s.vars {
			text = strings.Replace(text, "{"+v.name+"}", " by "+v.name+" ", 1)
		}
		b.WriteString(camel(text))
	}
	return b.String()
}

// description is the human text of an operation: who may call it and what
// replaces it when it is deprecated.
func (op *operationInfo) description() string {
	r := op.route
	var parts []string
	switch {
	case r.Public:
		parts = append(parts, "No authentication required.")
	case r.Permission == "":
		parts = append(parts, "Requires an authenticated user.")
	case r.StaticPermission():
		parts = append(parts, "Requires the permission "+r.Permission+".")
	default:
		parts = append(parts, "Requires the permission "+r.Permission+" for the entity the request names.")
	}
	switch {
	case r.Successor != "":
		parts = append(parts, "Deprecated: use "+r.Successor+" instead.")
	case r.Deprecated:
		parts = append(parts, "Deprecated: to be removed in a future version.")
	}
	if r.Compat != "" {
		parts = append(parts, r.Compat)
	}
	return strings.Join(parts, " ")
}

// errorStatuses lists the error statuses an operation can answer with,
// derived from what the router and the api package do with its declaration.
func (op *operationInfo) errorStatuses() []int {
	r := op.route
	var out []int
	if r.Body != "" || len(r.Query) > 0 {
		out = append(out, http.StatusBadRequest)
	}
	if !r.Public {
		out = append(out, http.StatusUnauthorized)
		if r.Permission != "" {
			out = append(out, http.StatusForbidden)
		}
	}
	if len(op.tpl.vars()) > 0 {
		out = append(out, http.StatusNotFound)
	}
	return out
}

// errorResponses name and describe the statuses of errorStatuses.
var errorResponses = map[int]struct{ name, text string }{
	http.StatusBadRequest:   {"BadRequest", "Invalid request body or parameter"},
	http.StatusUnauthorized: {"Unauthorized", "Missing or wrong credentials"},
	http.StatusForbidden:    {"Forbidden", "Not authorized: the caller lacks the permission of the operation"},
	http.StatusNotFound:     {"NotFound", "Not found"},
}
