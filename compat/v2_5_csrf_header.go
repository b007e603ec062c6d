package compat

import (
	"net/http"

	"github.com/loggate/loggate/router/api"
)

// csrfRelease is the release that began requiring X-Requested-By on every
// request but GET, HEAD and OPTIONS.
var csrfRelease = MustRelease("2.5")

// CSRFHeader is the 2.5 change that made non-GET requests carry an
// X-Requested-By header (Graylog2/graylog2-server#4655). It converts no
// bodies; the router asks CSRFExempt before refusing a request without the
// header.
func CSRFHeader() *Change {
	return &Change{
		Release:     csrfRelease,
		Description: "Requests other than GET, HEAD and OPTIONS must carry `X-Requested-By`; clients pinned to an older release by their access token or listener may omit it, unless the request carries an `Origin` or a cookie (a browser).",
	}
}

// CSRFExempt reports whether a request may omit X-Requested-By: its client
// is pinned below 2.5 by the operator — never by a header the request itself
// sends, which a page in a browser could forge — and nothing says it comes
// from a browser.
func CSRFExempt(r *http.Request) bool {
	c := ClientFrom(r.Context())
	return c.Source.Pinned() && c.Release.Before(csrfRelease) &&
		r.Header.Get("Origin") == "" && r.Header.Get("Cookie") == ""
}

// csrfMessage is Graylog's text for a missing X-Requested-By header.
const csrfMessage = `CSRF protection header is missing. Please add a "X-Requested-By" header to your request.`

var errCSRF = &api.Error{Code: api.Invalid, Message: csrfMessage}

// CheckCSRF is Graylog's X-Requested-By rule (since 2.5), the one check the
// router makes after matching a route and changes make for requests they
// answer themselves: every method but GET, HEAD and OPTIONS needs the
// header; old Sidecars announce themselves with X-Graylog-Collector-Version
// instead; CSRFExempt clients may omit it.
func CheckCSRF(r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if r.Header.Get("X-Requested-By") == "" && r.Header.Get("X-Graylog-Collector-Version") == "" && !CSRFExempt(r) {
		return errCSRF
	}
	return nil
}
