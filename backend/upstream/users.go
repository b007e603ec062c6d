package upstream

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// UsersOptions configure Users.
type UsersOptions struct {
	// Upstream is the upstream's API root, as ParseBaseURI returns it.
	Upstream *url.URL
	// Client makes the lookups; default: a client over NewTransport with
	// a 10 second timeout.
	Client *http.Client
	// Cache keeps lookups: the in-process cache or Redis.
	Cache cache.Cache
	// Key is the secret the cache keys are hashed with, so that neither
	// Redis nor a memory dump holds a credential (at least 32 bytes).
	Key []byte
	// TTL bounds how long a lookup is reused; default 60 seconds.
	TTL    time.Duration
	Logger *slog.Logger
}

// Users resolves usernames through the upstream's API with the caller's
// credentials (compat.Users), so that whether a caller may see a user stays
// the upstream's decision. Answers are cached per credential and name.
type Users struct {
	o    UsersOptions
	base string // upstream API root, without a trailing slash
	// epoch counts invalidations: a lookup that began before one may carry
	// what it meant to remove, so it is not cached.
	epoch atomic.Uint64
	// macs pools keyed hashes: every request of an old client makes one.
	macs sync.Pool
}

var (
	_ compat.Users     = (*Users)(nil)
	_ compat.Anonymity = (*Users)(nil)
	_ Forgetter        = (*Users)(nil)
)

// NewUsers returns a resolver asking o.Upstream.
func NewUsers(o UsersOptions) *Users {
	if o.Client == nil {
		o.Client = &http.Client{Transport: NewTransport(o.Upstream, TransportOptions{}), Timeout: 10 * time.Second}
	}
	if o.TTL <= 0 {
		o.TTL = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	u := &Users{o: o, base: strings.TrimSuffix(o.Upstream.String(), "/")}
	u.macs.New = func() any { return hmac.New(sha256.New, o.Key) }
	return u
}

// Anonymous reports whether the request carries no credentials to look
// users up with.
func (u *Users) Anonymous(ctx context.Context) bool { return Credentials(ctx) == "" }

// IDByUsername returns the id of a user the caller may see, from GET
// /users/{username} on the upstream. An unknown user is an api.NotFound
// error; any other refusal (401, 403) or failure is a *compat.Answer
// carrying the upstream's own response, or a 502, which the compat chain
// sends as is.
func (u *Users) IDByUsername(ctx context.Context, username string) (string, error) {
	cred := Credentials(ctx)
	key := u.key('n', cred, username)
	if v, ok := u.cached(ctx, key); ok {
		return v, nil
	}
	epoch := u.epoch.Load()
	resp, err := u.get(ctx, cred, "/users/"+url.PathEscape(username))
	if err != nil {
		return "", err
	}
	switch {
	case resp.status == http.StatusOK:
		id := gjson.GetBytes(resp.body, "id").String()
		if id == "" {
			return "", u.badGateway(fmt.Errorf("GET /users/{username}: no id in the answer"))
		}
		u.store(ctx, epoch, key, id, username, id)
		return id, nil
	case resp.status == http.StatusNotFound:
		// Not cached: the user may be created any moment.
		return "", api.Errorf(api.NotFound, "Couldn't find user %s", username)
	}
	return "", resp.answer()
}

// IsUserID reports whether s is an existing user's id, from GET
// /users/id/{id}: 200, or 403 (it exists, the caller may not see it).
// When the upstream cannot be asked it says yes: the request then goes on
// unconverted and meets the same failure in the proxy, which answers it.
func (u *Users) IsUserID(ctx context.Context, s string) bool {
	cred := Credentials(ctx)
	key := u.key('i', cred, s)
	if v, ok := u.cached(ctx, key); ok {
		return v == "1"
	}
	epoch := u.epoch.Load()
	resp, err := u.get(ctx, cred, "/users/id/"+url.PathEscape(s))
	if err != nil {
		return true
	}
	var ok bool
	switch {
	case resp.status == http.StatusOK || resp.status == http.StatusForbidden:
		ok = true
	case resp.status == http.StatusNotFound || resp.status == http.StatusInternalServerError:
		// 500 is Graylog's answer for an id that is not hex.
	case resp.status > http.StatusInternalServerError:
		return true // the upstream is in trouble: as when it cannot be asked
	default:
		return false // 401 and the like: the proxied request meets them too
	}
	v := "0"
	if ok {
		v = "1"
	}
	u.store(ctx, epoch, key, v, s)
	return ok
}

// ForgetUser drops every cached lookup that named the user, by id or
// username, for every caller.
func (u *Users) ForgetUser(ctx context.Context, idOrUsername string) {
	u.epoch.Add(1)
	// The change is done; a client that hung up must not keep the
	// invalidation from reaching the cache.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := u.o.Cache.InvalidateTag(ctx, userTag(idOrUsername)); err != nil {
		u.o.Logger.Warn("could not drop cached username lookups; they expire on their own", "err", err, "ttl", u.o.TTL)
	}
}

func userTag(s string) string { return "upstream:user:" + s }

// key is a keyed hash of what a lookup depends on: the credential it was
// made with and the name asked for. kind separates the two lookups.
func (u *Users) key(kind byte, cred, name string) string {
	h := u.macs.Get().(hash.Hash)
	h.Reset()
	h.Write([]byte{kind, 0})
	h.Write([]byte(cred))
	h.Write([]byte{0})
	h.Write([]byte(name))
	var sum [sha256.Size]byte
	out := h.Sum(sum[:0])
	u.macs.Put(h)
	const prefix = "upstream:"
	var buf [len(prefix) + 43]byte // 43: unpadded base64 of 32 bytes
	copy(buf[:], prefix)
	base64.RawURLEncoding.Encode(buf[len(prefix):], out)
	return string(buf[:])
}

func (u *Users) cached(ctx context.Context, key string) (string, bool) {
	v, ok, err := u.o.Cache.Get(ctx, key)
	if err != nil {
		u.o.Logger.Debug("username cache unavailable; asking the upstream", "err", err)
		return "", false
	}
	return string(v), ok
}

func (u *Users) store(ctx context.Context, epoch uint64, key, value string, users ...string) {
	if u.epoch.Load() != epoch {
		return
	}
	tags := make([]string, len(users))
	for i, s := range users {
		tags[i] = userTag(s)
	}
	if err := u.o.Cache.Set(ctx, key, []byte(value), u.o.TTL, tags...); err != nil {
		u.o.Logger.Debug("username cache unavailable; not keeping a lookup", "err", err)
	}
}

// maxLookupBody bounds what is read of a lookup's answer.
const maxLookupBody = 1 << 20

type lookup struct {
	status int
	header http.Header
	body   []byte
}

// get asks the upstream with the caller's credentials. Only a failure to
// get any answer is an error (a *compat.Answer with a 502).
func (u *Users) get(ctx context.Context, cred, path string) (*lookup, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.base+path, nil)
	if err != nil {
		return nil, u.badGateway(err)
	}
	req.Header.Set("Accept", "application/json")
	if cred != "" {
		req.Header.Set("Authorization", cred)
	}
	// A lookup is the gateway's, not the caller's activity.
	req.Header.Set("X-Graylog-No-Session-Extension", "true")
	resp, err := u.o.Client.Do(req)
	if err != nil {
		return nil, u.badGateway(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLookupBody))
	if err != nil {
		return nil, u.badGateway(err)
	}
	return &lookup{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// answer passes the upstream's refusal on as it was: status, Graylog error
// body and the headers that belong to it.
func (l *lookup) answer() *compat.Answer {
	h := http.Header{}
	for _, k := range []string{"Content-Type", "Www-Authenticate"} {
		if v := l.header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	return &compat.Answer{Status: l.status, Header: h, Body: l.body}
}

func (u *Users) badGateway(err error) *compat.Answer {
	u.o.Logger.Warn("username lookup on the upstream failed", "err", err)
	body, _ := jsonError("The upstream Graylog server at " + u.o.Upstream.Redacted() + " cannot be reached")
	return compat.JSON(http.StatusBadGateway, body)
}
