package streams_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// TestListingsAgree checks, for random sets of streams, permissions and
// queries, that the concatenated pages of /streams/paginated hold exactly
// the streams of the unpaginated /streams that the query selects, in the
// same order.
func TestListingsAgree(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			e := newEnv(t)
			ids := []string{"000000000000000000000001", "000000000000000000000002", "000000000000000000000003"}
			for range 15 + rng.IntN(30) {
				body := map[string]any{"title": randomText(rng), "description": randomText(rng)}
				if rng.IntN(4) == 0 {
					delete(body, "description")
				}
				ids = append(ids, e.createStream(body))
			}
			for range 40 {
				p, desc := randomPrincipal(t, rng, ids)
				query := []string{"", "a", "B", "title:a", "description:b", "-title:c", `"a b"`, "-a"}[rng.IntN(8)]
				t.Run(desc+" query "+query, func(t *testing.T) {
					want := unpaginated(t, e, p, query)
					got, total := allPages(t, e, p, query, 1+rng.IntN(7))
					if !slices.Equal(got, want) {
						t.Errorf("pages %v\nlisting %v", got, want)
					}
					if total != len(ids) {
						t.Errorf("total %d, want every stream: %d", total, len(ids))
					}
				})
			}
		})
	}
}

// randomText returns a short text over few letters, of both cases, so that
// titles collide when case is ignored.
func randomText(rng *rand.Rand) string {
	const letters = "aAbBc "
	b := make([]byte, 1+rng.IntN(5))
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

// randomPrincipal returns a caller who may read all streams, none, or some,
// with permissions written in the several ways Shiro allows.
func randomPrincipal(t *testing.T, rng *rand.Rand, ids []string) (*auth.Principal, string) {
	t.Helper()
	switch rng.IntN(6) {
	case 0:
		return as(t, "streams:read"), "streams:read"
	case 1:
		return as(t, "streams:*"), "streams:*"
	case 2:
		return as(t, "users:read"), "none"
	case 3:
		return as(t, "*"), "admin"
	}
	var perms []string
	var some []string
	for _, id := range ids {
		if rng.IntN(2) == 0 {
			some = append(some, id)
		}
	}
	if rng.IntN(3) == 0 && len(some) > 0 {
		// One permission listing several instances.
		perms = append(perms, "streams:read:"+strings.Join(some, " , "))
	} else {
		// Each in one of the forms that grant it.
		forms := []string{"streams:read:%s", "STREAMS:Read:%s", "streams:edit,read:%s", "streams:*:%s", "*:read:%s", "streams:read:%s:*", " streams : read : %s "}
		for _, id := range some {
			if rng.IntN(2) == 0 {
				id = strings.ToUpper(id)
			}
			perms = append(perms, fmt.Sprintf(forms[rng.IntN(len(forms))], id))
		}
	}
	// Permissions that grant no stream, or other streams.
	perms = append(perms, "streams:edit:"+ids[rng.IntN(len(ids))], "streams:read:"+unknownID, "users:read:"+ids[rng.IntN(len(ids))])
	return as(t, perms...), fmt.Sprintf("%d of %d", len(some), len(ids))
}

// unpaginated returns the ids of GET /streams that match query, in order.
// That listing checks every stream's permission; the paginated one only
// those of the streams the caller's permissions name.
func unpaginated(t *testing.T, e *env, p *auth.Principal, query string) []string {
	t.Helper()
	r := e.do(p, "GET", "/streams", nil).want(t, http.StatusOK)
	q, err := api.ParseQuery(query, "title", "title", "description")
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, s := range r.get("streams").Array() {
		if q.Match(func(f string) string { return s.Get(f).String() }) {
			ids = append(ids, s.Get("id").String())
		}
	}
	if int(r.get("total").Int()) != len(r.get("streams").Array()) {
		t.Errorf("GET /streams total %d for %d streams", r.get("total").Int(), len(r.get("streams").Array()))
	}
	return ids
}

// allPages returns the ids of every page of /streams/paginated, checking
// each page's envelope on the way.
func allPages(t *testing.T, e *env, p *auth.Principal, query string, perPage int) (ids []string, total int) {
	t.Helper()
	ids = []string{}
	matched := -1
	for page := 1; ; page++ {
		path := fmt.Sprintf("/streams/paginated?per_page=%d&page=%d&query=%s", perPage, page, url.QueryEscape(query))
		r := e.do(p, "GET", path, nil).want(t, http.StatusOK)
		pg := r.get("pagination")
		if matched < 0 {
			matched = int(pg.Get("total").Int())
		}
		items := r.get("streams").Array()
		if int(pg.Get("total").Int()) != matched || int(pg.Get("count").Int()) != len(items) ||
			pg.Get("page").Int() != int64(page) || pg.Get("per_page").Int() != int64(perPage) {
			t.Fatalf("page %d: pagination %s with %d items", page, pg.Raw, len(items))
		}
		if want := min(perPage, max(0, matched-(page-1)*perPage)); len(items) != want {
			t.Fatalf("page %d has %d items, want %d", page, len(items), want)
		}
		total = int(r.get("total").Int())
		ids = append(ids, idsOf(r.get("streams"))...)
		if len(items) == 0 {
			break
		}
	}
	if len(ids) != matched {
		t.Errorf("pages hold %d streams, pagination.total says %d", len(ids), matched)
	}
	return ids, total
}
