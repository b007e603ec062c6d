package compat

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/loggate/loggate/rewrite"
	"github.com/loggate/loggate/router/api"
)

// Chain applies version changes around a backend handler.
type Chain struct {
	changes []*Change // oldest release first
	firsts  []firstSegments
	prefix  string
	// all indexes changes; recognisers only those with a Recognise, the
	// only ones that can apply to a client as new as every change.
	all, recognisers []int
}

// firstSegments are the first path segments a change's routes can match,
// so that a request is tried against the templates of the few changes that
// may take it: every request of a 4.0 client passes the changes that
// recognise old requests.
type firstSegments struct {
	lits map[string]bool
	any  bool // a template starts with a placeholder
}

func firstsOf(ch *Change) firstSegments {
	f := firstSegments{lits: map[string]bool{}}
	for _, rt := range ch.Routes {
		seg := firstSegment(rt.Template.String())
		if strings.HasPrefix(seg, "{") {
			f.any = true
		}
		f.lits[seg] = true
	}
	return f
}

func (f firstSegments) may(seg string) bool { return f.any || f.lits[seg] }

// firstSegment returns the first segment of a path ("/users/x" → "users").
func firstSegment(path string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return seg
}

// NewChain returns a chain of changes for an API mounted under prefix
// ("/api").
func NewChain(prefix string, changes ...*Change) *Chain {
	cs := append([]*Change(nil), changes...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Release.Before(cs[j].Release) })
	c := &Chain{changes: cs, prefix: prefix}
	for i, ch := range cs {
		c.firsts = append(c.firsts, firstsOf(ch))
		c.all = append(c.all, i)
		if ch.Recognise != nil {
			c.recognisers = append(c.recognisers, i)
		}
	}
	return c
}

// candidates returns the indexes of the changes that may apply to client's
// requests: a 4.0 client's every request would otherwise pass every change.
func (c *Chain) candidates(client Client) []int {
	if len(c.changes) == 0 || client.Release.Before(c.changes[len(c.changes)-1].Release) {
		return c.all
	}
	if client.Source != FromDefault {
		return nil
	}
	return c.recognisers
}

// Changes returns the chain's changes, oldest first.
func (c *Chain) Changes() []*Change { return c.changes }

// Wrap returns a handler that converts requests up to 4.0 before next and
// responses back down after it. A request to which no change applies goes to
// next untouched and unbuffered. Conversion errors go to fail, the caller's
// one way of answering errors.
func (c *Chain) Wrap(next http.Handler, fail func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ClientFrom(r.Context())
		if client.Release.Before(Latest) {
			w = &successorFilter{ResponseWriter: w, client: client.Release, prefix: c.prefix}
		}
		var x *Exchange
		var applied []*Change
		path, inAPI := strings.CutPrefix(r.URL.EscapedPath(), c.prefix)
		first := firstSegment(path)
		for _, i := range c.candidates(client) {
			ch := c.changes[i]
			older := client.Release.Before(ch.Release)
			if !older && (client.Source != FromDefault || ch.Recognise == nil) {
				continue
			}
			if !inAPI {
				break
			}
			if !c.firsts[i].may(first) {
				continue
			}
			var v Vars
			route, ok := match(ch, r.Method, path, &v)
			if !ok {
				continue
			}
			if !older && !ch.Recognise(r.Context(), r, v) {
				continue
			}
			if x == nil {
				// Converters edit the request; the caller's stays as it was.
				r = converting(r)
				x = &Exchange{Req: r, Client: client, State: map[string]string{}}
			}
			x.Vars, x.Route, x.prefix = v, route, c.prefix
			trace(r.Context(), ch, route)
			if ch.Removed {
				warnRemoved(w, r, ch, route, client)
			}
			if ch.Request != nil {
				if err := ch.Request(r.Context(), x); err != nil {
					var a *Answer
					if errors.As(err, &a) {
						a.write(w)
						return
					}
					fail(w, r, err)
					return
				}
			}
			applied = append(applied, ch)
			// A change may have pointed the request elsewhere.
			path, inAPI = strings.CutPrefix(r.URL.EscapedPath(), c.prefix)
			first = firstSegment(path)
		}
		// A HEAD answer has no body to convert: its headers are the
		// converted request's.
		if !needsResponse(applied) || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		rec := rewrite.NewRecorder(w)
		defer rec.Release()
		next.ServeHTTP(rec, r)
		if status := rec.Status(); status >= 200 && status < 300 && len(rec.Body()) > 0 {
			body := rec.Body()
			for i := len(applied) - 1; i >= 0; i-- {
				if ch := applied[i]; ch.Response != nil {
					var err error
					if body, err = ch.Response(r.Context(), x, body); err != nil {
						fail(w, r, err)
						return
					}
				}
			}
			rec.SetBody(body)
		}
		if err := rec.Flush(); err != nil {
			api.Logger(r.Context()).Debug("writing converted response failed", "err", err)
		}
	})
}

// Answer lets a change's Request answer an old request itself, for paths
// the 4.0 backend no longer has in any form (the 3.x LDAP settings, legacy
// dashboards): the change serves them through its own small interface to
// the backend's services. Returned as an error, it ends the request with
// this response; no later change and no backend handler sees it.
type Answer struct {
	Status int
	Header http.Header
	// Body is written as is; a JSON body needs a Content-Type in Header
	// (JSON does that).
	Body []byte
}

// JSON returns an Answer with a JSON body.
func JSON(status int, body []byte) *Answer {
	return &Answer{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

func (a *Answer) Error() string { return "compat: answered with status " + http.StatusText(a.Status) }

func (a *Answer) write(w http.ResponseWriter) {
	for k, v := range a.Header {
		if k == "Warning" {
			// A removal warning may be there already.
			w.Header()[k] = append(w.Header()[k], v...)
			continue
		}
		w.Header()[k] = v
	}
	w.WriteHeader(a.Status)
	if len(a.Body) > 0 {
		_, _ = w.Write(a.Body)
	}
}

// warnRemoved tells the client, in a Warning header (RFC 7234 warn-code
// 299, a persistent warning, from agent "loggate"), that the route it
// called is gone since ch's release and which release's API answered it,
// and reports the call to the access log.
func warnRemoved(w http.ResponseWriter, r *http.Request, ch *Change, route Route, client Client) {
	served := client.Release
	if !served.Before(ch.Release) {
		served = ch.Release.Previous()
	}
	w.Header().Add("Warning", `299 loggate "`+route.Template.String()+" was removed in "+ch.Release.String()+
		"; served as release "+served.String()+`"`)
	traceRemoved(r.Context(), route)
}

// match finds the route of ch that takes method and path. HEAD takes the
// GET routes, as the router answers HEAD for every GET route (Jersey's
// way): an old client's HEAD is converted as its GET is.
func match(ch *Change, method, path string, v *Vars) (Route, bool) {
	for _, rt := range ch.Routes {
		if rt.Method != method && (method != http.MethodHead || rt.Method != http.MethodGet) {
			continue
		}
		if vals, ok := rt.Template.Match(path, v.vals[:0]); ok {
			v.names, v.n = rt.Template.Names(), len(vals)
			return rt, true
		}
	}
	return Route{}, false
}

func needsResponse(applied []*Change) bool {
	for _, ch := range applied {
		if ch.Response != nil {
			return true
		}
	}
	return false
}

// setPath points a request at another escaped path under the same prefix.
func setPath(r *http.Request, escaped string) error {
	u, err := url.Parse(escaped)
	if err != nil {
		return api.Wrap(api.Invalid, "Invalid request path", err)
	}
	r.URL.Path, r.URL.RawPath = u.Path, u.RawPath
	return nil
}

// Replace points the request at the matched route with one path value
// replaced (unescaped value), for changes that swap a path segment.
func (x *Exchange) Replace(name, value string) error {
	names := x.Route.Template.Names()
	vals := make([]string, len(names))
	for i, n := range names {
		v, err := url.PathUnescape(x.Vars.Get(n))
		if err != nil {
			return api.Wrap(api.Invalid, "Invalid request path", err)
		}
		if n == name {
			v = value
		}
		vals[i] = v
	}
	return setPath(x.Req, x.prefix+x.Route.Template.Expand(vals...))
}
