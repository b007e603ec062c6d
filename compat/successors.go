package compat

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/loggate/loggate/rewrite"
)

// successorHistory is when each route that a deprecated route names as its
// successor (Link: <…>; rel="successor-version") appeared. A client of an
// older release cannot move to it: for that client the route is not
// deprecated in favour of anything its API has, so it gets neither the
// Deprecation nor the Link header. Deprecations without a successor
// (/system/cluster/stats) are told to every client.
var successorHistory = []struct {
	template rewrite.Template
	since    Release
}{
	// 4.0's paginated listings and user ids (the upgrade notes, §15.2).
	{rewrite.MustTemplate("/users/paginated"), MustRelease("4.0")},
	{rewrite.MustTemplate("/users/id/{userId}"), MustRelease("4.0")},
	{rewrite.MustTemplate("/streams/paginated"), MustRelease("4.0")},
	{rewrite.MustTemplate("/system/grok/paginated"), MustRelease("4.0")},
	// Index sets, and the deflector of each, came with 2.2.
	{rewrite.MustTemplate("/system/deflector/{indexSetId}"), MustRelease("2.2")},
	{rewrite.MustTemplate("/system/deflector/{indexSetId}/cycle"), MustRelease("2.2")},
	{rewrite.MustTemplate("/cluster/deflector/{indexSetId}/cycle"), MustRelease("2.2")},
}

// successorSince returns the release that introduced the route a Link
// header names, if it is one of successorHistory's. prefix is the API's
// ("/api"); the URI is absolute or a path.
func successorSince(link, prefix string) (Release, bool) {
	start, end := strings.IndexByte(link, '<'), strings.IndexByte(link, '>')
	if start < 0 || end < start || !strings.Contains(link[end:], `rel="successor-version"`) {
		return Release{}, false
	}
	u, err := url.Parse(link[start+1 : end])
	if err != nil {
		return Release{}, false
	}
	path := u.EscapedPath()
	if i := strings.Index(path, prefix+"/"); i >= 0 {
		path = path[i+len(prefix):]
	}
	var vals [maxVars]string
	for _, s := range successorHistory {
		if _, ok := s.template.Match(path, vals[:0]); ok {
			return s.since, true
		}
	}
	return Release{}, false
}

// successorFilter drops the Deprecation and Link headers of a response
// whose successor the client's release does not have, just before the
// headers are sent.
type successorFilter struct {
	http.ResponseWriter
	client Release
	prefix string
	done   bool
}

func (f *successorFilter) check() {
	if f.done {
		return
	}
	f.done = true
	h := f.ResponseWriter.Header()
	if since, ok := successorSince(h.Get("Link"), f.prefix); ok && f.client.Before(since) {
		h.Del("Link")
		h.Del("Deprecation")
	}
}

func (f *successorFilter) WriteHeader(code int) {
	f.check()
	f.ResponseWriter.WriteHeader(code)
}

func (f *successorFilter) Write(b []byte) (int, error) {
	f.check()
	return f.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (f *successorFilter) Unwrap() http.ResponseWriter { return f.ResponseWriter }
