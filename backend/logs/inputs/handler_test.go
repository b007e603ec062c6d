package inputs_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/router/routertest"
)

const (
	udp      = inputs.GELFUDPType
	tcp      = inputs.GELFTCPType
	gelfHTTP = inputs.GELFHTTPType
)

const udpBody = `{"title":"gelf udp","type":"` + udp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":12201},"node":null}`

// attributes decodes a summary's attributes as a client does.
func attributes(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(gjson.Get(body, "attributes").Raw), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCreateGetList(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("POST", "/system/inputs", udpBody)
	routertest.WantStatus(t, rec, http.StatusCreated)
	id := gjson.Get(rec.Body.String(), "id").String()
	if rec.Body.String() != `{"id":"`+id+`"}` || len(id) != 24 || rec.Header().Get("Location") != "/system/inputs/"+id {
		t.Errorf("created %s, Location %q", rec.Body, rec.Header().Get("Location"))
	}

	one := e.Admin("GET", "/system/inputs/"+id, "")
	routertest.WantStatus(t, one, http.StatusOK)
	s := gjson.Parse(one.Body.String())
	for path, want := range map[string]string{
		"title": "gelf udp", "global": "true", "name": "GELF UDP", "id": id, "created_at": "2021-03-04T05:06:07.891Z",
		"type": udp, "creator_user_id": "user", "static_fields": "{}",
	} {
		if got := s.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if s.Get("content_pack").Type != gjson.Null || s.Get("node").Type != gjson.Null {
		t.Errorf("content_pack and node should be null: %s", one.Body)
	}
	want := map[string]any{
		"bind_address": "0.0.0.0", "port": 12201.0, "recv_buffer_size": 262144.0, "number_worker_threads": float64(runtime.NumCPU()),
		"override_source": nil, "decompress_size_limit": 8388608.0,
	}
	if got := attributes(t, one.Body.String()); !reflect.DeepEqual(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}

	tid := e.create(`{"title":"tcp","type":"` + tcp + `","global":false,"node":"n1","configuration":{"bind_address":"127.0.0.1","port":"5555","tls_enable":true,"tls_key_password":"hunter2","tls_client_auth":"REQUIRED"}}`)
	list := e.Admin("GET", "/system/inputs", "")
	routertest.WantStatus(t, list, http.StatusOK)
	l := gjson.Parse(list.Body.String())
	if l.Get("total").Int() != 2 || l.Get("inputs.0.id").String() != id || l.Get("inputs.1.id").String() != tid {
		t.Fatalf("list %s", list.Body)
	}
	second := l.Get("inputs.1")
	for path, want := range map[string]string{
		"node": "n1", "global": "false", "name": "GELF TCP", "attributes.port": "5555", "attributes.tls_enable": "true",
		"attributes.tls_key_password": "<password set>", "attributes.tls_client_auth": "required", "attributes.use_null_delimiter": "true",
		"attributes.max_message_size": "2097152", "attributes.tls_cert_file": "",
	} {
		if got := second.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if len(second.Get("attributes").Map()) != 15 {
		t.Errorf("GELF TCP has %d attributes: %s", len(second.Get("attributes").Map()), second.Get("attributes").Raw)
	}
}

func TestListEmpty(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("GET", "/system/inputs", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	if rec.Body.String() != `{"total":0,"inputs":[]}` {
		t.Errorf("empty list %s", rec.Body)
	}
	rec = e.Admin("GET", "/system/inputstates", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	if rec.Body.String() != `{"states":[]}` {
		t.Errorf("empty states %s", rec.Body)
	}
}

func TestCreateRefuses(t *testing.T) {
	cases := []struct {
		name, body string
		fields     map[string]string
	}{
		{"no title", `{"title":"","type":"` + udp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":1}}`, map[string]string{"title": "non-empty"}},
		{"no node", `{"title":"a","type":"` + udp + `","global":false,"configuration":{"bind_address":"0.0.0.0","port":1}}`, map[string]string{"node": "node"}},
		{"empty node", `{"title":"a","type":"` + udp + `","node":"","configuration":{"bind_address":"0.0.0.0","port":1}}`, map[string]string{"node": "node"}},
		{"no configuration", `{"title":"a","type":"` + gelfHTTP + `","global":true}`, map[string]string{"bind_address": "Mandatory", "port": "Mandatory"}},
		{"bad port", `{"title":"a","type":"` + tcp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":70000}}`, map[string]string{"port": "between 1 and 65535"}},
		{"unknown key", `{"title":"a","type":"` + udp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":1,"tls_enable":true}}`,
			map[string]string{"tls_enable": "Unknown configuration field"}},
		{"wrong types", `{"title":"a","type":"` + gelfHTTP + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":1,"enable_cors":"no","tls_client_auth":"maybe","idle_writer_timeout":-1,"number_worker_threads":"many"}}`,
			map[string]string{"enable_cors": "true or false", "tls_client_auth": "disabled, optional, required", "idle_writer_timeout": "negative", "number_worker_threads": "whole number"}},
		{"masked password on create", `{"title":"a","type":"` + tcp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":1,"tls_key_password":"<password set>"}}`,
			map[string]string{"tls_key_password": "no password is stored"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			routertest.WantInvalid(t, e.Admin("POST", "/system/inputs", c.body), c.fields)
			if n := e.count(); n != 0 {
				t.Errorf("%d inputs stored", n)
			}
		})
	}
}

func TestCreateMalformed(t *testing.T) {
	for _, c := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{"title":"a","type":"org.example.Nope","global":true,"configuration":{}}`, http.StatusNotFound, "There is no such input type registered."},
		{``, http.StatusBadRequest, "Request body is mandatory"},
		{`{"title":"a","type":"` + udp + `","global":true,"configuration":{},"static_fields":{}}`, http.StatusBadRequest, "Unable to map property static_fields"},
		{`{"title":"a","type":"` + udp + `","global":"yes"}`, http.StatusBadRequest, "property global must be a boolean"},
		{`{"title":"a","type":"` + udp + `","configuration":[1]}`, http.StatusBadRequest, "property configuration must be an object"},
	} {
		e := newEnv(t)
		routertest.WantError(t, e.Admin("POST", "/system/inputs", c.body), c.status, c.msg)
		if n := e.count(); n != 0 {
			t.Errorf("%s: %d inputs stored", c.body, n)
		}
	}
}

func TestGetNotFound(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ id, msg string }{
		{"5f0000000000000000000000", "Input <5f0000000000000000000000> not found!"},
		{"nope", "Input id <nope> is invalid!"},
	} {
		routertest.WantError(t, e.Admin("GET", "/system/inputs/"+c.id, ""), http.StatusNotFound, c.msg)
		routertest.WantError(t, e.Admin("PUT", "/system/inputs/"+c.id, udpBody), http.StatusNotFound, c.msg)
		routertest.WantError(t, e.Admin("DELETE", "/system/inputs/"+c.id, ""), http.StatusNotFound, c.msg)
		routertest.WantError(t, e.Admin("GET", "/system/inputstates/"+c.id, ""), http.StatusNotFound, "No input state for input id <"+c.id+"> on this node.")
	}
}

func TestUpdate(t *testing.T) {
	e := newEnv(t)
	id := e.create(`{"title":"tcp","type":"` + tcp + `","node":"n1","configuration":{"bind_address":"0.0.0.0","port":1,"tls_key_password":"hunter2"}}`)
	e.clock.Set(start.Add(time.Hour))
	rec := e.Do(routertest.Principal(t, "inputs:edit:"+id), "PUT", "/system/inputs/"+id,
		`{"title":"renamed","type":"`+tcp+`","global":true,"node":"n2","configuration":{"bind_address":"0.0.0.0","port":2,"tls_key_password":"<password set>"}}`)
	routertest.WantStatus(t, rec, http.StatusCreated)
	if rec.Body.String() != `{"id":"`+id+`"}` || rec.Header().Get("Location") != "/system/inputs/"+id {
		t.Errorf("update answered %s, Location %q", rec.Body, rec.Header().Get("Location"))
	}
	in, err := e.svc.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if in.Title != "renamed" || !in.Global || in.Node != nil || in.Configuration["port"] != 2 || in.Configuration["tls_key_password"] != "hunter2" ||
		in.CreatorUserID != "user" || !in.CreatedAt.Equal(start.Truncate(time.Millisecond)) {
		t.Errorf("after update %+v", in)
	}
	// A new password replaces the stored one; another type is validated as such.
	routertest.WantStatus(t, e.Admin("PUT", "/system/inputs/"+id,
		`{"title":"http","type":"`+gelfHTTP+`","node":"n3","configuration":{"bind_address":"::","port":3,"tls_key_password":"new","enable_cors":false}}`), http.StatusCreated)
	if in, _ = e.svc.Get(t.Context(), id); in.Type != gelfHTTP || *in.Node != "n3" || in.Configuration["tls_key_password"] != "new" ||
		in.Configuration["enable_cors"] != false || in.Configuration["max_chunk_size"] != 65536 {
		t.Errorf("after a type change %+v", in)
	}
}

func TestUpdateRefuses(t *testing.T) {
	cases := []struct {
		name, body string
		fields     map[string]string
	}{
		{"no title", `{"title":"","type":"` + udp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":1}}`, map[string]string{"title": "non-empty"}},
		{"no node", `{"title":"a","type":"` + udp + `","configuration":{"bind_address":"0.0.0.0","port":1}}`, map[string]string{"node": "node"}},
		{"bad configuration", `{"title":"","type":"` + udp + `","global":true,"configuration":{"bind_address":"","port":0,"x":1}}`,
			map[string]string{"title": "non-empty", "bind_address": "Mandatory", "port": "port number", "x": "Unknown"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			id := e.create(udpBody)
			before := e.Admin("GET", "/system/inputs/"+id, "").Body.String()
			routertest.WantInvalid(t, e.Admin("PUT", "/system/inputs/"+id, c.body), c.fields)
			if after := e.Admin("GET", "/system/inputs/"+id, "").Body.String(); after != before {
				t.Errorf("changed by a refused update:\n%s\n%s", before, after)
			}
		})
	}
	e := newEnv(t)
	id := e.create(udpBody)
	routertest.WantError(t, e.Admin("PUT", "/system/inputs/"+id, `{"title":"a","type":"org.example.Nope","global":true}`), http.StatusNotFound, "There is no such input type registered.")
	routertest.WantError(t, e.Admin("PUT", "/system/inputs/"+id, `{"title":"a","extra":1}`), http.StatusBadRequest, "Unable to map property extra")
}

func TestNodeChecker(t *testing.T) {
	check := func(_ context.Context, node string) (bool, error) {
		if node == "broken" {
			return false, errors.New("cluster unreachable")
		}
		return node == "n1", nil
	}
	e := newEnv(t, inputs.WithNodeChecker(check))
	body := func(node string) string {
		return `{"title":"a","type":"` + udp + `","node":"` + node + `","configuration":{"bind_address":"0.0.0.0","port":1}}`
	}
	id := e.create(body("n1"))
	routertest.WantInvalid(t, e.Admin("POST", "/system/inputs", body("n9")), map[string]string{"node": "Node n9 does not exist"})
	routertest.WantInvalid(t, e.Admin("PUT", "/system/inputs/"+id, body("n9")), map[string]string{"node": "Node n9 does not exist"})
	routertest.WantStatus(t, e.Admin("POST", "/system/inputs", body("broken")), http.StatusInternalServerError)
	// Global inputs name no node, and none is checked.
	e.create(`{"title":"g","type":"` + udp + `","global":true,"node":"n9","configuration":{"bind_address":"0.0.0.0","port":1}}`)
	if n := e.count(); n != 2 {
		t.Errorf("%d inputs stored, want 2", n)
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	id := e.create(udpBody)
	keep := e.create(udpBody)
	e.states.Set(id, inputs.StateRunning, "")
	routertest.WantStatus(t, e.Admin("DELETE", "/system/inputs/"+id, ""), http.StatusNoContent)
	routertest.WantError(t, e.Admin("GET", "/system/inputs/"+id, ""), http.StatusNotFound, "not found")
	routertest.WantError(t, e.Admin("DELETE", "/system/inputs/"+id, ""), http.StatusNotFound, "not found")
	routertest.WantStatus(t, e.Admin("GET", "/system/inputs/"+keep, ""), http.StatusOK)
	// The state of a deleted input is dropped: an input stored again under
	// the same id would start from CREATED.
	if st := e.states.Summary(inputs.Input{ID: id}); st.State != inputs.StateCreated {
		t.Errorf("state %s kept after the delete", st.State)
	}
}

func TestTypes(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("GET", "/system/inputs/types", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	names := routertest.Decode[struct {
		Types map[string]string `json:"types"`
	}](t, rec)
	if want := map[string]string{udp: "GELF UDP", tcp: "GELF TCP", gelfHTTP: "GELF HTTP"}; !maps.Equal(names.Types, want) {
		t.Errorf("types %v, want %v", names.Types, want)
	}

	all := e.Admin("GET", "/system/inputs/types/all", "")
	routertest.WantStatus(t, all, http.StatusOK)
	a := gjson.Parse(all.Body.String())
	if len(a.Map()) != 3 {
		t.Fatalf("all types %s", all.Body)
	}
	for class, fields := range map[string][]string{
		udp: {"bind_address", "port", "recv_buffer_size", "number_worker_threads", "override_source", "decompress_size_limit"},
		tcp: {"bind_address", "port", "recv_buffer_size", "number_worker_threads", "tls_cert_file", "tls_key_file", "tls_enable",
			"tls_key_password", "tls_client_auth", "tls_client_auth_cert_file", "tcp_keepalive", "use_null_delimiter", "max_message_size",
			"override_source", "decompress_size_limit"},
		gelfHTTP: {"bind_address", "port", "recv_buffer_size", "number_worker_threads", "tls_cert_file", "tls_key_file", "tls_enable",
			"tls_key_password", "tls_client_auth", "tls_client_auth_cert_file", "tcp_keepalive", "enable_cors", "max_chunk_size",
			"idle_writer_timeout", "override_source", "decompress_size_limit"},
	} {
		info := a.Get(gjson.Escape(class))
		var got []string
		info.Get("requested_configuration").ForEach(func(k, _ gjson.Result) bool {
			got = append(got, k.String())
			return true
		})
		if !reflect.DeepEqual(got, fields) {
			t.Errorf("%s fields %v\nwant %v", class, got, fields)
		}
		if info.Get("type").String() != class || info.Get("is_exclusive").Bool() || info.Get("link_to_docs").String() != "" {
			t.Errorf("%s info %s", class, info.Raw)
		}
		one := e.Admin("GET", "/system/inputs/types/"+class, "")
		routertest.WantStatus(t, one, http.StatusOK)
		if one.Body.String() != info.Raw {
			t.Errorf("%s alone %s\nin all %s", class, one.Body, info.Raw)
		}
	}
	rc := a.Get(gjson.Escape(tcp) + ".requested_configuration")
	for path, want := range map[string]string{
		"port.default_value": "12201", "port.is_optional": "false", "port.attributes.0": "is_port_number",
		"bind_address.default_value": "0.0.0.0", "recv_buffer_size.default_value": "1048576",
		"tls_key_password.attributes.0": "is_password", "tls_client_auth.additional_info.values.optional": "optional",
		"use_null_delimiter.default_value": "true", "max_message_size.default_value": "2097152", "override_source.default_value": "",
		"decompress_size_limit.default_value": "8388608", "tcp_keepalive.type": "boolean",
	} {
		if got := rc.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if rc.Get("override_source.default_value").Type != gjson.Null {
		t.Errorf("override_source default %s, want null", rc.Get("override_source.default_value").Raw)
	}
	h := a.Get(gjson.Escape(gelfHTTP) + ".requested_configuration")
	if h.Get("enable_cors.default_value").Raw != "true" || h.Get("max_chunk_size.default_value").Int() != 65536 || h.Get("idle_writer_timeout.default_value").Int() != 60 {
		t.Errorf("GELF HTTP fields %s", h.Raw)
	}
	if u := a.Get(gjson.Escape(udp) + ".requested_configuration"); u.Get("recv_buffer_size.default_value").Int() != 262144 {
		t.Errorf("GELF UDP fields %s", u.Raw)
	}
	routertest.WantError(t, e.Admin("GET", "/system/inputs/types/org.example.Nope", ""), http.StatusNotFound, "Unknown input type org.example.Nope requested.")
}

func TestStates(t *testing.T) {
	e := newEnv(t)
	// Created before the registry: reported since the registry started.
	e.clock.Set(start.Add(-time.Hour))
	old := e.create(udpBody)
	e.clock.Set(start.Add(time.Minute))
	id := e.create(`{"title":"tcp","type":"` + tcp + `","node":"n1","configuration":{"bind_address":"0.0.0.0","port":1,"tls_key_password":"pw"}}`)

	rec := e.Admin("GET", "/system/inputstates", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	s := gjson.Parse(rec.Body.String())
	if s.Get("states.#").Int() != 2 {
		t.Fatalf("states %s", rec.Body)
	}
	for i, want := range []struct{ id, startedAt string }{{old, "2021-03-04T05:06:07.891Z"}, {id, "2021-03-04T05:07:07.891Z"}} {
		st := s.Get("states." + string(rune('0'+i)))
		if st.Get("id").String() != want.id || st.Get("state").String() != "CREATED" || st.Get("started_at").String() != want.startedAt ||
			st.Get("detailed_message").Type != gjson.Null || !st.Get("detailed_message").Exists() || st.Get("message_input.id").String() != want.id {
			t.Errorf("state %d: %s", i, st.Raw)
		}
	}
	if pw := s.Get("states.1.message_input.attributes.tls_key_password").String(); pw != "<password set>" {
		t.Errorf("password shown as %q", pw)
	}

	e.clock.Set(start.Add(2 * time.Minute))
	e.states.Set(id, inputs.StateStarting, "")
	e.clock.Set(start.Add(3 * time.Minute))
	e.states.Set(id, inputs.StateFailed, "bind: address already in use")
	one := e.Admin("GET", "/system/inputstates/"+id, "")
	routertest.WantStatus(t, one, http.StatusOK)
	o := gjson.Parse(one.Body.String())
	if o.Get("state").String() != "FAILED" || o.Get("detailed_message").String() != "bind: address already in use" ||
		o.Get("started_at").String() != "2021-03-04T05:08:07.891Z" || o.Get("message_input.title").String() != "tcp" {
		t.Errorf("failed state %s", one.Body)
	}
	e.states.Set(id, inputs.StateRunning, "")
	if o = gjson.Parse(e.Admin("GET", "/system/inputstates/"+id, "").Body.String()); o.Get("state").String() != "RUNNING" || o.Get("detailed_message").Type != gjson.Null {
		t.Errorf("running state %s", o.Raw)
	}
}

func TestPermissions(t *testing.T) {
	e := newEnv(t)
	a := e.create(udpBody)
	b := e.create(udpBody)
	cases := []struct {
		name, method, path, body string
		perms                    []string
		status                   int
	}{
		{"get one with its id", "GET", "/system/inputs/" + a, "", []string{"inputs:read:" + a}, http.StatusOK},
		{"get another", "GET", "/system/inputs/" + b, "", []string{"inputs:read:" + a}, http.StatusForbidden},
		{"get unknown without permission", "GET", "/system/inputs/5f0000000000000000000000", "", []string{"inputs:read:" + a}, http.StatusForbidden},
		{"state of another", "GET", "/system/inputstates/" + b, "", []string{"inputs:read:" + a}, http.StatusForbidden},
		{"state with its id", "GET", "/system/inputstates/" + a, "", []string{"inputs:read:" + a}, http.StatusOK},
		{"types need no permission", "GET", "/system/inputs/types", "", nil, http.StatusOK},
		{"all types need no permission", "GET", "/system/inputs/types/all", "", nil, http.StatusOK},
		{"type needs no permission", "GET", "/system/inputs/types/" + udp, "", nil, http.StatusOK},
		{"create needs create", "POST", "/system/inputs", udpBody, []string{"inputs:edit", "inputs:read"}, http.StatusForbidden},
		{"create", "POST", "/system/inputs", udpBody, []string{"inputs:create"}, http.StatusCreated},
		{"edit another", "PUT", "/system/inputs/" + b, udpBody, []string{"inputs:edit:" + a}, http.StatusForbidden},
		{"edit with its id", "PUT", "/system/inputs/" + a, udpBody, []string{"inputs:edit:" + a}, http.StatusCreated},
		{"terminate another", "DELETE", "/system/inputs/" + b, "", []string{"inputs:terminate:" + a, "inputs:edit"}, http.StatusForbidden},
		{"terminate with its id", "DELETE", "/system/inputs/" + a, "", []string{"inputs:terminate:" + a}, http.StatusNoContent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			routertest.WantStatus(t, e.Do(routertest.Principal(t, c.perms...), c.method, c.path, c.body), c.status)
		})
	}
	for _, c := range cases {
		if rec := e.Do(nil, c.method, c.path, c.body); rec.Code != http.StatusUnauthorized {
			t.Errorf("anonymous %s %s: %d", c.method, c.path, rec.Code)
		}
	}
	for _, path := range []string{"/system/inputs", "/system/inputstates"} {
		if rec := e.Do(nil, "GET", path, ""); rec.Code != http.StatusUnauthorized {
			t.Errorf("anonymous GET %s: %d", path, rec.Code)
		}
	}
}

func TestListsShowReadableOnly(t *testing.T) {
	e := newEnv(t)
	a := e.create(udpBody)
	b := e.create(udpBody)
	for _, c := range []struct {
		perms []string
		want  []string
	}{
		{[]string{"inputs:read"}, []string{a, b}},
		{[]string{"inputs:read:" + b}, []string{b}},
		{[]string{"inputs:read:" + a + "," + b}, []string{a, b}},
		{[]string{"inputs:edit"}, nil},
		{nil, nil},
	} {
		p := routertest.Principal(t, c.perms...)
		list := gjson.Parse(e.Do(p, "GET", "/system/inputs", "").Body.String())
		states := gjson.Parse(e.Do(p, "GET", "/system/inputstates", "").Body.String())
		var got, gotStates []string
		for _, r := range list.Get("inputs.#.id").Array() {
			got = append(got, r.String())
		}
		for _, r := range states.Get("states.#.id").Array() {
			gotStates = append(gotStates, r.String())
		}
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(gotStates, c.want) || list.Get("total").Int() != int64(len(c.want)) {
			t.Errorf("%v: inputs %v, states %v, want %v", c.perms, got, gotStates, c.want)
		}
	}
}

// TestChangeStateWithoutRunner: a server that runs no inputs answers
// start and stop with 503, after the usual permission and 404 checks.
func TestChangeStateWithoutRunner(t *testing.T) {
	e := newEnv(t)
	id := e.create(`{"title":"tcp","type":"` + tcp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":1}}`)
	for _, method := range []string{"PUT", "DELETE"} {
		routertest.WantError(t, e.Admin(method, "/system/inputstates/"+id, ""), http.StatusServiceUnavailable, "This server runs no inputs")
		routertest.WantError(t, e.Admin(method, "/system/inputstates/5f0000000000000000000000", ""), http.StatusNotFound,
			"Input <5f0000000000000000000000> not found!")
		routertest.WantStatus(t, e.Do(routertest.Principal(t, "inputs:read"), method, "/system/inputstates/"+id, ""), http.StatusForbidden)
	}
}

// elsewhere is the runner of a node that runs none of the inputs it is
// asked about: non-global inputs of other nodes.
type elsewhere struct{}

func (elsewhere) Start(context.Context, inputs.Input) bool { return false }
func (elsewhere) Stop(string) bool                         { return false }

// TestChangeStateOfAnotherNodesInput: starting or stopping an existing
// input that this node does not run answers 200 with its id, as Graylog
// 4.0's InputStatesResource does (it only posts the event, which nodes not
// running the input ignore). A 404 there makes PUT and DELETE
// /cluster/inputstates/{id} fail on a node that does not run a non-global
// input, before the node that runs it is asked.
func TestChangeStateOfAnotherNodesInput(t *testing.T) {
	e := newEnv(t)
	e.H = routertest.Handler(inputs.NewHandler(e.svc, e.states, elsewhere{}).Routes())
	id := e.create(`{"title":"tcp","type":"` + tcp + `","node":"other-node","configuration":{"bind_address":"0.0.0.0","port":1}}`)
	for _, method := range []string{"PUT", "DELETE"} {
		rec := e.Admin(method, "/system/inputstates/"+id, "")
		routertest.WantStatus(t, rec, http.StatusOK)
		if rec.Body.String() != `{"id":"`+id+`"}` {
			t.Errorf("%s answered %s", method, rec.Body)
		}
		routertest.WantError(t, e.Admin(method, "/system/inputstates/5f0000000000000000000000", ""), http.StatusNotFound,
			"Input <5f0000000000000000000000> not found!")
	}
}

// onNode runs the global inputs and those of its node, as a node's runner.
type onNode string

func (n onNode) Runs(in inputs.Input) bool {
	return in.Global || in.Node != nil && *in.Node == string(n)
}
func (n onNode) Start(_ context.Context, in inputs.Input) bool { return n.Runs(in) }
func (onNode) Stop(string) bool                                { return true }

// TestStatesOfThisNodeOnly: /system/inputstates shows the inputs this
// node runs, global ones and its own, as Graylog's shows its node's input
// registry; a non-global input of another node has no state here (404),
// so that /cluster/inputstates does not report it CREATED on every node.
func TestStatesOfThisNodeOnly(t *testing.T) {
	e := newEnv(t)
	e.H = routertest.Handler(inputs.NewHandler(e.svc, e.states, onNode("n1")).Routes())
	global := e.create(udpBody)
	mine := e.create(`{"title":"mine","type":"` + tcp + `","node":"n1","configuration":{"bind_address":"0.0.0.0","port":1}}`)
	other := e.create(`{"title":"other","type":"` + tcp + `","node":"n2","configuration":{"bind_address":"0.0.0.0","port":2}}`)
	var got []string
	for _, r := range gjson.Get(e.Admin("GET", "/system/inputstates", "").Body.String(), "states.#.id").Array() {
		got = append(got, r.String())
	}
	if want := []string{global, mine}; !reflect.DeepEqual(got, want) {
		t.Errorf("states of %v, want %v", got, want)
	}
	routertest.WantStatus(t, e.Admin("GET", "/system/inputstates/"+mine, ""), http.StatusOK)
	routertest.WantError(t, e.Admin("GET", "/system/inputstates/"+other, ""), http.StatusNotFound,
		"No input state for input id <"+other+"> on this node.")
}
