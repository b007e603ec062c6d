package router

import (
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

var errUnsupportedMediaType = api.Errorf(api.Unsupported, "HTTP 415 Unsupported Media Type")

// checkMediaType refuses a request body the route cannot read, as Jersey
// does for Graylog's @Consumes(APPLICATION_JSON) resources: a non-empty body
// must be JSON (or one of the route's Consumes). Without a Content-Type
// Jersey reads the body as application/octet-stream, which no JSON reader
// takes, so that is a 415 too — except for clients the operator pinned below
// 2.5 that do not look like a browser (compat.CSRFExempt): their scripts have
// always been served without one. text/plain and form bodies, which any web
// page can send across sites without asking, are refused for every client.
func checkMediaType(r *http.Request, route api.Route) error {
	if !hasBody(r) {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		if compat.CSRFExempt(r) {
			return nil
		}
		return errUnsupportedMediaType
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return errUnsupportedMediaType
	}
	if jsonMediaType(mt) || slices.Contains(route.Consumes, mt) {
		return nil
	}
	return errUnsupportedMediaType
}

// hasBody reports whether a request carries a body; one of unknown length
// (chunked) counts.
func hasBody(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return r.ContentLength > 0 || r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody
}

// jsonMediaType reports whether Jackson's JAX-RS provider reads a media type
// (mt is lower case, as mime.ParseMediaType returns it): its subtype is json,
// ends in +json, or is one of the javascript aliases it also accepts.
func jsonMediaType(mt string) bool {
	_, sub, ok := strings.Cut(mt, "/")
	if !ok {
		return false
	}
	switch sub {
	case "json", "javascript", "x-javascript", "x-json":
		return true
	}
	return strings.HasSuffix(sub, "+json")
}
