package compat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/loggate/loggate/rewrite"
	"github.com/loggate/loggate/router/api"
)

// Change is one version change: what the API release Release changed, and
// how to convert an older client's request up and the response back down.
type Change struct {
	// Release is the release that made the change; clients older than it
	// get the change applied.
	Release Release
	// Description is the one line CHANGELOG.md's API section is made from.
	Description string
	// Routes are the requests the change touches.
	Routes []Route
	// Recognise, when set, lets the change apply to clients on the default
	// release whose request is recognisably old (a username where 4.0 wants
	// a user id). It is called only for a matching route; the values come
	// by value so that a request it rejects costs no allocation.
	Recognise func(ctx context.Context, r *http.Request, v Vars) bool
	// Removed says the routes are gone from Release on (and from 4.0, the
	// backend's API). They are still served, but the answer says so in a
	// Warning header and the access log records the call, so that the
	// operator learns who still needs them.
	Removed bool
	// Refuses, when set, reports the routes the change matches only to
	// refuse them as the old release did (a method it never had there);
	// they are left out of the documentation.
	Refuses func(Route) bool
	// Request converts the request up to Release, in place. Nil: unchanged.
	Request func(ctx context.Context, x *Exchange) error
	// Response converts the response body down from Release. Nil: unchanged.
	Response func(ctx context.Context, x *Exchange, body []byte) ([]byte, error)
}

// Route is a method and a path template relative to /api.
type Route struct {
	Method   string
	Template rewrite.Template
}

// R builds a route from "METHOD /path/{var}".
func R(spec string) Route {
	method, path, ok := strings.Cut(spec, " ")
	if !ok {
		panic(fmt.Sprintf("compat: route %q needs a method", spec))
	}
	return Route{Method: method, Template: rewrite.MustTemplate(path)}
}

// Exchange is one request passing through the changes that apply to it.
type Exchange struct {
	Req    *http.Request
	Client Client
	// Vars are the values captured by the route template of the change
	// being applied.
	Vars Vars
	// Route is the route of the change being applied.
	Route Route
	// State carries values from a change's Request to its Response.
	State map[string]string

	body []byte // read by Body

	prefix string
	// ownHeader is set once Req has headers of its own: Req starts as a
	// copy of the caller's request that shares its headers (SetHeader).
	ownHeader bool
}

// SetHeader sets a header of the converted request; the caller's request
// keeps its own.
func (x *Exchange) SetHeader(key, value string) {
	if !x.ownHeader {
		x.Req.Header = x.Req.Header.Clone()
		if x.Req.Header == nil {
			x.Req.Header = http.Header{}
		}
		x.ownHeader = true
	}
	x.Req.Header.Set(key, value)
}

// converting returns the request converters edit: a copy of r with a URL
// of its own, its headers shared until one is set (SetHeader). Cheaper
// than r.Clone, which copies every header for the few converters that set
// one.
func converting(r *http.Request) *http.Request {
	c := new(http.Request)
	*c = *r
	u := *r.URL
	if r.URL.User != nil {
		user := *r.URL.User
		u.User = &user
	}
	c.URL = &u
	return c
}

// maxVars bounds the placeholders of one route template.
const maxVars = 8

// Vars are the path values a route template captured, as escaped in the
// request path.
type Vars struct {
	names []string
	vals  [maxVars]string
	n     int
}

// Get returns a captured value, or "".
func (v Vars) Get(name string) string {
	for i, n := range v.names {
		if n == name && i < v.n {
			return v.vals[i]
		}
	}
	return ""
}

// Unescaped returns a captured value, unescaped.
func (v Vars) Unescaped(name string) string {
	raw := v.Get(name)
	if s, err := url.PathUnescape(raw); err == nil {
		return s
	}
	return raw
}

// Body reads the request body once (a write's; GET and DELETE have none)
// and keeps it, so that several changes can read it. A body over
// http_max_body_size is a 413.
func (x *Exchange) Body() ([]byte, error) {
	r := x.Req
	if x.body != nil || r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodDelete {
		return x.body, nil
	}
	body, err := api.ReadBody(r)
	if err != nil {
		return nil, err
	}
	x.SetBody(body)
	return body, nil
}

// SetBody replaces the request body the backend will read.
func (x *Exchange) SetBody(body []byte) {
	x.body = body
	x.Req.Body = io.NopCloser(bytes.NewReader(body))
	x.Req.ContentLength = int64(len(body))
	x.SetHeader("Content-Length", strconv.Itoa(len(body)))
}
