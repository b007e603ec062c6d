package upstream

import (
	"errors"
	"net/url"
	"strings"
)

// ParseBaseURI checks an upstream_uri: an absolute http or https URI of a
// Graylog API root, its path ending in /api or /api/ (a Graylog behind a
// path prefix, http://host/graylog/api, is accepted), without user info,
// query or fragment. The result's path ends in /api, without the slash.
func ParseBaseURI(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Hostname() == "" {
		return nil, errors.New("expected an absolute http or https URI of a Graylog API, e.g. http://graylog:9000/api")
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, errors.New("expected an http or https URI without user info, query or fragment, e.g. http://graylog:9000/api")
	}
	if p := u.Port(); p != "" && !validPort(p) {
		return nil, errors.New("expected an http or https URI with a port from 1 to 65535, e.g. http://graylog:9000/api")
	}
	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(p, "/api") {
		return nil, errors.New("expected the URI of the API root, its path ending in /api, e.g. http://graylog:9000/api")
	}
	u.Path, u.RawPath = p, strings.TrimSuffix(u.RawPath, "/")
	return u, nil
}

func validPort(p string) bool {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return false
		}
	}
	return n > 0
}
