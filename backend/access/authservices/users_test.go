package authservices_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/access/users"
)

// fakeUsers holds users by backend id.
type fakeUsers struct {
	byBackend map[string][]authservices.UserOverview
	err       error
}

func (f fakeUsers) ByAuthService(_ context.Context, id string) ([]authservices.UserOverview, error) {
	return slices.Clone(f.byBackend[id]), f.err
}

type userListing struct {
	Total, Count, Page int
	PerPage            int  `json:"per_page"`
	GrandTotal         *int `json:"grand_total"`
	Users              []authservices.UserOverview
	Context            struct {
		Roles map[string]map[string]string `json:"roles"`
	}
}

func usernames(l userListing) []string {
	var out []string
	for _, u := range l.Users {
		out = append(out, u.Username)
	}
	return out
}

func TestBackendUsers(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("A", "")).ID
	other := e.create(t, backendJSON("B", "")).ID
	const deletedRole = "5f1f0f0f0f0f0f0f0f0f0fff"
	e.svc.SetUsers(fakeUsers{byBackend: map[string][]authservices.UserOverview{
		id: {
			{Overview: users.Overview{ID: "u1", Username: "carol", FullName: "Carol Zeta", Email: "carol@example.org"}, Roles: []string{readerID}},
			{Overview: users.Overview{ID: "u2", Username: "alice", FullName: "alice Liddell", Email: "alice@example.org"}, Roles: []string{readerID, adminID}},
			{Overview: users.Overview{ID: "u3", Username: "bob", FullName: "Bob Builder", Email: "bob@corp.example"}, Roles: []string{deletedRole}},
			{Overview: users.Overview{ID: "u4", Username: "dave", FullName: "Dave", Email: "dave@corp.example"}},
		},
		other: {{Overview: users.Overview{ID: "u9", Username: "zed", FullName: "Zed"}}},
	}})
	path := backendsPath + "/" + id + "/users"
	cases := []struct {
		name, query string
		want        []string
		total       int
		roles       []string
	}{
		{"default sort", "", []string{"alice", "bob", "carol", "dave"}, 4, []string{readerID, adminID}},
		{"by username desc", "?sort=username&order=desc", []string{"dave", "carol", "bob", "alice"}, 4, []string{readerID, adminID}},
		{"by email", "?sort=email", []string{"alice", "bob", "carol", "dave"}, 4, []string{readerID, adminID}},
		{"page", "?per_page=2&page=2", []string{"carol", "dave"}, 4, []string{readerID}},
		{"full name query", "?query=b", []string{"bob"}, 1, nil},
		{"email query", "?query=email:corp", []string{"bob", "dave"}, 2, nil},
		{"page past the end", "?page=9", nil, 4, nil},
	}
	for _, c := range cases {
		var l userListing
		e.ok(t, call{method: "GET", path: path + c.query, perms: admin}, http.StatusOK, &l)
		if !slices.Equal(usernames(l), c.want) || l.Total != c.total || l.Count != len(c.want) || l.GrandTotal == nil || *l.GrandTotal != 4 {
			t.Errorf("%s: %v total %d count %d grand %v, want %v total %d", c.name, usernames(l), l.Total, l.Count, l.GrandTotal, c.want, c.total)
		}
		if l.Users == nil || l.Context.Roles == nil {
			t.Errorf("%s: users %v, roles %v must be lists and objects, not null", c.name, l.Users, l.Context.Roles)
		}
		var roles []string
		for rid, r := range l.Context.Roles {
			if r["title"] != roleIDs[rid] {
				t.Errorf("%s: role %s titled %q", c.name, rid, r["title"])
			}
			roles = append(roles, rid)
		}
		slices.Sort(roles)
		want := slices.Sorted(slices.Values(c.roles))
		if !slices.Equal(roles, want) {
			t.Errorf("%s: role context %v, want %v", c.name, roles, want)
		}
		for _, u := range l.Users {
			if u.Roles == nil {
				t.Errorf("%s: %s has roles null", c.name, u.Username)
			}
		}
	}
	for _, c := range []struct {
		c    call
		want int
	}{
		{call{method: "GET", path: path}, http.StatusUnauthorized},
		{call{method: "GET", path: path, perms: []string{"users:read"}}, http.StatusForbidden},
		{call{method: "GET", path: path, perms: []string{"authserviceglobalconfig:read"}}, http.StatusForbidden},
		{call{method: "GET", path: path, perms: []string{"authserviceglobalconfig:read", "users:read"}}, http.StatusOK},
		{call{method: "GET", path: path + "?sort=roles", perms: admin}, http.StatusBadRequest},
		{call{method: "GET", path: path + "?query=roles:x", perms: admin}, http.StatusBadRequest},
	} {
		if w := e.do(t, c.c); w.Code != c.want {
			t.Errorf("GET %s with %q: %d %s, want %d", c.c.path, c.c.perms, w.Code, w.Body, c.want)
		}
	}
}

func TestBackendUsersFailures(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("A", "")).ID
	path := backendsPath + "/" + id + "/users"
	if w := e.do(t, call{method: "GET", path: path, perms: admin}); w.Code != http.StatusInternalServerError {
		t.Errorf("without a user service: %d %s, want 500", w.Code, w.Body)
	}
	e.svc.SetUsers(fakeUsers{err: errors.New("users store down")})
	if w := e.do(t, call{method: "GET", path: path, perms: admin}); w.Code != http.StatusInternalServerError {
		t.Errorf("with a failing user service: %d %s, want 500", w.Code, w.Body)
	}
}
