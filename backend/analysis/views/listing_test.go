package views_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
)

// listing is Graylog's PaginatedResponse of views.
type listing struct {
	Total      int               `json:"total"`
	Count      int               `json:"count"`
	Page       int               `json:"page"`
	PerPage    int               `json:"per_page"`
	Query      string            `json:"query"`
	GrandTotal int               `json:"grand_total"`
	Views      []json.RawMessage `json:"views"`
}

func (l listing) views(t testing.TB) []views.View {
	t.Helper()
	out := make([]views.View, len(l.Views))
	for i, raw := range l.Views {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return out
}

func titles(vs []views.View) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Title
	}
	return out
}

// listFixture holds six views of two owners, created in this order.
type listFixture struct {
	*env
	byTitle map[string]views.View
}

func newListFixture(t *testing.T) listFixture {
	t.Helper()
	e := newEnv(t)
	f := listFixture{env: e, byTitle: map[string]views.View{}}
	for _, v := range []struct {
		owner       string
		typ         views.Type
		title, desc string
	}{
		{"alice", views.Search, "Beta", "disk errors"},
		{"alice", views.Search, "alpha", "web"},
		{"alice", views.Dashboard, "Gamma", "Disk usage"},
		{"alice", views.Dashboard, "delta", ""},
		{"bob", views.Search, "Epsilon", "logins"},
		{"bob", views.Dashboard, "zeta", "firewall"},
	} {
		f.byTitle[v.title] = e.add(v.owner, v.typ, v.title, v.desc)
	}
	return f
}

func TestListings(t *testing.T) {
	t.Parallel()
	created := []string{"Beta", "alpha", "Gamma", "delta", "Epsilon", "zeta"}
	byTitle := []string{"alpha", "Beta", "delta", "Epsilon", "Gamma", "zeta"}
	tests := []struct {
		name   string
		who    string
		perms  []string // {Gamma} stands for Gamma's id
		path   string
		titles []string
		total  int
		grand  int
	}{
		{"owner sees own views", "alice", nil, "/views", []string{"alpha", "Beta", "delta", "Gamma"}, 4, 6},
		{"owner's dashboards", "alice", nil, "/dashboards", []string{"delta", "Gamma"}, 2, 3},
		{"owner's searches", "alice", nil, "/search/saved", []string{"alpha", "Beta"}, 2, 3},
		{"stranger sees nothing", "carol", nil, "/views", []string{}, 0, 6},
		{"reader of all views", "carol", []string{"view:read:*"}, "/views", byTitle, 6, 6},
		{"title descending", "carol", []string{"view:read"}, "/views?sort=title&order=desc", reversed(byTitle), 6, 6},
		{"order is case-insensitive", "carol", []string{"view:read"}, "/views?order=DESC", reversed(byTitle), 6, 6},
		{"created_at", "carol", []string{"view:read"}, "/views?sort=created_at", created, 6, 6},
		{"created_at descending", "carol", []string{"view:read"}, "/views?sort=created_at&order=desc", reversed(created), 6, 6},
		{"id is creation order", "carol", []string{"view:read"}, "/views?sort=id", created, 6, 6},
		{"second page", "carol", []string{"view:read"}, "/views?per_page=4&page=2", []string{"Gamma", "zeta"}, 6, 6},
		{"page past the end", "carol", []string{"view:read"}, "/views?per_page=4&page=3", []string{}, 6, 6},
		{"bare query searches title", "carol", []string{"view:read"}, "/views?query=ta", []string{"Beta", "delta", "zeta"}, 3, 6},
		{"title field", "carol", []string{"view:read"}, "/views?query=title:GAMMA", []string{"Gamma"}, 1, 6},
		{"summary searches the description", "carol", []string{"view:read"}, "/views?query=summary:disk", []string{"Beta", "Gamma"}, 2, 6},
		{"negated summary", "carol", []string{"view:read"}, "/views?query=-summary:disk", []string{"alpha", "delta", "Epsilon", "zeta"}, 4, 6},
		{"id field", "carol", []string{"view:read"}, "/views?query=id:{Gamma}", []string{"Gamma"}, 1, 6},
		{"query and type", "carol", []string{"view:read"}, "/dashboards?query=summary:disk", []string{"Gamma"}, 1, 3},
		{"dashboards:read grants a dashboard", "bob", []string{"dashboards:read:{Gamma}"}, "/dashboards", []string{"Gamma", "zeta"}, 2, 3},
		{"dashboards:read grants no search", "bob", []string{"dashboards:read:*"}, "/search/saved", []string{"Epsilon"}, 1, 3},
		{"view:read on one view", "carol", []string{"view:read:{Gamma}"}, "/views", []string{"Gamma"}, 1, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newListFixture(t)
			gamma := f.byTitle["Gamma"].ID
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = strings.ReplaceAll(p, "{Gamma}", gamma)
			}
			path := strings.ReplaceAll(tt.path, "{Gamma}", gamma)
			w := f.Do(user(t, tt.who, perms...), "GET", path, "")
			wantStatus(t, w, 200, "")
			l := decodeJSON[listing](t, w)
			if got := titles(l.views(t)); !slices.Equal(got, tt.titles) {
				t.Errorf("titles %q, want %q", got, tt.titles)
			}
			if l.Total != tt.total || l.GrandTotal != tt.grand || l.Count != len(tt.titles) {
				t.Errorf("total %d, grand_total %d, count %d; want %d, %d, %d", l.Total, l.GrandTotal, l.Count, tt.total, tt.grand, len(tt.titles))
			}
			u, _ := url.Parse(path)
			if l.Query != u.Query().Get("query") {
				t.Errorf("query %q, want %q", l.Query, u.Query().Get("query"))
			}
			body := decodeJSON[map[string]json.RawMessage](t, w)
			if string(body["views"]) == "null" {
				t.Error("views is null, want a list")
			}
		})
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestListingEnvelope(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	w := f.Do(user(t, "alice"), "GET", "/views?per_page=1&page=2", "")
	wantStatus(t, w, 200, "")
	body := decodeJSON[map[string]json.RawMessage](t, w)
	var keys []string
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"count", "grand_total", "page", "per_page", "query", "total", "views"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %q, want %q", keys, want)
	}
	l := decodeJSON[listing](t, w)
	if l.Page != 2 || l.PerPage != 1 || l.Count != 1 {
		t.Fatalf("page %d, per_page %d, count %d", l.Page, l.PerPage, l.Count)
	}
	// A listed view is the whole ViewDTO, as GET /views/{id} shows it.
	id := l.views(t)[0].ID
	g := f.Do(user(t, "alice"), "GET", "/views/"+id, "")
	if !sameJSON(t, l.Views[0], g.Body.Bytes()) {
		t.Fatalf("listed %s\nGET %s", l.Views[0], g.Body)
	}
}

func TestListingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query string
		msg         string
	}{
		{"unknown sort field", "sort=owner", `Invalid sort field "owner"; use one of id, title, created_at`},
		{"sort by summary", "sort=summary", `Invalid sort field "summary"`},
		{"bad order", "order=sideways", `Invalid order "sideways"`},
		{"page zero", "page=0", `Invalid page "0"`},
		{"per_page not a number", "per_page=x", `Invalid per_page "x"`},
		{"unknown query field", "query=owner:alice", `unknown field "owner"; searchable fields are id, title, summary`},
		{"unterminated quote", "query=%22abc", "unterminated quote"},
	}
	for _, path := range []string{"/views", "/dashboards", "/search/saved"} {
		for _, tt := range tests {
			t.Run(path+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				w := e.Do(user(t, "alice"), "GET", path+"?"+tt.query, "")
				wantStatus(t, w, 400, "")
				if got := errorText(t, w, ""); !strings.Contains(got, tt.msg) {
					t.Fatalf("message %q does not contain %q", got, tt.msg)
				}
			})
		}
		t.Run(path+"/anonymous", func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			wantStatus(t, e.Do(nil, "GET", path, ""), 401, "")
		})
	}
}

// pages reads every page of a listing and checks each page's envelope.
func pages(t *testing.T, e *env, p *auth.Principal, path string, perPage int) (ids []string, total, grand int) {
	t.Helper()
	for page := 1; ; page++ {
		w := e.Do(p, "GET", fmt.Sprintf("%s?per_page=%d&page=%d", path, perPage, page), "")
		wantStatus(t, w, 200, "")
		l := decodeJSON[listing](t, w)
		if page > 1 && (l.Total != total || l.GrandTotal != grand) {
			t.Fatalf("%s page %d: total %d, grand %d changed from %d, %d", path, page, l.Total, l.GrandTotal, total, grand)
		}
		total, grand = l.Total, l.GrandTotal
		vs := l.views(t)
		if l.Count != len(vs) || len(vs) > perPage {
			t.Fatalf("%s page %d: count %d of %d views, per_page %d", path, page, l.Count, len(vs), perPage)
		}
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
		if len(vs) == 0 {
			if len(ids) != total {
				t.Fatalf("%s: %d views on all pages, total %d", path, len(ids), total)
			}
			return ids, total, grand
		}
	}
}

// TestListingIsUnion checks, on random views and callers, that all pages of
// /views hold exactly the views of all pages of /dashboards and
// /search/saved, and that each listing only holds what the caller may read.
func TestListingIsUnion(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 2))
	owners := []string{"alice", "bob", "carol"}
	words := []string{"Web", "web", "disk", "Disk", "auth", "a", "", "Zed"}
	for round := range 8 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			e := newEnv(t)
			var all []views.View
			for range 5 + rng.IntN(30) {
				typ := views.Search
				if rng.IntN(2) == 0 {
					typ = views.Dashboard
				}
				title := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
				all = append(all, e.add(owners[rng.IntN(len(owners))], typ, title, words[rng.IntN(len(words))]))
			}
			// The caller owns some views and holds random instance
			// permissions on others.
			var perms []string
			for _, v := range all {
				switch rng.IntN(6) {
				case 0:
					perms = append(perms, "view:read:"+v.ID)
				case 1:
					perms = append(perms, "dashboards:read:"+v.ID)
				case 2:
					perms = append(perms, "view:edit:"+v.ID)
				}
			}
			p := user(t, owners[rng.IntN(len(owners))], perms...)
			readable := map[string]bool{}
			for _, v := range all {
				if (v.Owner != nil && *v.Owner == p.Username) || p.Permits("view:read:"+v.ID) ||
					v.Type == views.Dashboard && p.Permits("dashboards:read:"+v.ID) {
					readable[v.ID] = true
				}
			}
			perPage := 1 + rng.IntN(7)
			viewIDs, total, grand := pages(t, e, p, "/views", perPage)
			dashIDs, dashTotal, dashGrand := pages(t, e, p, "/dashboards", perPage)
			searchIDs, searchTotal, searchGrand := pages(t, e, p, "/search/saved", perPage)
			union := append(slices.Clone(dashIDs), searchIDs...)
			slices.Sort(union)
			sorted := slices.Clone(viewIDs)
			slices.Sort(sorted)
			if !slices.Equal(sorted, union) {
				t.Fatalf("/views %q\n!= /dashboards ∪ /search/saved %q", sorted, union)
			}
			if len(slices.Compact(slices.Clone(sorted))) != len(sorted) {
				t.Fatalf("a view is listed twice: %q", sorted)
			}
			if total != dashTotal+searchTotal || grand != dashGrand+searchGrand || grand != len(all) {
				t.Fatalf("totals %d = %d + %d, grand %d = %d + %d, %d views", total, dashTotal, searchTotal, grand, dashGrand, searchGrand, len(all))
			}
			if len(sorted) != len(readable) {
				t.Fatalf("%d listed, %d readable", len(sorted), len(readable))
			}
			for _, id := range sorted {
				if !readable[id] {
					t.Fatalf("%s is listed but not readable", id)
				}
			}
		})
	}
}
