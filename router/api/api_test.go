package api_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func TestParsePage(t *testing.T) {
	ok := []struct {
		query string
		want  api.Page
	}{
		{"", api.Page{Page: 1, PerPage: 50, Sort: "title", Order: "asc"}},
		{"page=3&per_page=10&sort=id&order=DESC&query=x", api.Page{Page: 3, PerPage: 10, Query: "x", Sort: "id", Order: "desc"}},
		// Graylog 4.0's web interface asks for every role with per_page=0.
		{"page=1&per_page=0", api.Page{Page: 1, PerPage: 0, Sort: "title", Order: "asc"}},
	}
	for _, c := range ok {
		got, err := api.ParsePage(httptest.NewRequest("GET", "/?"+c.query, nil), "title", "title", "id")
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.query, got, err, c.want)
		}
	}
	for _, bad := range []string{"page=0", "page=-1", "page=x", "per_page=-1", "per_page=1.5", "sort=secret", "order=sideways"} {
		_, err := api.ParsePage(httptest.NewRequest("GET", "/?"+bad, nil), "title", "title", "id")
		if api.ErrorCode(err) != api.Invalid {
			t.Errorf("%q: %v, want a 400", bad, err)
		}
	}
}

func TestSlice(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	for _, c := range []struct {
		page, per int
		want      string
	}{{1, 2, "[1,2]"}, {3, 2, "[5]"}, {4, 2, "[]"}, {1, 10, "[1,2,3,4,5]"},
		{1<<62 - 1, 1<<62 - 1, "[]"}, {2, 1<<63 - 1, "[]"}, {1, 1<<63 - 1, "[1,2,3,4,5]"}} {
		b, _ := json.Marshal(api.Slice(items, api.Page{Page: c.page, PerPage: c.per}))
		if string(b) != c.want {
			t.Errorf("page %d of %d: %s, want %s", c.page, c.per, b, c.want)
		}
	}
}

func TestQuery(t *testing.T) {
	rec := map[string]string{"username": "jdoe", "full_name": "John Doe", "email": "j@example.org"}
	get := func(f string) string { return rec[f] }
	cases := []struct {
		q     string
		match bool
	}{
		{"", true}, {"john", true}, {"JOHN doe", true}, {"jane", false},
		{"username:jd", true}, {"username:john", false}, {`full_name:"john doe"`, true},
		{"-username:jdoe", false}, {"-email:other", true}, {`"John Doe"`, true},
	}
	for _, c := range cases {
		q, err := api.ParseQuery(c.q, "full_name", "username", "full_name", "email")
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if q.Match(get) != c.match {
			t.Errorf("%q matched %v, want %v", c.q, !c.match, c.match)
		}
	}
	for _, bad := range []string{"password:x", `"open`, `username:"open`} {
		if _, err := api.ParseQuery(bad, "full_name", "username", "full_name", "email"); api.ErrorCode(err) != api.Invalid {
			t.Errorf("%q: %v, want a 400", bad, err)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "john", `username:"a b" -email:x`, `"\"`, `a:b:c`, "-", `"x\"y"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		parsed, err := api.ParseQuery(q, "full_name", "username", "full_name", "email")
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("error with code %v: %v", api.ErrorCode(err), err)
			}
			return
		}
		parsed.Match(func(string) string { return q }) // must not panic
	})
}

type body struct {
	Name  string   `json:"name"`
	Perms []string `json:"permissions"`
	N     *int     `json:"n"`
}

func TestDecode(t *testing.T) {
	cases := []struct {
		in, msg string
		strict  bool
	}{
		{`{"name":"a","permissions":[]}`, "", true},
		{`{"name":"a","extra":1}`, "", false},
		{`{"name":"a","extra":1}`, "Unable to map property extra.\nKnown properties include: n, name, permissions", true},
		{``, "Request body is mandatory", true},
		{`  `, "Request body is mandatory", true},
		{`{"name":`, "unexpected end of input", true},
		{"{\n\"name\": x}", "at line 2, column", true},
		{`{"name":1}`, "property name must be a string, got a JSON number", true},
		{`{"n":"1"}`, "property n must be an integer", true},
		{`{} {}`, "unexpected data after the JSON value", true},
		{`{"name":"a"}}`, "unexpected data after the JSON value", true},
		{`{"name":"a"}]`, "unexpected data after the JSON value", true},
		{"{\"name\":\"a\"} \t\r\n", "", true},
	}
	for _, c := range cases {
		var v body
		err := api.DecodeBytes([]byte(c.in), &v, c.strict)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", c.in, err)
			}
			continue
		}
		var e *api.Error
		if !errors.As(err, &e) || e.Code != api.Invalid || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%q: %v, want a 400 containing %q", c.in, err, c.msg)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"name":"a","permissions":["x"]}`, `{`, `[]`, `{"n":1e999}`, `null`, `{"name":"\ud800"}`} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, strict bool) {
		var v body
		err := api.DecodeBytes(in, &v, strict)
		if err == nil {
			return
		}
		var e *api.Error
		if !errors.As(err, &e) || e.Code != api.Invalid || e.Message == "" {
			t.Fatalf("%q: error %v is not a 400 with a message", in, err)
		}
	})
}

func TestWriteErrorHidesInternals(t *testing.T) {
	w := httptest.NewRecorder()
	api.WriteError(w, httptest.NewRequest("GET", "/", nil), errors.New("dial tcp 10.0.0.1: secret detail"))
	if w.Code != 500 || strings.Contains(w.Body.String(), "secret detail") {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	api.WriteError(w, nil, api.Errorf(api.NotFound, "Couldn't find user %s", "x"))
	if w.Code != 404 || w.Body.String() != `{"type":"ApiError","message":"Couldn't find user x"}` {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}
