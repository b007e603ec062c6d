package streams_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/streams"
)

func TestStreamOutputs(t *testing.T) {
	e := newEnv(t)
	e.outs.add(outputA, "A")
	e.outs.add(outputB, "B")
	sid := e.createStream(map[string]any{"title": "Forwarder"})
	base := "/streams/" + sid + "/outputs"
	editor := as(t, "streams:edit:"+sid, "streams:read:"+sid, "stream_outputs:create", "stream_outputs:read", "stream_outputs:delete")

	r := e.do(editor, "POST", base, map[string]any{"outputs": []string{outputA, strings.ToUpper(outputB)}}).want(t, http.StatusAccepted)
	if r.Body.Len() != 0 {
		t.Errorf("202 with body %s", r.Body)
	}
	// Attaching again changes nothing.
	e.do(editor, "POST", base, map[string]any{"outputs": []string{outputA}}).want(t, http.StatusAccepted)
	e.do(editor, "POST", base, map[string]any{"outputs": []string{}}).want(t, http.StatusAccepted)
	list := e.do(editor, "GET", base, nil).want(t, http.StatusOK)
	if list.get("total").Int() != 2 || !slices.Equal(idsOf(list.get("outputs")), []string{outputA, outputB}) {
		t.Fatalf("outputs %s", list.Body)
	}
	wantKeys := []string{"configuration", "content_pack", "created_at", "creator_user_id", "id", "title", "type"}
	if keys := keysOf(list.get("outputs.0")); !slices.Equal(keys, wantKeys) {
		t.Errorf("OutputSummary fields %v", keys)
	}
	one := e.do(editor, "GET", base+"/"+outputB, nil).want(t, http.StatusOK)
	if one.get("title").String() != "B" || one.get("type").String() != "org.graylog2.outputs.GelfOutput" || one.get("created_at").String() != "2021-03-04T05:06:07.890Z" {
		t.Errorf("output %s", one.Body)
	}
	if dto := e.do(admin, "GET", "/streams/paginated?query=forwarder", nil); dto.get("streams.0.outputs").Raw != `["`+outputA+`","`+outputB+`"]` {
		t.Errorf("StreamDTO outputs %s", dto.get("streams.0.outputs").Raw)
	}

	e.do(editor, "DELETE", base+"/"+outputA, nil).want(t, http.StatusNoContent)
	e.do(editor, "GET", base+"/"+outputA, nil).wantError(t, http.StatusNotFound, "is not assigned to stream")
	e.do(editor, "DELETE", base+"/"+outputA, nil).wantError(t, http.StatusNotFound, "Output <"+outputA+"> is not assigned to stream <"+sid+">")
	e.do(editor, "DELETE", base+"/junk", nil).want(t, http.StatusNotFound)
	if ids := idsOf(e.do(editor, "GET", base, nil).get("outputs")); !slices.Equal(ids, []string{outputB}) {
		t.Errorf("after delete %v", ids)
	}

	// An output deleted elsewhere is left out of the responses.
	e.outs.remove(outputB)
	if r := e.do(editor, "GET", base, nil); r.Body.String() != `{"total":0,"outputs":[]}` {
		t.Errorf("dangling output listed: %s", r.Body)
	}
	if r := e.do(editor, "GET", "/streams/"+sid, nil); r.get("outputs").Raw != "[]" {
		t.Errorf("dangling output in StreamResponse: %s", r.get("outputs").Raw)
	}
	e.do(editor, "GET", base+"/"+outputB, nil).wantError(t, http.StatusNotFound, "Couldn't find output with id "+outputB)

	// The default stream may forward too.
	e.do(admin, "POST", "/streams/"+streams.DefaultStreamID+"/outputs", map[string]any{"outputs": []string{outputA}}).want(t, http.StatusAccepted)
}

func TestStreamOutputErrors(t *testing.T) {
	e := newEnv(t)
	e.outs.add(outputA, "A")
	sid := e.createStream(map[string]any{"title": "T"})
	base := "/streams/" + sid + "/outputs"
	cases := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"unknown output", map[string]any{"outputs": []string{outputA, unknownID}}, 404, "Couldn't find output with id " + unknownID},
		{"malformed output id", map[string]any{"outputs": []string{"x"}}, 404, "Couldn't find output with id x"},
		{"missing outputs", map[string]any{}, 400, ""},
		{"unknown property", map[string]any{"outputs": []string{}, "streams": []string{}}, 400, "Unable to map property streams"},
		{"not a list", `{"outputs":"x"}`, 400, "Unable to parse JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(admin, "POST", base, c.body)
			if c.msg == "" {
				r.wantInvalid(t, "outputs")
				return
			}
			r.wantError(t, c.status, c.msg)
		})
	}
	// A failed request attaches nothing, not even the outputs that exist.
	if r := e.do(admin, "GET", base, nil); r.get("total").Int() != 0 {
		t.Errorf("outputs after failed adds: %s", r.Body)
	}
	e.do(admin, "POST", "/streams/"+unknownID+"/outputs", map[string]any{"outputs": []string{outputA}}).wantError(t, http.StatusNotFound, "Stream <"+unknownID+"> not found!")
	e.do(admin, "GET", "/streams/"+unknownID+"/outputs", nil).want(t, http.StatusNotFound)
	e.do(admin, "DELETE", "/streams/"+unknownID+"/outputs/"+outputA, nil).want(t, http.StatusNotFound)

	perms := []struct {
		name, method, path string
		perms              []string
		body               any
	}{
		{"list without stream_outputs:read", "GET", base, []string{"streams:read:" + sid}, nil},
		{"list without streams:read", "GET", base, []string{"stream_outputs:read", "streams:read:" + unknownID}, nil},
		{"get without stream_outputs:read:<id>", "GET", base + "/" + outputA, []string{"streams:read:" + sid, "stream_outputs:read:" + unknownID}, nil},
		{"add without stream_outputs:create", "POST", base, []string{"streams:edit:" + sid}, map[string]any{"outputs": []string{outputA}}},
		{"add without streams:edit", "POST", base, []string{"streams:read", "stream_outputs:create"}, map[string]any{"outputs": []string{outputA}}},
		{"delete without stream_outputs:delete:<id>", "DELETE", base + "/" + outputA, []string{"streams:edit:" + sid, "stream_outputs:delete:" + unknownID}, nil},
		{"delete without streams:edit", "DELETE", base + "/" + outputA, []string{"streams:read", "stream_outputs:delete"}, nil},
	}
	for _, c := range perms {
		t.Run(c.name, func(t *testing.T) {
			e.do(as(t, c.perms...), c.method, c.path, c.body).wantError(t, http.StatusForbidden, "Not authorized")
		})
	}
	// The matching permissions suffice.
	e.do(as(t, "streams:edit:"+sid, "stream_outputs:create"), "POST", base, map[string]any{"outputs": []string{outputA}}).want(t, http.StatusAccepted)
	e.do(as(t, "streams:read:"+sid, "stream_outputs:read"), "GET", base, nil).want(t, http.StatusOK)
	e.do(as(t, "streams:read:"+sid, "stream_outputs:read:"+outputA), "GET", base+"/"+outputA, nil).want(t, http.StatusOK)
	e.do(as(t, "streams:edit:"+sid, "stream_outputs:delete:"+outputA), "DELETE", base+"/"+outputA, nil).want(t, http.StatusNoContent)
}
