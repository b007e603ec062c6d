package grok_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/grok"
)

func TestAuthorization(t *testing.T) {
	e := newEnv(t)
	id := e.svc.All()[0].ID
	cases := []struct {
		c    call
		want int
	}{
		{call{method: "GET", path: "/system/grok"}, http.StatusUnauthorized},
		{call{method: "GET", path: "/system/grok", perms: []string{"streams:read"}}, http.StatusForbidden},
		{call{method: "GET", path: "/system/grok/paginated", perms: []string{"inputs:create"}}, http.StatusForbidden},
		{call{method: "GET", path: "/system/grok/" + id, perms: []string{"inputs:edit"}}, http.StatusForbidden},
		{call{method: "POST", path: "/system/grok", body: `{"name":"X","pattern":"x"}`, perms: []string{"inputs:read", "inputs:edit"}}, http.StatusForbidden},
		{call{method: "POST", path: "/system/grok", ctype: "text/plain", body: "X x", perms: []string{"inputs:edit"}}, http.StatusForbidden},
		{call{method: "PUT", path: "/system/grok", body: `{"patterns":[]}`, perms: []string{"inputs:edit"}}, http.StatusForbidden},
		{call{method: "PUT", path: "/system/grok/" + id, body: `{"name":"X","pattern":"x"}`, perms: []string{"inputs:create"}}, http.StatusForbidden},
		{call{method: "DELETE", path: "/system/grok/" + id, perms: []string{"inputs:create", "inputs:read"}}, http.StatusForbidden},
		{call{method: "POST", path: "/system/grok/test", body: `{"grok_pattern":{"name":"X","pattern":"x"},"sampleData":"x"}`}, http.StatusUnauthorized},
		// Testing needs no permission, only a user.
		{call{method: "POST", path: "/system/grok/test", body: `{"grok_pattern":{"name":"X","pattern":"x"},"sampleData":"x"}`, perms: []string{}}, http.StatusOK},
		{call{method: "GET", path: "/system/grok", perms: []string{"inputs:read"}}, http.StatusOK},
		{call{method: "GET", path: "/system/grok", perms: []string{"inputs:*"}}, http.StatusOK},
	}
	for _, c := range cases {
		if w := e.do(c.c); w.Code != c.want {
			t.Errorf("%s %s with %q: %d %s, want %d", c.c.method, c.c.path, c.c.perms, w.Code, w.Body, c.want)
		}
	}
	if n, _ := e.svc.Count(t.Context()); n != len(grok.DefaultPatterns()) {
		t.Errorf("refused requests changed the patterns: %d stored", n)
	}
}

func TestListIsDeprecated(t *testing.T) {
	e := newEnv(t)
	var body struct {
		Patterns []grok.Pattern `json:"patterns"`
	}
	w := e.ok(call{method: "GET", path: "/system/grok", perms: admin}, 200, &body)
	if w.Header().Get("Deprecation") != "true" || !strings.Contains(w.Header().Get("Link"), "/system/grok/paginated") {
		t.Errorf("headers %v lack the deprecation", w.Header())
	}
	if !reflect.DeepEqual(body.Patterns, e.svc.All()) || len(body.Patterns) != len(grok.DefaultPatterns()) {
		t.Errorf("listed %d patterns, want the %d stored", len(body.Patterns), len(e.svc.All()))
	}
	if !slices.IsSortedFunc(body.Patterns, func(a, b grok.Pattern) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	}) {
		t.Errorf("not sorted by name: %v", names(body.Patterns))
	}
	for _, p := range body.Patterns {
		if p.ID == "" || p.Name == "" || p.Pattern == "" || p.ContentPack != nil {
			t.Errorf("pattern %+v", p)
		}
	}
	// content_pack is written as null, as Graylog does.
	if !strings.Contains(w.Body.String(), `"content_pack":null`) {
		t.Errorf("body lacks content_pack: %.200s", w.Body)
	}
}

type pageBody struct {
	Total      int            `json:"total"`
	Count      int            `json:"count"`
	Page       int            `json:"page"`
	PerPage    int            `json:"per_page"`
	GrandTotal int            `json:"grand_total"`
	Patterns   []grok.Pattern `json:"patterns"`
}

func TestPaginated(t *testing.T) {
	e := newEnv(t)
	all := e.svc.All()
	filter := func(keep func(grok.Pattern) bool) []string {
		var out []string
		for _, p := range all {
			if keep(p) {
				out = append(out, p.Name)
			}
		}
		return out
	}
	reversed := names(all)
	slices.Reverse(reversed)
	cases := []struct {
		query string
		want  []string // every name that matches, in order
		page  []string // the names of the page asked for; nil for all of want
	}{
		{"", names(all), names(all)[:50]},
		{"page=2&per_page=30", names(all), names(all)[30:60]},
		{"page=9&per_page=30", names(all), []string{}},
		{"order=desc&per_page=1000", reversed, reversed},
		{"query=ipv", filter(func(p grok.Pattern) bool { return strings.Contains(strings.ToLower(p.Name), "ipv") }), nil},
		{"query=pattern:ipv4", filter(func(p grok.Pattern) bool { return strings.Contains(p.Pattern, "IPV4") }), nil},
		{"query=-name:e&per_page=1000", filter(func(p grok.Pattern) bool { return !strings.Contains(strings.ToLower(p.Name), "e") }), nil},
		{"query=nothing-matches-this", []string{}, nil},
	}
	for _, c := range cases {
		var body pageBody
		e.ok(call{method: "GET", path: "/system/grok/paginated?" + c.query, perms: admin}, 200, &body)
		page := c.page
		if page == nil {
			page = c.want
		}
		if len(c.want) == 0 && c.query != "query=nothing-matches-this" {
			t.Fatalf("%q: the test expects nothing; the defaults changed?", c.query)
		}
		if body.Total != len(c.want) || body.GrandTotal != len(all) || body.Count != len(body.Patterns) ||
			!slices.Equal(names(body.Patterns), page) {
			t.Errorf("%q: total %d grand %d count %d %v; want total %d grand %d %v",
				c.query, body.Total, body.GrandTotal, body.Count, names(body.Patterns), len(c.want), len(all), page)
		}
	}
	sorted := e.svc.All()
	slices.SortStableFunc(sorted, func(a, b grok.Pattern) int {
		return strings.Compare(strings.ToLower(a.Pattern), strings.ToLower(b.Pattern))
	})
	var body pageBody
	e.ok(call{method: "GET", path: "/system/grok/paginated?sort=pattern&per_page=1000", perms: admin}, 200, &body)
	if !slices.Equal(names(body.Patterns), names(sorted)) {
		t.Errorf("sort=pattern: %v", names(body.Patterns))
	}
	for _, bad := range []string{"page=0", "per_page=-1", "sort=secret", "order=up", "query=secret:x", `query="open`} {
		var eb errorBody
		e.ok(call{method: "GET", path: "/system/grok/paginated?" + bad, perms: admin}, 400, &eb)
		if eb.Type != "ApiError" || eb.Message == "" {
			t.Errorf("%q: %+v", bad, eb)
		}
	}
}

// The deprecated listing and the pages of the paginated one show the same
// patterns in the same order, whatever the page size.
func TestListingsAgree(t *testing.T) {
	e := newEnv(t)
	// Mixed case and a name that sorts between defaults.
	e.ok(call{method: "POST", path: "/system/grok", ctype: "text/plain", body: "lower_case x\nZ_LAST z\nA_FIRST a\nmIxEd m", perms: admin}, 202, nil)
	var list struct {
		Patterns []grok.Pattern `json:"patterns"`
	}
	e.ok(call{method: "GET", path: "/system/grok", perms: admin}, 200, &list)
	for _, per := range []int{1, 3, 7, 50, len(list.Patterns), 1000} {
		var paged []grok.Pattern
		for page := 1; ; page++ {
			var body pageBody
			e.ok(call{method: "GET", path: fmt.Sprintf("/system/grok/paginated?page=%d&per_page=%d", page, per), perms: admin}, 200, &body)
			if body.Total != len(list.Patterns) || body.Page != page || body.PerPage != per {
				t.Fatalf("per_page %d page %d: %+v", per, page, body)
			}
			if len(body.Patterns) == 0 {
				break
			}
			paged = append(paged, body.Patterns...)
		}
		if !reflect.DeepEqual(paged, list.Patterns) {
			t.Errorf("per_page %d: pages %v differ from the list %v", per, names(paged), names(list.Patterns))
		}
	}
}

func TestGet(t *testing.T) {
	e := newEnv(t)
	want, _ := e.byName("IPV4")
	var got grok.Pattern
	e.ok(call{method: "GET", path: "/system/grok/" + want.ID, perms: admin}, 200, &got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, id := range []string{"000000000000000000000000", "not-an-object-id"} {
		var eb errorBody
		e.ok(call{method: "GET", path: "/system/grok/" + id, perms: admin}, 404, &eb)
		if eb.Message != "Couldn't find Grok pattern with ID "+id {
			t.Errorf("%s: %+v", id, eb)
		}
	}
}

func TestCreate(t *testing.T) {
	e := newEnv(t)
	var created grok.Pattern
	body := `{"id":"5f0000000000000000000000","name":"NGINX_STATUS","pattern":"%{NUMBER:status:int} %{WORD}","content_pack":"pack"}`
	w := e.ok(call{method: "POST", path: "/system/grok", body: body, perms: admin}, 201, &created)
	if created.ID == "" || created.ID == "5f0000000000000000000000" || created.Name != "NGINX_STATUS" ||
		created.Pattern != "%{NUMBER:status:int} %{WORD}" || created.ContentPack == nil || *created.ContentPack != "pack" {
		t.Errorf("created %+v", created)
	}
	if loc := w.Header().Get("Location"); !strings.HasSuffix(loc, "/system/grok/"+created.ID) {
		t.Errorf("Location %q", loc)
	}
	var got grok.Pattern
	e.ok(call{method: "GET", path: "/system/grok/" + created.ID, perms: admin}, 200, &got)
	if !reflect.DeepEqual(got, created) {
		t.Errorf("stored %+v, want %+v", got, created)
	}
	// The web interface sends an empty id; Graylog's model also reads _id.
	e.ok(call{method: "POST", path: "/system/grok", body: `{"id":"","name":"FROM_UI","pattern":"x"}`, perms: admin}, 201, nil)
	e.ok(call{method: "POST", path: "/system/grok", body: `{"_id":"5f0000000000000000000001","name":"WITH_ID","pattern":"x"}`, perms: admin}, 201, nil)
}

func TestCreateRefused(t *testing.T) {
	e := newEnv(t)
	before := e.svc.All()
	cases := []struct {
		name       string
		ctype      string
		body       string
		status     int
		validation bool   // ValidationApiError rather than ApiError
		msg        string // part of a message
	}{
		{"taken name", "", `{"name":"WORD","pattern":"x"}`, 400, true, "Grok pattern WORD already exists"},
		{"unknown reference", "", `{"name":"X","pattern":"%{WORD} %{NOPE}"}`, 400, true, "Invalid pattern X: no definition for key 'NOPE' found"},
		{"bad regex", "", `{"name":"X","pattern":"(%{WORD}"}`, 400, true, "Invalid pattern X: invalid regular expression: error parsing regexp: missing closing )"},
		{"bad regex via reference", "", `{"name":"X","pattern":"%{WORD})"}`, 400, true, "unexpected )"},
		{"self reference", "", `{"name":"X","pattern":"a%{X}"}`, 400, true, "circular reference X -> X"},
		{"empty name", "", `{"name":"","pattern":"x"}`, 400, true, "Invalid pattern: the name must not be empty"},
		{"missing name", "", `{"pattern":"x"}`, 400, true, "the name must not be empty"},
		{"blank in name", "", `{"name":"MY PATTERN","pattern":"x"}`, 400, true, "may only contain letters, digits and underscores"},
		{"dash in name", "", `{"name":"MY-PATTERN","pattern":"x"}`, 400, true, "may only contain letters, digits and underscores"},
		{"empty pattern", "", `{"name":"X","pattern":""}`, 400, true, "Invalid pattern X: the pattern must not be empty"},
		{"unreadable reference", "", `{"name":"X","pattern":"%{WORD:a-b}"}`, 400, true, "%{WORD:a-b} is not a valid reference"},
		{"Graylog date conversion", "", `{"name":"X","pattern":"%{DATA:ts;date;yyyy}"}`, 400, true, "is not a valid reference"},
		{"unknown type", "", `{"name":"X","pattern":"%{NUMBER:n:date}"}`, 400, true, `unsupported type "date"`},
		{"unterminated reference", "", `{"name":"BAD","pattern":"%{NOPE"}`, 400, true, "Invalid pattern BAD: %{NOPE is not a valid reference"},
		{"unterminated after a reference", "", `{"name":"BAD","pattern":"%{WORD} %{INT:n"}`, 400, true, "%{INT:n is not a valid reference"},
		{"unknown property", "", `{"name":"X","pattern":"x","extra":1}`, 400, false, "Unable to map property extra"},
		{"malformed JSON", "", `{"name":`, 400, false, "Unable to parse JSON"},
		{"no body", "application/json", ``, 400, false, "Request body is mandatory"},
		{"other media type", "application/xml", `<x/>`, 415, false, "HTTP 415 Unsupported Media Type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var eb errorBody
			e.ok(call{method: "POST", path: "/system/grok", ctype: c.ctype, body: c.body, perms: admin}, c.status, &eb)
			wantType := "ApiError"
			if c.validation {
				wantType = "ValidationApiError"
				if len(eb.ValidationErrors["_"]) == 0 {
					t.Errorf("no errors under _: %+v", eb)
				}
			}
			if eb.Type != wantType || !strings.Contains(eb.messages(), c.msg) {
				t.Errorf("got %s %q, want %s containing %q", eb.Type, eb.messages(), wantType, c.msg)
			}
		})
	}
	if after := e.svc.All(); !reflect.DeepEqual(after, before) {
		t.Errorf("refused creates changed the patterns: %d before, %d after", len(before), len(after))
	}
}

func TestImportFile(t *testing.T) {
	file := "# my patterns\n\nMY_NUM \t%{INT}\r\n  MY_PAIR %{MY_NUM:a}-%{MY_NUM:b}  \rnot-a-pattern line\n#MY_COMMENTED x\nMY_WORD %{WORD}"
	cases := []struct {
		name    string
		query   string
		file    string
		status  int
		msg     string
		present []string // names stored afterwards
		absent  []string // names not stored afterwards
	}{
		{"added", "", file, 202, "", []string{"MY_NUM", "MY_PAIR", "MY_WORD", "WORD"}, []string{"MY_COMMENTED", "not", "not-a-pattern"}},
		{"replace=false", "?replace=false", file, 202, "", []string{"MY_NUM", "IPV4"}, nil},
		{"replaced", "?replace=TRUE", "ONLY \\d+\nOTHER %{ONLY}", 202, "", []string{"ONLY", "OTHER"}, []string{"WORD", "IPV4"}},
		// The new patterns are validated among themselves: WORD is gone.
		{"replaced, reference to a replaced pattern", "?replace=true", "MINE %{WORD}", 400, "Invalid pattern MINE: no definition for key 'WORD'", []string{"WORD"}, []string{"MINE"}},
		{"taken name", "", "MY_NEW x\nWORD \\w+", 400, "Grok pattern WORD already exists", []string{"WORD"}, []string{"MY_NEW"}},
		{"one invalid", "", "MY_A x\nMY_B %{NOPE}\nMY_C (", 400, "Invalid pattern MY_B: no definition for key 'NOPE'", nil, []string{"MY_A", "MY_B", "MY_C"}},
		{"unterminated reference", "", "MY_A x\nMY_B %{NOPE", 400, "Invalid pattern MY_B: %{NOPE is not a valid reference", nil, []string{"MY_A", "MY_B"}},
		{"cycle", "", "MY_A %{MY_B}\nMY_B %{MY_A}", 400, "circular reference", nil, []string{"MY_A", "MY_B"}},
		{"twice", "", "MY_A x\nMY_A y", 400, "Grok pattern MY_A is defined more than once", nil, []string{"MY_A"}},
		// An empty file changes nothing, even with replace.
		{"empty", "?replace=true", "# nothing\n\n", 202, "", []string{"WORD", "IPV4"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			w := e.ok(call{method: "POST", path: "/system/grok" + c.query, ctype: "text/plain; charset=utf-8", body: c.file, perms: []string{"inputs:create"}}, c.status, nil)
			if c.status != 202 {
				var eb errorBody
				if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Type != "ValidationApiError" || !strings.Contains(eb.messages(), c.msg) {
					t.Errorf("got %s, want a message containing %q", w.Body, c.msg)
				}
			} else if w.Body.Len() != 0 {
				t.Errorf("202 with a body: %s", w.Body)
			}
			for _, n := range c.present {
				if _, ok := e.byName(n); !ok {
					t.Errorf("%s is not stored", n)
				}
			}
			for _, n := range c.absent {
				if _, ok := e.byName(n); ok {
					t.Errorf("%s is stored", n)
				}
			}
		})
	}
	e := newEnv(t)
	e.ok(call{method: "POST", path: "/system/grok", ctype: "text/plain", body: file, perms: admin}, 202, nil)
	if p, _ := e.byName("MY_PAIR"); p.Pattern != "%{MY_NUM:a}-%{MY_NUM:b}" {
		t.Errorf("MY_PAIR stored as %q", p.Pattern)
	}
	if _, err := e.svc.Compile("%{MY_PAIR}"); err != nil {
		t.Errorf("imported patterns do not compile: %v", err)
	}
}

func TestBulkPut(t *testing.T) {
	e := newEnv(t)
	word, _ := e.byName("WORD")
	body := mustJSON(t, map[string]any{"patterns": []map[string]any{
		{"id": word.ID, "name": "MY_WORD", "pattern": "%{WORD}"},
		{"name": "MY_NUM", "pattern": "%{INT}", "content_pack": "pack"},
	}})
	w := e.ok(call{method: "PUT", path: "/system/grok", body: body, perms: admin}, 202, nil)
	if w.Body.Len() != 0 {
		t.Errorf("202 with a body: %s", w.Body)
	}
	mine, ok := e.byName("MY_WORD")
	if !ok || mine.ID == word.ID {
		t.Errorf("MY_WORD %+v took the id of WORD %s", mine, word.ID)
	}
	if w, _ := e.byName("WORD"); !reflect.DeepEqual(w, word) {
		t.Errorf("WORD changed: %+v", w)
	}
	if n, _ := e.byName("MY_NUM"); n.ContentPack == nil || *n.ContentPack != "pack" {
		t.Errorf("MY_NUM %+v", n)
	}

	// Export, replace with the export: the ids stay.
	exported := e.svc.All()
	e.ok(call{method: "PUT", path: "/system/grok?replace=true", body: mustJSON(t, map[string]any{"patterns": exported}), perms: admin}, 202, nil)
	if after := e.svc.All(); !reflect.DeepEqual(after, exported) {
		t.Errorf("re-import changed the patterns")
	}

	// Several failures are reported together, and nothing is stored.
	bad := `{"patterns":[{"name":"GOOD","pattern":"x"},{"name":"BAD1","pattern":"%{NOPE}"},{"name":"BAD2","pattern":"["},{"name":"WORD","pattern":"w"},{"name":"BAD3","pattern":"%{NOPE"}]}`
	var eb errorBody
	e.ok(call{method: "PUT", path: "/system/grok", body: bad, perms: admin}, 400, &eb)
	for _, want := range []string{"Invalid pattern BAD1", "Invalid pattern BAD2", "Grok pattern WORD already exists", "Invalid pattern BAD3: %{NOPE is not a valid reference"} {
		if !strings.Contains(eb.messages(), want) {
			t.Errorf("%q lacks %q", eb.messages(), want)
		}
	}
	if _, ok := e.byName("GOOD"); ok {
		t.Error("GOOD was stored although the import failed")
	}
	for _, body := range []string{`{"patterns":[{"name":"X","pattern":"x","extra":1}]}`, `{"pattern":[]}`, `[]`} {
		e.ok(call{method: "PUT", path: "/system/grok", body: body, perms: admin}, 400, nil)
	}

	// An empty list with replace deletes everything, as in Graylog.
	e.ok(call{method: "PUT", path: "/system/grok?replace=true", body: `{"patterns":[]}`, perms: admin}, 202, nil)
	if n, err := e.svc.Count(t.Context()); n != 0 || err != nil || len(e.svc.All()) != 0 {
		t.Errorf("%d stored (%v) after replacing with nothing", n, err)
	}
}

func TestUpdate(t *testing.T) {
	e := newEnv(t)
	var a, b grok.Pattern
	e.ok(call{method: "POST", path: "/system/grok", body: `{"name":"MY_A","pattern":"%{WORD}","content_pack":"p"}`, perms: admin}, 201, &a)
	e.ok(call{method: "POST", path: "/system/grok", body: `{"name":"MY_B","pattern":"%{MY_A}!"}`, perms: admin}, 201, &b)

	var got grok.Pattern
	e.ok(call{method: "PUT", path: "/system/grok/" + a.ID, body: `{"id":"ignored","name":"MY_A","pattern":"%{INT}"}`, perms: admin}, 200, &got)
	if got.ID != a.ID || got.Pattern != "%{INT}" || got.ContentPack != nil {
		t.Errorf("updated %+v", got)
	}
	if stored, _ := e.svc.Get(a.ID); !reflect.DeepEqual(stored, got) {
		t.Errorf("stored %+v, answered %+v", stored, got)
	}
	m, err := e.svc.Compile("%{MY_B}")
	if err != nil || m.Match("42!")["INT"] != "42" {
		t.Errorf("MY_B after the update: %v", err)
	}

	cases := []struct {
		name, id, body string
		msg            string
	}{
		{"cycle", a.ID, `{"name":"MY_A","pattern":"%{MY_B}"}`, "circular reference MY_A -> MY_B -> MY_A"},
		{"taken name", a.ID, `{"name":"MY_B","pattern":"x"}`, "Grok pattern MY_B already exists"},
		{"renamed but refers to its old name", a.ID, `{"name":"MY_A2","pattern":"%{MY_A}"}`, "no definition for key 'MY_A'"},
		{"invalid", a.ID, `{"name":"MY_A","pattern":"[%{INT}"}`, "missing closing ]"},
		{"unterminated reference", a.ID, `{"name":"MY_A","pattern":"%{NOPE"}`, "%{NOPE is not a valid reference"},
		{"unknown id", "000000000000000000000000", `{"name":"MY_C","pattern":"x"}`, "there is no Grok pattern with ID 000000000000000000000000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.svc.All()
			var eb errorBody
			e.ok(call{method: "PUT", path: "/system/grok/" + c.id, body: c.body, perms: admin}, 400, &eb)
			if eb.Type != "ValidationApiError" || !strings.Contains(eb.messages(), c.msg) {
				t.Errorf("got %+v, want a message containing %q", eb, c.msg)
			}
			if !reflect.DeepEqual(e.svc.All(), before) {
				t.Error("a refused update changed the patterns")
			}
		})
	}
	e.ok(call{method: "PUT", path: "/system/grok/" + a.ID, body: `{"name":"MY_A","pattern":"x","bogus":1}`, perms: admin}, 400, nil)

	// A rename keeps the id; patterns using the old name are not checked,
	// as in Graylog, and fail to compile from then on.
	e.ok(call{method: "PUT", path: "/system/grok/" + a.ID, body: `{"name":"MY_RENAMED","pattern":"x"}`, perms: admin}, 200, &got)
	if _, ok := e.byName("MY_A"); ok || got.ID != a.ID {
		t.Errorf("rename: %+v", got)
	}
	if _, err := e.svc.Compile("%{MY_B}"); err == nil || !strings.Contains(err.Error(), "no definition for key 'MY_A'") {
		t.Errorf("MY_B compiled after MY_A was renamed: %v", err)
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	var a grok.Pattern
	e.ok(call{method: "POST", path: "/system/grok", body: `{"name":"MY_A","pattern":"%{WORD}"}`, perms: admin}, 201, &a)
	e.ok(call{method: "POST", path: "/system/grok", body: `{"name":"MY_B","pattern":"%{MY_A}"}`, perms: admin}, 201, nil)
	// Graylog 4.0 deletes a pattern that others use.
	w := e.ok(call{method: "DELETE", path: "/system/grok/" + a.ID, perms: admin}, 204, nil)
	if w.Body.Len() != 0 {
		t.Errorf("204 with a body: %s", w.Body)
	}
	e.ok(call{method: "GET", path: "/system/grok/" + a.ID, perms: admin}, 404, nil)
	var eb errorBody
	e.ok(call{method: "DELETE", path: "/system/grok/" + a.ID, perms: admin}, 404, &eb)
	if eb.Message != "Couldn't find Grok pattern with ID "+a.ID {
		t.Errorf("%+v", eb)
	}
	if _, err := e.svc.Compile("%{MY_B}"); err == nil {
		t.Error("MY_B compiles without MY_A")
	}
	if _, ok := e.byName("MY_B"); !ok {
		t.Error("MY_B is gone")
	}
}

func TestTestPattern(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name string
		body string
		want map[string]any
	}{
		{"captures", `{"grok_pattern":{"name":"T","pattern":"%{IPV4:client} %{WORD}"},"sampleData":"10.1.2.3 GET"}`,
			map[string]any{"T": "10.1.2.3 GET", "client": "10.1.2.3", "WORD": "GET"}},
		{"typed", `{"grok_pattern":{"name":"T","pattern":"%{INT:n:int} %{NUMBER:f:float} %{WORD:b:boolean}"},"sampleData":"42 1.5 true"}`,
			map[string]any{"T": "42 1.5 true", "n": 42.0, "f": 1.5, "b": true, "BASE10NUM": "1.5"}},
		{"type that does not read stays text", `{"grok_pattern":{"name":"T","pattern":"%{WORD:n:int}"},"sampleData":"abc"}`,
			map[string]any{"T": "abc", "n": "abc"}},
		{"quotes dropped", `{"grok_pattern":{"name":"T","pattern":"%{QS:q}"},"sampleData":"say \"hi there\""}`,
			map[string]any{"T": "hi there", "q": "hi there", "QUOTEDSTRING": "hi there"}},
		{"dotted field", `{"grok_pattern":{"name":"T","pattern":"%{INT:http.status}"},"sampleData":"200"}`,
			map[string]any{"T": "200", "http.status": "200"}},
		{"no match", `{"grok_pattern":{"name":"T","pattern":"^%{INT}$"},"sampleData":"abc"}`, map[string]any{}},
		// The tested pattern shadows the stored one of its name.
		{"shadows a stored name", `{"grok_pattern":{"name":"WORD","pattern":"\\d+"},"sampleData":"abc 123"}`,
			map[string]any{"WORD": "123"}},
		{"ids ignored", `{"grok_pattern":{"id":"x","name":"T","pattern":"a","content_pack":null},"sampleData":"a"}`,
			map[string]any{"T": "a"}},
		// JSON has no NaN or infinity: Jackson writes them as strings.
		{"non-finite floats", `{"grok_pattern":{"name":"T","pattern":"%{WORD:n:float} %{NOTSPACE:i:double}"},"sampleData":"NaN -Infinity"}`,
			map[string]any{"T": "NaN -Infinity", "n": "NaN", "i": "-Infinity"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got map[string]any
			e.ok(call{method: "POST", path: "/system/grok/test", body: c.body, perms: []string{}}, 200, &got)
			if mustJSON(t, got) != mustJSON(t, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	bad := []struct {
		name, body, msg string
	}{
		{"unknown reference", `{"grok_pattern":{"name":"T","pattern":"%{NOPE}"},"sampleData":"x"}`, "Invalid pattern T: no definition for key 'NOPE'"},
		{"bad regex", `{"grok_pattern":{"name":"T","pattern":"a{2,1}"},"sampleData":"x"}`, "invalid repeat count"},
		{"cycle", `{"grok_pattern":{"name":"T","pattern":"%{T}"},"sampleData":"x"}`, "circular reference T -> T"},
		{"empty name", `{"grok_pattern":{"name":"","pattern":"x"},"sampleData":"x"}`, "the name must not be empty"},
		{"no pattern", `{"sampleData":"x"}`, "grok_pattern is mandatory"},
		{"no sample", `{"grok_pattern":{"name":"T","pattern":"x"}}`, "sampleData is mandatory"},
		{"snake case sample", `{"grok_pattern":{"name":"T","pattern":"x"},"sample_data":"x"}`, "Unable to map property sample_data"},
		{"unknown pattern property", `{"grok_pattern":{"name":"T","pattern":"x","p":1},"sampleData":"x"}`, "Unable to map property p"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			var eb errorBody
			e.ok(call{method: "POST", path: "/system/grok/test", body: c.body, perms: []string{}}, 400, &eb)
			if eb.Type != "ApiError" || !strings.Contains(eb.Message, c.msg) {
				t.Errorf("got %+v, want an ApiError containing %q", eb, c.msg)
			}
		})
	}
	if _, ok := e.byName("T"); ok {
		t.Error("testing stored the pattern")
	}
}
