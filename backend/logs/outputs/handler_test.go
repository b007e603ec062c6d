package outputs_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/router/routertest"
)

const gelf = outputs.GELFType

// gelfDefaults is the configuration of an output created with hostname
// "h" and nothing else optional.
func gelfDefaults(set map[string]any) map[string]any {
	out := map[string]any{
		"hostname": "h", "port": 12201, "protocol": "TCP", "connect_timeout": 1000, "reconnect_delay": 500,
		"tcp_no_delay": false, "tcp_keep_alive": false, "tls_trust_cert_chain": "", "tls_verification_enabled": false,
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

const minimal = `{"title":"fwd","type":"` + gelf + `","configuration":{"hostname":"h","port":12201,"protocol":"TCP"}}`

func TestCreateGetList(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("POST", "/system/outputs", minimal)
	routertest.WantStatus(t, rec, http.StatusCreated)
	got := routertest.Decode[outputs.Summary](t, rec)
	if rec.Header().Get("Location") != "/system/outputs/"+got.ID || len(got.ID) != 24 {
		t.Errorf("Location %q for id %q", rec.Header().Get("Location"), got.ID)
	}
	raw := gjson.Parse(rec.Body.String())
	if raw.Get("created_at").String() != "2021-01-02T03:04:05.678Z" || raw.Get("creator_user_id").String() != "user" ||
		raw.Get("content_pack").Type != gjson.Null || raw.Get("title").String() != "fwd" || raw.Get("type").String() != gelf {
		t.Errorf("created %s", rec.Body)
	}
	if want := gelfDefaults(nil); !reflect.DeepEqual(got.Configuration, jsonNumbers(want)) {
		t.Errorf("configuration %v, want %v", got.Configuration, want)
	}

	one := e.Admin("GET", "/system/outputs/"+got.ID, "")
	routertest.WantStatus(t, one, http.StatusOK)
	if one.Body.String() != rec.Body.String() {
		t.Errorf("GET %s\nPOST %s", one.Body, rec.Body)
	}

	second := e.create(`{"title":"b","type":"` + gelf + `","configuration":{"hostname":"x","port":"514","protocol":"udp","tcp_no_delay":"true"},"content_pack":"cp"}`)
	if second.Configuration["port"] != 514.0 || second.Configuration["protocol"] != "UDP" || second.Configuration["tcp_no_delay"] != true || *second.ContentPack != "cp" {
		t.Errorf("coerced %+v", second)
	}
	list := e.Admin("GET", "/system/outputs", "")
	routertest.WantStatus(t, list, http.StatusOK)
	l := gjson.Parse(list.Body.String())
	if l.Get("total").Int() != 2 || l.Get("outputs.0.id").String() != got.ID || l.Get("outputs.1.id").String() != second.ID {
		t.Errorf("list %s", list.Body)
	}
}

// jsonNumbers turns ints into float64, as a client decoding JSON sees them.
func jsonNumbers(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func TestListEmpty(t *testing.T) {
	rec := newEnv(t).Admin("GET", "/system/outputs", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	if rec.Body.String() != `{"total":0,"outputs":[]}` {
		t.Errorf("empty list %s", rec.Body)
	}
}

func TestCreateRefuses(t *testing.T) {
	cases := []struct {
		name, body string
		fields     map[string]string
	}{
		{"unknown type", `{"title":"a","type":"org.example.Nope","configuration":{}}`, map[string]string{"type": "Invalid output type"}},
		{"no title", `{"title":"","type":"` + gelf + `","configuration":{"hostname":"h","port":1,"protocol":"TCP"}}`, map[string]string{"title": "non-empty"}},
		{"no configuration", `{"title":"a","type":"` + gelf + `"}`, map[string]string{
			"hostname": "Mandatory", "port": "Mandatory", "protocol": "Mandatory"}},
		{"unknown configuration key", `{"title":"a","type":"` + gelf + `","configuration":{"hostname":"h","port":1,"protocol":"TCP","queue_size":512}}`,
			map[string]string{"queue_size": "Unknown configuration field"}},
		{"bad values", `{"title":"a","type":"` + gelf + `","configuration":{"hostname":"h","port":99999,"protocol":"SCTP","tcp_keep_alive":"maybe","connect_timeout":-5}}`,
			map[string]string{"port": "port number", "protocol": "must be one of TCP, TCP+TLS, UDP", "tcp_keep_alive": "true or false", "connect_timeout": "negative"}},
		{"every failure at once", `{"title":"","type":"` + gelf + `","configuration":{"port":"x"}}`,
			map[string]string{"title": "non-empty", "hostname": "Mandatory", "port": "whole number", "protocol": "Mandatory"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			routertest.WantInvalid(t, e.Admin("POST", "/system/outputs", c.body), c.fields)
			if n := e.count(); n != 0 {
				t.Errorf("%d outputs stored", n)
			}
		})
	}
}

func TestCreateMalformed(t *testing.T) {
	for _, c := range []struct{ body, msg string }{
		{``, "Request body is mandatory"},
		{`{"title":"a","type":"` + gelf + `","configuration":{},"color":"red"}`, "Unable to map property color"},
		{`{"title":"a","type":"` + gelf + `","configuration":[]}`, "property configuration must be an object"},
		{`{"title":1}`, "property title must be a string"},
	} {
		e := newEnv(t)
		routertest.WantError(t, e.Admin("POST", "/system/outputs", c.body), http.StatusBadRequest, c.msg)
	}
}

func TestCreateAttachesStreams(t *testing.T) {
	e := newEnv(t)
	out := e.create(`{"title":"a","type":"` + gelf + `","configuration":{"hostname":"h","port":1,"protocol":"TCP"},"streams":["s1","s2","s1"]}`)
	if got := e.streams.of("s1"); !slices.Equal(got, []string{out.ID}) {
		t.Errorf("s1 has %v", got)
	}
	if got := e.streams.of("s2"); !slices.Equal(got, []string{out.ID}) {
		t.Errorf("s2 has %v", got)
	}
}

func TestCreateUnknownStreamStoresNothing(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("POST", "/system/outputs", `{"title":"a","type":"`+gelf+`","configuration":{"hostname":"h","port":1,"protocol":"TCP"},"streams":["s1","nope"]}`)
	routertest.WantError(t, rec, http.StatusNotFound, "Stream <nope> not found!")
	if n := e.count(); n != 0 {
		t.Errorf("%d outputs stored", n)
	}
	if got := e.streams.of("s1"); len(got) != 0 {
		t.Errorf("s1 still has %v", got)
	}
}

func TestGetNotFound(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"5f0000000000000000000000", "nope", "5F000000000000000000000Z"} {
		routertest.WantError(t, e.Admin("GET", "/system/outputs/"+id, ""), http.StatusNotFound, "Couldn't find output with id "+id)
		routertest.WantError(t, e.Admin("PUT", "/system/outputs/"+id, `{"title":"x"}`), http.StatusNotFound, "Couldn't find output with id "+id)
		routertest.WantError(t, e.Admin("DELETE", "/system/outputs/"+id, ""), http.StatusNotFound, "Couldn't find output with id "+id)
	}
}

func TestUpdate(t *testing.T) {
	e := newEnv(t)
	out := e.create(minimal)
	rec := e.Admin("PUT", "/system/outputs/"+out.ID,
		`{"title":"renamed","type":"`+gelf+`","configuration":{"hostname":"other","port":"1514","protocol":"UDP"},"streams":["s1"],"id":"x","whatever":1}`)
	routertest.WantStatus(t, rec, http.StatusOK)
	got := routertest.Decode[outputs.Summary](t, rec)
	want := out
	want.Title = "renamed"
	want.Configuration = jsonNumbers(gelfDefaults(map[string]any{"hostname": "other", "port": 1514, "protocol": "UDP"}))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("updated %+v\nwant    %+v", got, want)
	}
	if len(e.streams.of("s1")) != 0 {
		t.Error("streams in an update attached the output")
	}
	if stored := e.Admin("GET", "/system/outputs/"+out.ID, ""); stored.Body.String() != rec.Body.String() {
		t.Errorf("stored %s\nanswered %s", stored.Body, rec.Body)
	}
	// A title alone leaves the configuration.
	rec = e.Admin("PUT", "/system/outputs/"+out.ID, `{"title":"again","content_pack":"cp"}`)
	routertest.WantStatus(t, rec, http.StatusOK)
	if g := routertest.Decode[outputs.Summary](t, rec); g.Title != "again" || *g.ContentPack != "cp" || g.Configuration["hostname"] != "other" {
		t.Errorf("after a title update %+v", g)
	}
}

func TestUpdateRefuses(t *testing.T) {
	cases := []struct {
		name, body string
		fields     map[string]string
	}{
		{"empty title", `{"title":""}`, map[string]string{"title": "non-empty"}},
		{"title not a string", `{"title":5}`, map[string]string{"title": "must be a string"}},
		{"other type", `{"type":"org.example.Other"}`, map[string]string{"type": "cannot be changed"}},
		{"configuration not an object", `{"configuration":"x"}`, map[string]string{"configuration": "must be an object"}},
		{"configuration null", `{"configuration":null}`, map[string]string{"configuration": "must be an object"}},
		{"bad configuration", `{"title":"","configuration":{"hostname":"","port":0,"protocol":"TCP","x":1}}`,
			map[string]string{"title": "non-empty", "hostname": "Mandatory", "port": "port number", "x": "Unknown"}},
		{"content pack not a string", `{"content_pack":1}`, map[string]string{"content_pack": "string or null"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			out := e.create(minimal)
			before := e.Admin("GET", "/system/outputs/"+out.ID, "").Body.String()
			routertest.WantInvalid(t, e.Admin("PUT", "/system/outputs/"+out.ID, c.body), c.fields)
			if after := e.Admin("GET", "/system/outputs/"+out.ID, "").Body.String(); after != before {
				t.Errorf("changed by a refused update:\n%s\n%s", before, after)
			}
		})
	}
	e := newEnv(t)
	out := e.create(minimal)
	for _, body := range []string{`null`, `[]`, ``, `{`} {
		routertest.WantError(t, e.Admin("PUT", "/system/outputs/"+out.ID, body), http.StatusBadRequest, "")
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	out := e.create(`{"title":"a","type":"` + gelf + `","configuration":{"hostname":"h","port":1,"protocol":"TCP"},"streams":["s1","s2"]}`)
	keep := e.create(`{"title":"b","type":"` + gelf + `","configuration":{"hostname":"h","port":1,"protocol":"TCP"},"streams":["s1"]}`)
	routertest.WantStatus(t, e.Admin("DELETE", "/system/outputs/"+out.ID, ""), http.StatusNoContent)
	if got := e.streams.of("s1"); !slices.Equal(got, []string{keep.ID}) {
		t.Errorf("s1 has %v after the delete", got)
	}
	if got := e.streams.of("s2"); len(got) != 0 {
		t.Errorf("s2 has %v after the delete", got)
	}
	routertest.WantError(t, e.Admin("GET", "/system/outputs/"+out.ID, ""), http.StatusNotFound, "Couldn't find output")
	routertest.WantError(t, e.Admin("DELETE", "/system/outputs/"+out.ID, ""), http.StatusNotFound, "Couldn't find output")
}

func TestDeleteKeepsOutputWhenStreamsFail(t *testing.T) {
	e := newEnv(t)
	out := e.create(minimal)
	e.streams.removeErr = errBroken
	routertest.WantStatus(t, e.Admin("DELETE", "/system/outputs/"+out.ID, ""), http.StatusInternalServerError)
	routertest.WantStatus(t, e.Admin("GET", "/system/outputs/"+out.ID, ""), http.StatusOK)
}

func TestAvailable(t *testing.T) {
	rec := newEnv(t).Admin("GET", "/system/outputs/available", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	body := gjson.Parse(rec.Body.String())
	if n := len(body.Get("types").Map()); n != 1 {
		t.Fatalf("%d types: %s", n, rec.Body)
	}
	g := body.Get("types." + gjson.Escape(gelf))
	if g.Get("name").String() != "GELF Output" || g.Get("type").String() != gelf ||
		g.Get("human_name").String() != "An output sending GELF over TCP or UDP" || !g.Get("link_to_docs").Exists() {
		t.Errorf("GELF output %s", g.Raw)
	}
	var keys []string
	g.Get("requested_configuration").ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, k.String())
		return true
	})
	want := []string{"hostname", "port", "protocol", "connect_timeout", "reconnect_delay", "tcp_no_delay", "tcp_keep_alive", "tls_verification_enabled", "tls_trust_cert_chain"}
	if !slices.Equal(keys, want) {
		t.Errorf("fields %v, want %v", keys, want)
	}
	rc := g.Get("requested_configuration")
	for path, want := range map[string]string{
		"hostname.type": "text", "hostname.is_optional": "false", "hostname.default_value": "",
		"port.type": "number", "port.default_value": "12201", "port.attributes.0": "is_port_number", "port.position": "100",
		"protocol.type": "dropdown", "protocol.default_value": "TCP", "protocol.additional_info.values.TCP+TLS": "TCP+TLS",
		"connect_timeout.is_optional": "true", "connect_timeout.default_value": "1000", "reconnect_delay.default_value": "500",
		"tcp_no_delay.type": "boolean", "tcp_no_delay.default_value": "false", "tcp_no_delay.is_optional": "true",
		"tls_trust_cert_chain.type": "text", "tls_verification_enabled.type": "boolean",
	} {
		if got := rc.Get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if got := rc.Get("protocol.additional_info.values").Raw; got != `{"TCP":"TCP","TCP+TLS":"TCP+TLS","UDP":"UDP"}` {
		t.Errorf("protocol values %s", got)
	}
}

func TestPermissions(t *testing.T) {
	e := newEnv(t)
	out := e.create(minimal)
	other := e.create(minimal)
	id := out.ID
	cases := []struct {
		name, method, path, body string
		perms                    []string
		status                   int
	}{
		{"list needs read", "GET", "/system/outputs", "", []string{"streams:read"}, http.StatusForbidden},
		{"list with read", "GET", "/system/outputs", "", []string{"outputs:read"}, http.StatusOK},
		{"available needs read", "GET", "/system/outputs/available", "", []string{"outputs:create"}, http.StatusForbidden},
		{"available with read", "GET", "/system/outputs/available", "", []string{"outputs:read"}, http.StatusOK},
		{"get one with its id", "GET", "/system/outputs/" + id, "", []string{"outputs:read:" + id}, http.StatusOK},
		{"get another", "GET", "/system/outputs/" + other.ID, "", []string{"outputs:read:" + id}, http.StatusForbidden},
		{"get unknown without permission", "GET", "/system/outputs/5f0000000000000000000000", "", []string{"outputs:read:" + id}, http.StatusForbidden},
		{"create needs create", "POST", "/system/outputs", minimal, []string{"outputs:read", "outputs:edit"}, http.StatusForbidden},
		{"create", "POST", "/system/outputs", minimal, []string{"outputs:create"}, http.StatusCreated},
		{"edit another", "PUT", "/system/outputs/" + other.ID, `{"title":"x"}`, []string{"outputs:edit:" + id}, http.StatusForbidden},
		{"edit with its id", "PUT", "/system/outputs/" + id, `{"title":"x"}`, []string{"outputs:edit:" + id}, http.StatusOK},
		{"delete needs terminate", "DELETE", "/system/outputs/" + id, "", []string{"outputs:edit", "outputs:read"}, http.StatusForbidden},
		{"delete", "DELETE", "/system/outputs/" + id, "", []string{"outputs:terminate"}, http.StatusNoContent},
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
}
