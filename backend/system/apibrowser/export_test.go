package apibrowser

import "github.com/loggate/loggate/router/api"

// NewVersioned is New with fixed versions, so that golden files do not change
// with each release.
func NewVersioned(routes func() []api.Route, version, build string) *Handler {
	h := New(routes)
	h.version, h.build = version, build
	return h
}

// DocumentedPath returns a mux template as the API description writes it.
func DocumentedPath(path string) (string, error) {
	t, err := parseTemplate(path)
	return t.String(), err
}

// BenchTable is a route table of Graylog 4.0's size.
var BenchTable = benchTable
