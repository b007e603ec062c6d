package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted is a username header set by a trusted reverse proxy, Graylog's
// HTTP header authentication.
const Trusted Kind = Session + 1

// HeaderSettings are the stored settings of trusted header authentication.
type HeaderSettings interface {
	HeaderAuth(ctx context.Context) (enabled bool, header string, err error)
}

// HeaderAuth authenticates requests by a username header, but only those
// whose peer address is one of the trusted proxies (trusted_proxies): anyone
// else could simply send the header.
type HeaderAuth struct {
	auth     *Authenticator
	proxies  []netip.Prefix
	settings HeaderSettings
}

// NewHeaderAuth returns trusted header authentication. With no trusted
// proxies it never authenticates anyone.
func NewHeaderAuth(a *Authenticator, proxies []netip.Prefix, settings HeaderSettings) *HeaderAuth {
	return &HeaderAuth{auth: a, proxies: proxies, settings: settings}
}

// ParseTrustedProxies reads Graylog's trusted_proxies: comma-separated
// addresses or CIDR ranges.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR range", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// trusted reports whether the request's peer is a trusted proxy.
func (h *HeaderAuth) trusted(remoteAddr string) bool {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return false
	}
	addr := ap.Addr().Unmap()
	for _, p := range h.proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Principal returns the principal named by the trusted header: nil when the
// feature is off, the request carries no such header or does not come from
// a trusted proxy; a 401 when the named user is unknown or disabled.
func (h *HeaderAuth) Principal(r *http.Request) (*Principal, error) {
	if h == nil || len(h.proxies) == 0 || !h.trusted(r.RemoteAddr) {
		return nil, nil
	}
	ctx := r.Context()
	enabled, header, err := h.settings.HeaderAuth(ctx)
	if err != nil || !enabled {
		return nil, err
	}
	username := strings.TrimSpace(r.Header.Get(header))
	if username == "" {
		return nil, nil
	}
	return h.auth.trustedUser(ctx, username)
}

// trustedUser returns the principal of a user vouched for by a trusted
// proxy, cached like a verified password.
func (a *Authenticator) trustedUser(ctx context.Context, username string) (*Principal, error) {
	key := a.keys.CacheKey(Trusted, username)
	if e := a.o.Cache.lookup(ctx, key, ""); e != nil {
		return e.p, nil
	}
	epoch := a.o.Cache.Epoch(ctx)
	id, err := usable(a.o.Directory.IdentityByName(ctx, username))
	if err != nil {
		return nil, err
	}
	return a.remember(ctx, key, epoch, id), nil
}
