package streams_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/streams"
)

func TestRuleLifecycle(t *testing.T) {
	e := newEnv(t)
	sid := e.createStream(map[string]any{"title": "T"})
	base := "/streams/" + sid + "/rules"
	editor := as(t, "streams:edit:"+sid, "streams:read:"+sid)

	r := e.do(editor, "POST", base, map[string]any{"type": 6, "field": "message", "value": "disk", "inverted": true, "description": "disks"}).want(t, http.StatusCreated)
	rid := r.get("streamrule_id").String()
	if !strings.HasSuffix(r.Header().Get("Location"), base+"/"+rid) || len(rid) != 24 {
		t.Errorf("created %s, Location %q", r.Body, r.Header().Get("Location"))
	}
	got := e.do(editor, "GET", base+"/"+rid, nil).want(t, http.StatusOK)
	want := map[string]string{"id": rid, "type": "6", "field": "message", "value": "disk", "inverted": "true", "description": "disks", "stream_id": sid}
	for f, v := range want {
		if g := got.get(f).String(); g != v {
			t.Errorf("%s = %s, want %s", f, g, v)
		}
	}
	list := e.do(editor, "GET", base, nil).want(t, http.StatusOK)
	if list.get("total").Int() != 1 || list.get("stream_rules.0").Raw != got.Body.String() {
		t.Errorf("list %s", list.Body)
	}
	if s := e.do(editor, "GET", "/streams/"+sid, nil); s.get("rules.0").Raw != got.Body.String() {
		t.Errorf("the stream's rules %s", s.get("rules"))
	}

	r = e.do(editor, "PUT", base+"/"+rid, map[string]any{"type": 3, "field": "took_ms", "value": "100", "inverted": false}).want(t, http.StatusOK)
	if r.Body.String() != `{"streamrule_id":"`+rid+`"}` {
		t.Errorf("PUT answered %s", r.Body)
	}
	got = e.do(editor, "GET", base+"/"+rid, nil).want(t, http.StatusOK)
	for f, v := range map[string]string{"type": "3", "field": "took_ms", "value": "100", "inverted": "false", "stream_id": sid} {
		if g := got.get(f).String(); g != v {
			t.Errorf("after PUT %s = %s, want %s", f, g, v)
		}
	}
	if got.get("description").Type.String() != "Null" {
		t.Errorf("PUT without description should clear it: %s", got.Body)
	}

	// The deprecated POST alias.
	r = e.do(editor, "POST", base+"/"+rid, map[string]any{"type": 5, "field": "error"}).want(t, http.StatusOK)
	if r.Header().Get("Deprecation") != "true" || !strings.Contains(r.Header().Get("Link"), base+"/"+rid+">") {
		t.Errorf("deprecated alias headers %v", r.Header())
	}
	if e.do(editor, "GET", base+"/"+rid, nil).get("type").Int() != 5 {
		t.Error("the POST alias did not update")
	}
	// Another stream's rule is not this stream's.
	other := e.createStream(map[string]any{"title": "O"})
	e.do(admin, "GET", "/streams/"+other+"/rules/"+rid, nil).wantError(t, http.StatusNotFound, "Couldn't find stream rule with ID "+rid)
	e.do(admin, "PUT", "/streams/"+other+"/rules/"+rid, map[string]any{"type": 7}).want(t, http.StatusNotFound)
	e.do(admin, "DELETE", "/streams/"+other+"/rules/"+rid, nil).want(t, http.StatusNotFound)

	e.do(editor, "DELETE", base+"/"+rid, nil).want(t, http.StatusNoContent)
	e.do(editor, "GET", base+"/"+rid, nil).want(t, http.StatusNotFound)
	e.do(editor, "DELETE", base+"/"+rid, nil).want(t, http.StatusNotFound)
	if list := e.do(editor, "GET", base, nil); list.Body.String() != `{"total":0,"stream_rules":[]}` {
		t.Errorf("list after delete %s", list.Body)
	}
}

func TestRuleTypes(t *testing.T) {
	e := newEnv(t)
	r := e.do(as(t), "GET", "/streams/"+streams.DefaultStreamID+"/rules/types", nil).want(t, http.StatusOK)
	names := []string{"EXACT", "REGEX", "GREATER", "SMALLER", "PRESENCE", "CONTAINS", "ALWAYS_MATCH", "MATCH_INPUT"}
	if r.get("#").Int() != int64(len(names)) {
		t.Fatalf("types %s", r.Body)
	}
	for i, n := range names {
		if r.get(itoa(i)+".id").Int() != int64(i+1) || r.get(itoa(i)+".name").String() != n {
			t.Errorf("type %d: %s, want %d %s", i, r.get(itoa(i)), i+1, n)
		}
	}
	if r.get("1.short_desc").String() != "match regular expression" || r.get("2.long_desc").String() != "be greater than" {
		t.Errorf("descriptions %s", r.Body)
	}
	e.do(nil, "GET", "/streams/x/rules/types", nil).want(t, http.StatusUnauthorized)
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestRuleValidation(t *testing.T) {
	e := newEnv(t)
	sid := e.createStream(map[string]any{"title": "T"})
	base := "/streams/" + sid + "/rules"
	ok := []map[string]any{
		{"type": 7},
		{"type": 5, "field": "error"},
		{"type": 3, "field": "n", "value": "1e3"},
		{"type": 4, "field": "n", "value": "-0x1p4"},
		{"type": 8, "field": "gl2_source_input", "value": "5f00000000000000000000c1"},
		{"type": 2, "field": "message", "value": `^\d+ (?i)error$`},
	}
	for _, body := range ok {
		e.do(admin, "POST", base, body).want(t, http.StatusCreated)
	}
	apiErrors := []struct {
		body any
		msg  string
	}{
		{map[string]any{"type": 9, "field": "a", "value": "b"}, "Unknown stream rule type 9"},
		{map[string]any{"field": "a", "value": "b"}, "Unknown stream rule type 0"},
		{map[string]any{"type": 1, "field": "a", "value": "b", "extra": 1}, "Unable to map property extra"},
		{`{"type":"1"}`, "property type must be an integer"},
	}
	for _, c := range apiErrors {
		e.do(admin, "POST", base, c.body).wantError(t, http.StatusBadRequest, c.msg)
	}
	invalid := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"type": 1, "value": "b"}, "field"},
		{map[string]any{"type": 1, "field": "", "value": "b"}, "field"},
		{map[string]any{"type": 1, "field": "a"}, "value"},
		{map[string]any{"type": 6, "field": "a", "value": ""}, "value"},
		{map[string]any{"type": 8, "field": "gl2_source_input"}, "value"},
		{map[string]any{"type": 8, "value": "x"}, "field"},
		{map[string]any{"type": 2, "field": "a", "value": "(unclosed"}, "value"},
		{map[string]any{"type": 2, "field": "a", "value": "(?<=look)behind"}, "value"},
		{map[string]any{"type": 3, "field": "a", "value": "ten"}, "value"},
		{map[string]any{"type": 4, "field": "a", "value": " 5"}, "value"},
	}
	for _, c := range invalid {
		e.do(admin, "POST", base, c.body).wantInvalid(t, c.field)
	}
	// PUT validates the same way.
	rid := e.createRule(sid, map[string]any{"type": 7})
	e.do(admin, "PUT", base+"/"+rid, map[string]any{"type": 0}).wantError(t, http.StatusBadRequest, "Unknown stream rule type 0")
	e.do(admin, "PUT", base+"/"+rid, map[string]any{"type": 2, "field": "a", "value": "["}).wantInvalid(t, "value")
	if n := e.do(admin, "GET", base, nil).get("total").Int(); n != int64(len(ok)+1) {
		t.Errorf("%d rules stored, want %d", n, len(ok)+1)
	}
}

func TestRuleErrors(t *testing.T) {
	e := newEnv(t)
	sid := e.createStream(map[string]any{"title": "T"})
	rid := e.createRule(sid, map[string]any{"type": 7})
	body := map[string]any{"type": 7}
	for _, b := range []string{streams.DefaultStreamID, streams.EventsStreamID, streams.SystemEventsStreamID} {
		base := "/streams/" + b + "/rules"
		e.do(admin, "POST", base, body).wantError(t, http.StatusBadRequest, "Cannot add stream rules to the default stream.")
		e.do(admin, "PUT", base+"/"+rid, body).wantError(t, http.StatusBadRequest, "Cannot update stream rules on default stream.")
		e.do(admin, "DELETE", base+"/"+rid, nil).wantError(t, http.StatusBadRequest, "Cannot delete stream rule from default stream.")
		// Graylog checks the default stream before the permission here.
		e.do(as(t), "POST", base+"/"+rid, body).wantError(t, http.StatusBadRequest, "Cannot remove stream rule from default stream.")
		if r := e.do(admin, "GET", base, nil).want(t, http.StatusOK); r.Body.String() != `{"total":0,"stream_rules":[]}` {
			t.Errorf("rules of %s: %s", b, r.Body)
		}
	}
	base := "/streams/" + sid + "/rules"
	reader := as(t, "streams:read:"+sid)
	for _, c := range []struct{ method, path string }{{"POST", base}, {"PUT", base + "/" + rid}, {"POST", base + "/" + rid}, {"DELETE", base + "/" + rid}} {
		e.do(reader, c.method, c.path, body).wantError(t, http.StatusForbidden, "Not authorized")
	}
	stranger := as(t, "streams:read:"+unknownID)
	e.do(stranger, "GET", base, nil).wantError(t, http.StatusForbidden, "Not authorized")
	e.do(stranger, "GET", base+"/"+rid, nil).wantError(t, http.StatusForbidden, "Not authorized")
	missing := "/streams/" + unknownID + "/rules"
	e.do(admin, "GET", missing, nil).wantError(t, http.StatusNotFound, "Stream <"+unknownID+"> not found!")
	e.do(admin, "POST", missing, body).wantError(t, http.StatusNotFound, "Stream <"+unknownID+"> not found!")
	e.do(admin, "PUT", missing+"/"+rid, body).want(t, http.StatusNotFound)
	e.do(admin, "GET", base+"/"+unknownID, nil).wantError(t, http.StatusNotFound, "Couldn't find stream rule with ID "+unknownID)
	e.do(admin, "PUT", base+"/"+unknownID, body).want(t, http.StatusNotFound)
	e.do(admin, "DELETE", base+"/nonsense", nil).want(t, http.StatusNotFound)
}
