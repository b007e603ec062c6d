package compat_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

var pathVar = regexp.MustCompile(`\{[^}]+\}`)

// Every row of the field history applies to every answer that carries the
// resource: a client of the release before the field's does not see it, a
// client of that release does, and the record's other fields stay.
func TestFieldHistoryRows(t *testing.T) {
	chain := compat.NewChain("/api", compat.FieldAdditions()...)
	for _, row := range compat.FieldHistory {
		routes, paths := compat.FieldPlacements(row.Resource)
		if len(routes) == 0 {
			t.Errorf("%s.%s: no answers carry %s", row.Resource, row.Field, row.Resource)
		}
		since := compat.MustRelease(row.Since)
		for i, route := range routes {
			method, tpl, _ := strings.Cut(route, " ")
			record := `{"` + row.Field + `":"new","kept":1}`
			// The record sits at the placement's path: "#" an array
			// element, any other segment an object member.
			body, at := record, ""
			if p := paths[i]; p != "" {
				segs := strings.Split(p, ".")
				for j := len(segs) - 1; j >= 0; j-- {
					if segs[j] == "#" {
						body = "[" + body + "]"
					} else {
						body = `{"` + segs[j] + `":` + body + "}"
					}
				}
				at = strings.ReplaceAll(p, "#", "0") + "."
			}
			backend := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				api.WriteRawJSON(w, http.StatusOK, []byte(body))
			})
			h := chain.Wrap(backend, func(w http.ResponseWriter, r *http.Request, err error) { api.WriteError(w, r, err) })
			for _, c := range []struct {
				rel  compat.Release
				sees bool
			}{{since.Previous(), false}, {since, true}, {compat.Latest, true}} {
				r := httptest.NewRequest(method, "/api"+pathVar.ReplaceAllString(tpl, "x1"), nil)
				r = r.WithContext(compat.WithClient(r.Context(), compat.Client{Release: c.rel, Source: compat.FromHeader}))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				got := gjson.Get(w.Body.String(), at+row.Field).Exists()
				if got != c.sees || !gjson.Get(w.Body.String(), at+"kept").Exists() {
					t.Errorf("%s as %s: %s, want %s present: %v", route, c.rel, w.Body, row.Field, c.sees)
				}
			}
		}
	}
}

// The fields old clients tripped over, end to end.
func TestOldClientsDoNotSeeNewerFields(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	h.CreateUser("jane", "secret123")
	is := h.Do("GET", "/system/indices/index_sets", nil, root).Get(`index_sets.#(default==true).id`).String()
	sid := h.Do("POST", "/streams", map[string]any{"title": "web", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	login := map[string]string{"username": "jane", "password": "secret123", "host": ""}
	for _, c := range []struct {
		rel, method, path string
		body              any
		hidden            []string
		shown             []string
	}{
		{"2.4", "GET", "/users/jane", nil, []string{"grn_permissions", "account_status", "service_account"}, []string{"id", "username", "permissions", "roles"}},
		{"4.0", "GET", "/users/jane", nil, nil, []string{"grn_permissions", "account_status", "service_account"}},
		{"2.4", "GET", "/users", nil, []string{"users.0.grn_permissions", "users.0.account_status"}, []string{"users.0.username"}},
		{"2.4", "POST", "/system/sessions", login, []string{"username", "user_id"}, []string{"session_id", "valid_until"}},
		{"3.3", "POST", "/system/sessions", login, []string{"user_id"}, []string{"username", "session_id"}},
		{"4.0", "POST", "/system/sessions", login, nil, []string{"username", "user_id"}},
		{"1.3", "GET", "/streams/" + sid, nil, []string{"index_set_id", "is_default", "remove_matches_from_default_stream"}, []string{"id", "title", "rules"}},
		{"2.2", "GET", "/streams/" + sid, nil, nil, []string{"index_set_id", "is_default", "remove_matches_from_default_stream"}},
	} {
		r := h.Do(c.method, c.path, c.body, root, nodetest.Header("X-API-Version", c.rel))
		if r.Status >= 300 {
			t.Fatalf("%s %s as %s: %d %s", c.method, c.path, c.rel, r.Status, r.Body)
		}
		for _, f := range c.hidden {
			if r.Get(f).Exists() {
				t.Errorf("%s %s as %s shows %s: %s", c.method, c.path, c.rel, f, r.Body)
			}
		}
		for _, f := range c.shown {
			if !r.Get(f).Exists() {
				t.Errorf("%s %s as %s lacks %s: %s", c.method, c.path, c.rel, f, r.Body)
			}
		}
	}
}
