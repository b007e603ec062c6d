package upstream_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/backend/upstream"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// directory is a fake upstream user API: bob (id 5f0b) visible to "good"
// credentials, 403 to "other", 401 to anything else.
type directory struct {
	mu     sync.Mutex
	calls  map[string]int
	during func() // runs inside a lookup, before it is answered
	status int    // when set, every answer has this status
	noID   bool
}

func (d *directory) count(path string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[path]
}

func (d *directory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.calls[r.URL.EscapedPath()]++
	during := d.during
	d.mu.Unlock()
	if during != nil {
		during()
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("X-Graylog-No-Session-Extension") != "true" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch {
	case d.status != 0:
		w.WriteHeader(d.status)
		_, _ = w.Write([]byte(`{"type":"ApiError","message":"forced"}`))
	case r.Header.Get("Authorization") == "other":
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"type":"ApiError","message":"Not allowed to view user bob"}`))
	case r.Header.Get("Authorization") != "good":
		w.Header().Set("WWW-Authenticate", `Basic realm="Graylog Server"`)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"type":"ApiError","message":"Not authenticated"}`))
	case r.URL.Path == "/api/users/bob" && !d.noID:
		_, _ = w.Write([]byte(`{"id":"5f0b","username":"bob"}`))
	case r.URL.Path == "/api/users/bob":
		_, _ = w.Write([]byte(`{"username":"bob"}`))
	case r.URL.Path == "/api/users/id/5f0b":
		_, _ = w.Write([]byte(`{"id":"5f0b","username":"bob"}`))
	case strings.HasPrefix(r.URL.Path, "/api/users/id/") && !strings.HasPrefix(r.URL.Path, "/api/users/id/5f"):
		w.WriteHeader(http.StatusInternalServerError) // Graylog's answer for an id that is not hex
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"type":"ApiError","message":"Couldn't find user"}`))
	}
}

func newUsers(t *testing.T, d *directory, c cache.Cache) *upstream.Users {
	t.Helper()
	d.calls = map[string]int{}
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	base, err := upstream.ParseBaseURI(srv.URL + "/api")
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		c = cache.NewMemory(100, nil)
	}
	return upstream.NewUsers(upstream.UsersOptions{Upstream: base, Cache: c, Key: []byte("0123456789abcdef0123456789abcdef")})
}

func as(cred string) context.Context {
	return upstream.WithCredentials(context.Background(), cred)
}

func TestIDByUsername(t *testing.T) {
	tests := []struct {
		name, cred, user string
		d                *directory
		wantID           string
		wantCode         api.Code
		wantAnswer       int
		wantBody         string
	}{
		{name: "found", cred: "good", user: "bob", wantID: "5f0b"},
		{name: "unknown", cred: "good", user: "ghost", wantCode: api.NotFound},
		{name: "forbidden", cred: "other", user: "bob", wantAnswer: 403, wantBody: "Not allowed to view user bob"},
		{name: "wrong credentials", cred: "bad", user: "bob", wantAnswer: 401, wantBody: "Not authenticated"},
		{name: "upstream error", cred: "good", user: "bob", d: &directory{status: 503}, wantAnswer: 503, wantBody: "forced"},
		{name: "answer without id", cred: "good", user: "bob", d: &directory{noID: true}, wantAnswer: 502, wantBody: "cannot be reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d
			if d == nil {
				d = &directory{}
			}
			u := newUsers(t, d, nil)
			id, err := u.IDByUsername(as(tt.cred), tt.user)
			switch {
			case tt.wantID != "":
				if err != nil || id != tt.wantID {
					t.Fatalf("IDByUsername = %q, %v; want %q", id, err, tt.wantID)
				}
			case tt.wantCode != 0:
				if api.ErrorCode(err) != tt.wantCode {
					t.Fatalf("IDByUsername error %v; want code %v", err, tt.wantCode)
				}
			default:
				a, ok := err.(*compat.Answer)
				if !ok || a.Status != tt.wantAnswer || !strings.Contains(string(a.Body), tt.wantBody) || a.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("IDByUsername error %#v; want a %d answer with %q", err, tt.wantAnswer, tt.wantBody)
				}
				if tt.wantAnswer == 401 && a.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 without WWW-Authenticate")
				}
			}
		})
	}
}

func TestIDByUsernameUnreachable(t *testing.T) {
	base, _ := upstream.ParseBaseURI("http://127.0.0.1:1/api")
	u := upstream.NewUsers(upstream.UsersOptions{Upstream: base, Cache: cache.NewMemory(10, nil), Key: []byte("k")})
	_, err := u.IDByUsername(as("good"), "bob")
	if a, ok := err.(*compat.Answer); !ok || a.Status != http.StatusBadGateway {
		t.Fatalf("error %#v; want a 502 answer", err)
	}
	if !u.IsUserID(as("good"), "5f0b") {
		t.Errorf("IsUserID = false with the upstream away; want true (the proxy answers the failure)")
	}
}

func TestIsUserID(t *testing.T) {
	tests := []struct {
		name, cred, s string
		status        int
		want, cached  bool
	}{
		{name: "an id", cred: "good", s: "5f0b", want: true, cached: true},
		{name: "an id the caller may not see", cred: "other", s: "5f0b", want: true, cached: true},
		{name: "unknown id", cred: "good", s: "5f99", want: false, cached: true},
		{name: "not hex (Graylog's 500)", cred: "good", s: "bob", want: false, cached: true},
		{name: "wrong credentials", cred: "bad", s: "5f0b", want: false, cached: false},
		{name: "upstream unavailable", cred: "good", s: "5f0b", status: 503, want: true, cached: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &directory{status: tt.status}
			u := newUsers(t, d, nil)
			for range 2 {
				if got := u.IsUserID(as(tt.cred), tt.s); got != tt.want {
					t.Fatalf("IsUserID(%q) = %v; want %v", tt.s, got, tt.want)
				}
			}
			want := 2
			if tt.cached {
				want = 1
			}
			if n := d.count("/api/users/id/" + tt.s); n != want {
				t.Errorf("%d upstream calls for two questions; want %d", n, want)
			}
		})
	}
}

func TestUsersCache(t *testing.T) {
	d := &directory{}
	mem := cache.NewMemory(100, nil)
	u := newUsers(t, d, mem)
	for range 3 {
		if _, err := u.IDByUsername(as("good"), "bob"); err != nil {
			t.Fatal(err)
		}
	}
	if n := d.count("/api/users/bob"); n != 1 {
		t.Fatalf("%d lookups for three questions; want 1", n)
	}
	// Not found is not cached: the user may be created any moment.
	for range 2 {
		_, _ = u.IDByUsername(as("good"), "ghost")
	}
	if n := d.count("/api/users/ghost"); n != 2 {
		t.Errorf("%d lookups of an unknown user; want 2", n)
	}
	// Each credential has its own entries.
	if _, err := u.IDByUsername(as("other"), "bob"); err == nil {
		t.Errorf("another credential got bob's cached id")
	}
	// Forgetting the user by id drops entries made by name.
	u.ForgetUser(context.Background(), "5f0b")
	if _, err := u.IDByUsername(as("good"), "bob"); err != nil {
		t.Fatal(err)
	}
	if n := d.count("/api/users/bob"); n != 3 {
		t.Errorf("%d lookups after ForgetUser; want 3", n)
	}
}

func TestUsersInvalidationDuringLookup(t *testing.T) {
	d := &directory{}
	u := newUsers(t, d, nil)
	d.during = func() { u.ForgetUser(context.Background(), "bob") }
	if _, err := u.IDByUsername(as("good"), "bob"); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	d.during = nil
	d.mu.Unlock()
	if _, err := u.IDByUsername(as("good"), "bob"); err != nil {
		t.Fatal(err)
	}
	if n := d.count("/api/users/bob"); n != 2 {
		t.Errorf("%d lookups; want 2 (a lookup overtaken by an invalidation is not kept)", n)
	}
}

// spy records the keys and tags a cache is given.
type spy struct {
	cache.Cache
	mu   sync.Mutex
	keys []string
}

func (s *spy) Set(ctx context.Context, key string, v []byte, ttl time.Duration, tags ...string) error {
	s.mu.Lock()
	s.keys = append(s.keys, key)
	s.mu.Unlock()
	return s.Cache.Set(ctx, key, v, ttl, tags...)
}

func TestUsersCacheKeysHideCredentials(t *testing.T) {
	s := &spy{Cache: cache.NewMemory(10, nil)}
	u := newUsers(t, &directory{}, s)
	_, _ = u.IDByUsername(as("good"), "bob")
	u.IsUserID(as("good"), "5f0b")
	if len(s.keys) != 2 {
		t.Fatalf("keys %q", s.keys)
	}
	for _, k := range s.keys {
		if strings.Contains(k, "good") || strings.Contains(k, "bob") || !strings.HasPrefix(k, "upstream:") {
			t.Errorf("cache key %q shows what it was made from", k)
		}
	}
}

func TestAnonymous(t *testing.T) {
	u := newUsers(t, &directory{}, nil)
	if !u.Anonymous(context.Background()) || u.Anonymous(as("good")) {
		t.Errorf("Anonymous: without credentials %v, with %v", u.Anonymous(context.Background()), u.Anonymous(as("good")))
	}
}

// BenchmarkIDByUsernameCached is the common case of an old client's request:
// the username is in the cache.
func BenchmarkIDByUsernameCached(b *testing.B) {
	d := &directory{calls: map[string]int{}}
	srv := httptest.NewServer(d)
	b.Cleanup(srv.Close)
	base, _ := upstream.ParseBaseURI(srv.URL + "/api")
	u := upstream.NewUsers(upstream.UsersOptions{Upstream: base, Cache: cache.NewMemory(100, nil), Key: []byte("0123456789abcdef")})
	ctx := as("good")
	if _, err := u.IDByUsername(ctx, "bob"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.IDByUsername(ctx, "bob"); err != nil {
			b.Fatal(err)
		}
	}
}
