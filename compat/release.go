// Package compat keeps old Graylog API clients working on the 4.0 backend.
// Every breaking change of the API's past is one small version change (one
// file each) that converts a request of the release before it up to the
// release after it, and the response back down. A client that speaks release
// R gets every change newer than R: requests oldest first, responses newest
// first. The backend knows only 4.0; compat knows no storage.
package compat

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Release is a Graylog API release, major.minor.
type Release struct{ Major, Minor int }

// Latest is the release the backend speaks.
var Latest = Release{4, 0}

// supported lists the releases a client may speak, by major version: the
// highest minor of each.
var supported = map[int]int{1: 3, 2: 5, 3: 3, 4: 0}

// ParseRelease parses "major.minor" (a patch part, "2.4.6", is accepted and
// ignored). Releases loggate does not know are a 400 naming those it does.
func ParseRelease(s string) (Release, error) {
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Release{}, unsupported(s)
	}
	var nums [2]int
	for i := range nums {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return Release{}, unsupported(s)
		}
		nums[i] = n
	}
	r := Release{nums[0], nums[1]}
	if maxMinor, ok := supported[r.Major]; !ok || r.Minor > maxMinor {
		return Release{}, unsupported(s)
	}
	return r, nil
}

func unsupported(s string) error {
	return api.Errorf(api.Invalid, "Unsupported API release %q; supported releases are 1.0 to 1.3, 2.0 to 2.5, 3.0 to 3.3 and 4.0", s)
}

// MustRelease parses a release known to be valid.
func MustRelease(s string) Release {
	r, err := ParseRelease(s)
	if err != nil {
		panic(err)
	}
	return r
}

// Before reports whether r is older than o.
func (r Release) Before(o Release) bool {
	return r.Major < o.Major || r.Major == o.Major && r.Minor < o.Minor
}

// Previous returns the release before r, the last one that had what r
// changed; the oldest release is its own.
func (r Release) Previous() Release {
	prev := r
	for _, o := range Releases() {
		if o.Before(r) {
			prev = o
		}
	}
	return prev
}

func (r Release) String() string { return strconv.Itoa(r.Major) + "." + strconv.Itoa(r.Minor) }

// Source says where a client's release came from: a client that names its
// release gets exactly its changes; on the default release, requests that
// are recognisably old are converted too.
type Source int

// Release sources.
const (
	FromDefault  Source = iota // compat_default_release
	FromHeader                 // X-API-Version
	FromToken                  // the release pinned on the access token
	FromListener               // the release pinned on the listener (compat_listeners)
)

// Pinned reports whether the release was pinned by the operator (on a token
// or a listener) rather than claimed by the request itself: only pinned
// clients get exemptions a browser must not be able to ask for.
func (s Source) Pinned() bool { return s == FromToken || s == FromListener }

type listenerKey struct{}

// WithListenerRelease returns a context carrying the release pinned on the
// listener a connection arrived on.
func WithListenerRelease(ctx context.Context, r Release) context.Context {
	return context.WithValue(ctx, listenerKey{}, r)
}

// ListenerRelease returns the release pinned on the request's listener.
func ListenerRelease(ctx context.Context) (Release, bool) {
	r, ok := ctx.Value(listenerKey{}).(Release)
	return r, ok
}

// Client is the release a request speaks and where that came from.
type Client struct {
	Release Release
	Source  Source
}

type clientKey struct{}

// WithClient returns a context carrying the client's release.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// SetClient returns r carrying the client's release, set in place on the
// router's request context when r carries it (api.SetValue).
func SetClient(r *http.Request, c Client) *http.Request {
	return api.SetValue(r, clientKey{}, c)
}

// ClientFrom returns the client's release; Latest from the default when the
// router set none.
func ClientFrom(ctx context.Context) Client {
	if c, ok := ctx.Value(clientKey{}).(Client); ok {
		return c
	}
	return Client{Release: Latest}
}

// Releases returns every release a client may speak, oldest first.
func Releases() []Release {
	var out []Release
	for major := 1; major <= Latest.Major; major++ {
		for minor := 0; minor <= supported[major]; minor++ {
			out = append(out, Release{major, minor})
		}
	}
	return out
}
