package compat

import "net/http"

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
