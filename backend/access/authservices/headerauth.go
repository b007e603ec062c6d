package authservices

import (
	"context"
	"fmt"

	"github.com/loggate/loggate/router/api"
)

// DefaultUsernameHeader is the header trusted header authentication reads
// unless configured otherwise.
const DefaultUsernameHeader = "Remote-User"

// HeaderAuthConfig is the trusted header authentication setting, Graylog's
// HTTPHeaderAuthConfig.
type HeaderAuthConfig struct {
	Enabled        bool   `json:"enabled"`
	UsernameHeader string `json:"username_header"`
}

// defaultHeaderAuth is the setting before anyone saved one: off.
var defaultHeaderAuth = HeaderAuthConfig{UsernameHeader: DefaultUsernameHeader}

// HeaderAuth returns whether trusted header authentication is enabled and
// the header that names the user. The authenticator asks on every request
// without credentials, so the setting is read from the store once and then
// kept in memory; SetHeaderAuth refreshes it.
func (s *Service) HeaderAuth(ctx context.Context) (enabled bool, header string, err error) {
	c, err := s.HeaderAuthConfig(ctx)
	return c.Enabled, c.UsernameHeader, err
}

// HeaderAuthConfig returns the trusted header authentication setting.
func (s *Service) HeaderAuthConfig(ctx context.Context) (HeaderAuthConfig, error) {
	if c := s.header.Load(); c != nil {
		return *c, nil
	}
	c := defaultHeaderAuth
	if err := s.readConfig(ctx, headerAuthID, &c); err != nil {
		return HeaderAuthConfig{}, err
	}
	if !validHeaderName(c.UsernameHeader) {
		// Only a document written by something else gets here; the
		// default is safer than a header no request can carry.
		c.UsernameHeader = DefaultUsernameHeader
	}
	// A concurrent SetHeaderAuth stored a newer value meanwhile: keep it.
	s.header.CompareAndSwap(nil, &c)
	return *s.header.Load(), nil
}

// SetHeaderAuth validates and stores the trusted header authentication
// setting. The header must be a valid HTTP header name (an RFC 9110 token).
func (s *Service) SetHeaderAuth(ctx context.Context, c HeaderAuthConfig) (HeaderAuthConfig, error) {
	switch {
	case blank(c.UsernameHeader):
		return HeaderAuthConfig{}, api.Invalidf("username_header", "Username header cannot be empty.")
	case !validHeaderName(c.UsernameHeader):
		return HeaderAuthConfig{}, api.Invalidf("username_header", "Username header %q is not a valid HTTP header name.", c.UsernameHeader)
	}
	doc, err := api.Marshal(c)
	if err != nil {
		return HeaderAuthConfig{}, fmt.Errorf("header auth config: %w", err)
	}
	if err := s.st.Put(ctx, ConfigCollection, headerAuthID, doc); err != nil {
		return HeaderAuthConfig{}, fmt.Errorf("header auth config: %w", err)
	}
	s.header.Store(&c)
	return c, nil
}

// validHeaderName reports whether h is an RFC 9110 token, the syntax of a
// header field name.
func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !isTokenChar(h[i]) {
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
