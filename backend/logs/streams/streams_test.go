package streams_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/streams"
)

const unknownID = "5f0000000000000000000999"

func TestBuiltinStreams(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		id, title, desc, creator, indexSet string
		isDefault, removeMatches           bool
	}{
		{streams.DefaultStreamID, "All messages", "Stream containing all messages", "local:admin", defaultSet, true, false},
		{streams.EventsStreamID, "All events", "Stream containing all events created by Graylog", "admin", eventsSet, false, true},
		{streams.SystemEventsStreamID, "All system events", "Stream containing all system events created by Graylog", "admin", systemSet, false, true},
	}
	for _, c := range cases {
		r := e.do(admin, "GET", "/streams/"+c.id, nil).want(t, http.StatusOK)
		want := map[string]string{
			"id": c.id, "title": c.title, "description": c.desc, "creator_user_id": c.creator, "index_set_id": c.indexSet,
			"is_default": boolString(c.isDefault), "remove_matches_from_default_stream": boolString(c.removeMatches),
			"disabled": "false", "matching_type": "AND", "rules": "[]", "outputs": "[]", "created_at": "2021-03-04T05:06:07.890Z",
		}
		for f, v := range want {
			if got := r.get(f).String(); got != v {
				t.Errorf("%s: %s = %s, want %s", c.id, f, got, v)
			}
		}
	}
	if n := e.count(); n != 3 {
		t.Errorf("%d streams stored, want the 3 built-in ones", n)
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestCreateAndGet(t *testing.T) {
	e := newEnv(t)
	r := e.do(admin, "POST", "/streams", map[string]any{
		"title": "Errors", "description": "Level 3 and below", "matching_type": "OR", "content_pack": "cp-1",
		"remove_matches_from_default_stream": true, "index_set_id": otherSet,
		"rules": []map[string]any{
			{"type": 4, "field": "level", "value": "4", "inverted": false, "description": "error or worse"},
			{"type": 2, "field": "message", "value": "^ERROR", "inverted": true},
		},
	}).want(t, http.StatusCreated)
	id := r.get("stream_id").String()
	if loc := r.Header().Get("Location"); !strings.HasSuffix(loc, "/streams/"+id) || len(id) != 24 {
		t.Errorf("Location %q for stream %q", loc, id)
	}
	if keys := keysOf(r.get("@this")); !slices.Equal(keys, []string{"stream_id"}) {
		t.Errorf("create answered %s", r.Body)
	}

	got := e.do(admin, "GET", "/streams/"+id, nil).want(t, http.StatusOK)
	want := map[string]string{
		"id": id, "title": "Errors", "description": "Level 3 and below", "matching_type": "OR", "content_pack": "cp-1",
		"remove_matches_from_default_stream": "true", "index_set_id": otherSet, "disabled": "true", "is_default": "false",
		"creator_user_id": "user", "created_at": "2021-03-04T05:06:07.890Z", "outputs": "[]", "alert_conditions": "[]",
		"alert_receivers": `{"emails":[],"users":[]}`, "rules.#": "2",
		"rules.0.type": "4", "rules.0.field": "level", "rules.0.value": "4", "rules.0.inverted": "false",
		"rules.0.description": "error or worse", "rules.0.stream_id": id,
		"rules.1.type": "2", "rules.1.inverted": "true", "rules.1.stream_id": id,
	}
	for f, v := range want {
		if g := got.get(f).String(); g != v {
			t.Errorf("%s = %s, want %s", f, g, v)
		}
	}
	if !got.get("rules.1.description").Exists() || got.get("rules.1.description").Type.String() != "Null" {
		t.Errorf("a rule without description should have description null: %s", got.get("rules.1"))
	}
	// Exactly Graylog 4.0's StreamResponse fields.
	wantKeys := []string{"alert_conditions", "alert_receivers", "content_pack", "created_at", "creator_user_id", "description",
		"disabled", "id", "index_set_id", "is_default", "matching_type", "outputs", "remove_matches_from_default_stream", "rules", "title"}
	if keys := keysOf(got.get("@this")); !slices.Equal(keys, wantKeys) {
		t.Errorf("StreamResponse fields %v, want %v", keys, wantKeys)
	}
	ruleKeys := []string{"description", "field", "id", "inverted", "stream_id", "type", "value"}
	if keys := keysOf(got.get("rules.0")); !slices.Equal(keys, ruleKeys) {
		t.Errorf("StreamRule fields %v, want %v", keys, ruleKeys)
	}
	if a, b := got.get("rules.0.id").String(), got.get("rules.1.id").String(); len(a) != 24 || len(b) != 24 || a == b {
		t.Errorf("rule ids %q, %q", a, b)
	}
	// Ids are case-insensitive hex, as Mongo's ObjectIds.
	e.do(admin, "GET", "/streams/"+strings.ToUpper(id), nil).want(t, http.StatusOK)
}

func TestCreateDefaults(t *testing.T) {
	e := newEnv(t)
	for _, mt := range []any{nil, ""} {
		body := map[string]any{"title": "T", "index_set_id": defaultSet}
		if mt != nil {
			body["matching_type"] = mt
		}
		id := e.createStream(body)
		got := e.do(admin, "GET", "/streams/"+id, nil).want(t, http.StatusOK)
		for f, v := range map[string]string{"matching_type": "AND", "remove_matches_from_default_stream": "false", "rules": "[]"} {
			if g := got.get(f).String(); g != v {
				t.Errorf("matching_type %v: %s = %s, want %s", mt, f, g, v)
			}
		}
		for _, f := range []string{"description", "content_pack"} {
			if got.get(f).Type.String() != "Null" {
				t.Errorf("%s = %s, want null", f, got.get(f).Raw)
			}
		}
	}
}

func TestCreateErrors(t *testing.T) {
	e := newEnv(t)
	base := func(edit func(map[string]any)) map[string]any {
		m := map[string]any{"title": "T", "index_set_id": defaultSet}
		edit(m)
		return m
	}
	apiErrors := []struct {
		name string
		body any
		msg  string
	}{
		{"unknown index set", base(func(m map[string]any) { m["index_set_id"] = "nope" }), "Index set with ID <nope> does not exist!"},
		{"read-only index set", base(func(m map[string]any) { m["index_set_id"] = readOnlySet }), "Assigned index set must be writable!"},
		{"lower-case matching type", base(func(m map[string]any) { m["matching_type"] = "and" }), "Invalid matching type 'and' specified. Should be one of: [AND, OR]"},
		{"unknown matching type", base(func(m map[string]any) { m["matching_type"] = "XOR" }), "Invalid matching type 'XOR' specified."},
		{"unknown property", base(func(m map[string]any) { m["colour"] = "red" }), "Unable to map property colour"},
		{"unknown rule property", base(func(m map[string]any) {
			m["rules"] = []map[string]any{{"type": 1, "field": "a", "value": "b", "weight": 1}}
		}), "Unable to map property weight"},
		{"unknown rule type", base(func(m map[string]any) { m["rules"] = []map[string]any{{"type": 9, "field": "a", "value": "b"}} }), "Unknown stream rule type 9"},
		{"malformed JSON", `{"title":`, "Unable to parse JSON"},
		{"empty body", "", "Request body is mandatory"},
		{"wrong type", `{"title":1,"index_set_id":"x"}`, "property title must be a string"},
	}
	for _, c := range apiErrors {
		t.Run(c.name, func(t *testing.T) {
			e.do(admin, "POST", "/streams", c.body).wantError(t, http.StatusBadRequest, c.msg)
		})
	}
	invalid := []struct {
		name, field string
		body        any
	}{
		{"missing title", "title", base(func(m map[string]any) { delete(m, "title") })},
		{"empty title", "title", base(func(m map[string]any) { m["title"] = "" })},
		{"missing index set", "index_set_id", base(func(m map[string]any) { delete(m, "index_set_id") })},
		{"empty index set", "index_set_id", base(func(m map[string]any) { m["index_set_id"] = "" })},
		{"bad regex rule", "value", base(func(m map[string]any) { m["rules"] = []map[string]any{{"type": 2, "field": "a", "value": "(open"}} })},
		{"rule without field", "field", base(func(m map[string]any) { m["rules"] = []map[string]any{{"type": 1, "value": "b"}} })},
	}
	for _, c := range invalid {
		t.Run(c.name, func(t *testing.T) {
			e.do(admin, "POST", "/streams", c.body).wantInvalid(t, c.field)
		})
	}
	e.do(as(t, "streams:read", "streams:edit"), "POST", "/streams", base(func(map[string]any) {})).wantError(t, http.StatusForbidden, "Not authorized")
	e.do(nil, "POST", "/streams", base(func(map[string]any) {})).want(t, http.StatusUnauthorized)
	if n := e.count(); n != 3 {
		t.Errorf("%d streams stored after failed creates, want 3", n)
	}
}

func TestUpdate(t *testing.T) {
	e := newEnv(t)
	id := e.createStream(map[string]any{"title": "Old", "description": "old desc", "rules": []map[string]any{{"type": 7}}})
	r := e.do(admin, "PUT", "/streams/"+id, map[string]any{
		"title": "New", "description": "", "matching_type": "OR", "remove_matches_from_default_stream": true,
		"index_set_id": otherSet, "rules": []map[string]any{{"whatever": true}}, "unknown_field": 1,
	}).want(t, http.StatusOK)
	want := map[string]string{
		"id": id, "title": "New", "description": "old desc", "matching_type": "OR",
		"remove_matches_from_default_stream": "true", "index_set_id": otherSet, "rules.#": "1", "rules.0.type": "7",
	}
	for f, v := range want {
		if g := r.get(f).String(); g != v {
			t.Errorf("%s = %s, want %s", f, g, v)
		}
	}
	// Absent values leave the stream alone.
	r = e.do(admin, "PUT", "/streams/"+id, map[string]any{}).want(t, http.StatusOK)
	if r.get("title").String() != "New" || r.get("matching_type").String() != "OR" || r.get("index_set_id").String() != otherSet {
		t.Errorf("an empty update changed the stream: %s", r.Body)
	}
	// The GET agrees with the PUT's answer.
	if g := e.do(admin, "GET", "/streams/"+id, nil).Body.String(); g != r.Body.String() {
		t.Errorf("GET %s\nPUT %s", g, r.Body)
	}
	// A user with edit rights on this stream only.
	e.do(as(t, "streams:edit:"+id), "PUT", "/streams/"+id, map[string]any{"title": "Mine"}).want(t, http.StatusOK)
}

func TestUpdateErrors(t *testing.T) {
	e := newEnv(t)
	id := e.createStream(map[string]any{"title": "T"})
	cases := []struct {
		name, id string
		body     any
		status   int
		msg      string
	}{
		{"default stream", streams.DefaultStreamID, map[string]any{"title": "x"}, 400, "The default stream cannot be edited."},
		{"events stream", streams.EventsStreamID, map[string]any{"title": "x"}, 400, "The default stream cannot be edited."},
		{"system events stream", streams.SystemEventsStreamID, map[string]any{"title": "x"}, 400, "The default stream cannot be edited."},
		{"unknown stream", unknownID, map[string]any{"title": "x"}, 404, "Stream <" + unknownID + "> not found!"},
		{"malformed id", "not-an-id", map[string]any{"title": "x"}, 404, "Stream <not-an-id> not found!"},
		{"bad matching type", id, map[string]any{"matching_type": "or"}, 400, "Invalid matching type 'or' specified. Should be one of: [AND, OR]"},
		{"empty matching type", id, map[string]any{"matching_type": ""}, 400, "Invalid matching type '' specified."},
		{"unknown index set", id, map[string]any{"index_set_id": "gone"}, 400, "Index set with ID <gone> does not exist!"},
		{"read-only index set", id, map[string]any{"index_set_id": readOnlySet}, 400, "Assigned index set must be writable!"},
		{"malformed JSON", id, "{", 400, "Unable to parse JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.do(admin, "PUT", "/streams/"+c.id, c.body).wantError(t, c.status, c.msg)
		})
	}
	e.do(as(t, "streams:read", "streams:edit:"+unknownID), "PUT", "/streams/"+id, map[string]any{"title": "x"}).wantError(t, http.StatusForbidden, "Not authorized")
	if got := e.do(admin, "GET", "/streams/"+id, nil).get("title").String(); got != "T" {
		t.Errorf("title %q after failed updates", got)
	}
	// The index set is checked even when it does not change.
	e.ix.mu.Lock()
	e.ix.writable[defaultSet] = false
	e.ix.mu.Unlock()
	e.do(admin, "PUT", "/streams/"+id, map[string]any{"title": "x"}).wantError(t, http.StatusBadRequest, "Assigned index set must be writable!")
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	id := e.createStream(map[string]any{"title": "T", "rules": []map[string]any{{"type": 7}}})
	e.do(as(t, "streams:read", "streams:edit:"+unknownID), "DELETE", "/streams/"+id, nil).wantError(t, http.StatusForbidden, "Not authorized")
	for _, b := range []string{streams.DefaultStreamID, streams.EventsStreamID, streams.SystemEventsStreamID} {
		e.do(admin, "DELETE", "/streams/"+b, nil).wantError(t, http.StatusBadRequest, "The default stream cannot be deleted.")
	}
	e.do(as(t, "streams:edit:"+id), "DELETE", "/streams/"+id, nil).want(t, http.StatusNoContent)
	e.do(admin, "GET", "/streams/"+id, nil).wantError(t, http.StatusNotFound, "Stream <"+id+"> not found!")
	e.do(admin, "GET", "/streams/"+id+"/rules", nil).want(t, http.StatusNotFound)
	e.do(admin, "DELETE", "/streams/"+id, nil).want(t, http.StatusNotFound)
	if n := e.count(); n != 3 {
		t.Errorf("%d streams stored, want 3", n)
	}
}

func TestPauseResume(t *testing.T) {
	e := newEnv(t)
	id := e.createStream(map[string]any{"title": "T"})
	disabled := func() string { return e.do(admin, "GET", "/streams/"+id, nil).get("disabled").String() }
	if d := disabled(); d != "true" {
		t.Fatalf("a new stream has disabled=%s, want paused", d)
	}
	e.do(as(t, "streams:changestate:"+id), "POST", "/streams/"+id+"/resume", nil).want(t, http.StatusNoContent)
	if d := disabled(); d != "false" {
		t.Errorf("after resume disabled=%s", d)
	}
	e.do(as(t, "streams:edit:"+id), "POST", "/streams/"+id+"/pause", nil).want(t, http.StatusNoContent)
	if d := disabled(); d != "true" {
		t.Errorf("after pause disabled=%s", d)
	}
	for _, path := range []string{"/pause", "/resume"} {
		e.do(as(t, "streams:read"), "POST", "/streams/"+id+path, nil).wantError(t, http.StatusForbidden, "Not authorized")
		e.do(admin, "POST", "/streams/"+unknownID+path, nil).want(t, http.StatusNotFound)
		e.do(nil, "POST", "/streams/"+id+path, nil).want(t, http.StatusUnauthorized)
	}
	for _, b := range []string{streams.DefaultStreamID, streams.EventsStreamID, streams.SystemEventsStreamID} {
		e.do(admin, "POST", "/streams/"+b+"/pause", nil).wantError(t, http.StatusBadRequest, "The default stream cannot be paused.")
		e.do(admin, "POST", "/streams/"+b+"/resume", nil).wantError(t, http.StatusBadRequest, "The default stream cannot be resumed.")
	}
}

func TestClone(t *testing.T) {
	e := newEnv(t)
	e.outs.add(outputA, "A")
	src := e.createStream(map[string]any{"title": "Source", "matching_type": "OR", "content_pack": "cp", "rules": []map[string]any{
		{"type": 1, "field": "source", "value": "web-1", "description": "web"},
		{"type": 5, "field": "error", "inverted": true},
	}})
	e.do(admin, "POST", "/streams/"+src+"/outputs", map[string]any{"outputs": []string{outputA}}).want(t, http.StatusAccepted)
	e.do(admin, "POST", "/streams/"+src+"/resume", nil).want(t, http.StatusNoContent)
	// An output deleted since it was attached is not copied.
	if err := e.svc.AddOutput(context.Background(), src, outputB); err != nil {
		t.Fatal(err)
	}

	p := as(t, "streams:create", "streams:read:"+src)
	r := e.do(p, "POST", "/streams/"+src+"/clone", map[string]any{
		"title": "Copy", "description": "a copy", "remove_matches_from_default_stream": true, "index_set_id": otherSet,
	}).want(t, http.StatusCreated)
	id := r.get("stream_id").String()
	if id == src || !strings.HasSuffix(r.Header().Get("Location"), "/streams/"+id) {
		t.Fatalf("clone answered %s, Location %q", r.Body, r.Header().Get("Location"))
	}
	c := e.do(admin, "GET", "/streams/"+id, nil).want(t, http.StatusOK)
	s := e.do(admin, "GET", "/streams/"+src, nil).want(t, http.StatusOK)
	want := map[string]string{
		"title": "Copy", "description": "a copy", "matching_type": "OR", "disabled": "true", "index_set_id": otherSet,
		"remove_matches_from_default_stream": "true", "creator_user_id": "user", "outputs.#": "1", "outputs.0.id": outputA,
		"rules.#": "2", "rules.0.field": "source", "rules.0.value": "web-1", "rules.0.description": "web", "rules.0.stream_id": id,
		"rules.1.type": "5", "rules.1.inverted": "true", "rules.1.stream_id": id,
	}
	for f, v := range want {
		if g := c.get(f).String(); g != v {
			t.Errorf("clone %s = %s, want %s", f, g, v)
		}
	}
	for i := range 2 {
		if a, b := c.get("rules."+string(rune('0'+i))+".id").String(), s.get("rules."+string(rune('0'+i))+".id").String(); a == b || len(a) != 24 {
			t.Errorf("clone rule %d has id %q, source %q", i, a, b)
		}
	}
	if s.get("title").String() != "Source" || s.get("disabled").Bool() || s.get("rules.0.stream_id").String() != src {
		t.Errorf("the source changed: %s", s.Body)
	}

	body := map[string]any{"title": "Copy", "index_set_id": defaultSet}
	for _, b := range []string{streams.DefaultStreamID, streams.EventsStreamID, streams.SystemEventsStreamID} {
		e.do(admin, "POST", "/streams/"+b+"/clone", body).wantError(t, http.StatusBadRequest, "The default stream cannot be cloned.")
	}
	e.do(as(t, "streams:read"), "POST", "/streams/"+src+"/clone", body).wantError(t, http.StatusForbidden, "Not authorized")
	e.do(as(t, "streams:create"), "POST", "/streams/"+src+"/clone", body).wantError(t, http.StatusForbidden, "Not authorized")
	e.do(admin, "POST", "/streams/"+unknownID+"/clone", body).wantError(t, http.StatusNotFound, "not found")
	e.do(admin, "POST", "/streams/"+src+"/clone", map[string]any{"index_set_id": defaultSet}).wantInvalid(t, "title")
	e.do(admin, "POST", "/streams/"+src+"/clone", map[string]any{"title": "x"}).wantInvalid(t, "index_set_id")
	e.do(admin, "POST", "/streams/"+src+"/clone", map[string]any{"title": "x", "index_set_id": "gone"}).wantError(t, http.StatusBadRequest, "Index set with ID <gone> does not exist!")
	e.do(admin, "POST", "/streams/"+src+"/clone", map[string]any{"title": "x", "index_set_id": defaultSet, "rules": []any{}}).wantError(t, http.StatusBadRequest, "Unable to map property rules")
	if n := e.count(); n != 5 {
		t.Errorf("%d streams stored, want 5", n)
	}
}

func TestTestMatch(t *testing.T) {
	e := newEnv(t)
	id := e.createStream(map[string]any{"title": "T"})
	exact := e.createRule(id, map[string]any{"type": 1, "field": "status", "value": "200"})
	regex := e.createRule(id, map[string]any{"type": 2, "field": "message", "value": "disk (full|gone)"})
	ts := e.createRule(id, map[string]any{"type": 1, "field": "timestamp", "value": "2021-03-04T05:06:07.890Z"})
	cases := []struct {
		name    string
		message string
		matches bool
		rules   map[string]bool
	}{
		{"all match", `{"status":200,"message":"the disk full again"}`, true, map[string]bool{exact: true, regex: true, ts: true}},
		{"a decimal is a Double", `{"status":200.0,"message":"disk full"}`, false, map[string]bool{exact: false, regex: true, ts: true}},
		{"string status", `{"status":" 200 ","message":"disk gone"}`, true, map[string]bool{exact: true, regex: true, ts: true}},
		{"regex misses", `{"status":200,"message":"disk ok"}`, false, map[string]bool{exact: true, regex: false, ts: true}},
		{"own timestamp", `{"status":200,"message":"disk full","timestamp":"2020-01-01T00:00:00.000Z"}`, false, map[string]bool{exact: true, regex: true, ts: false}},
		{"empty message", `{}`, false, map[string]bool{exact: false, regex: false, ts: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(as(t, "streams:read:"+id), "POST", "/streams/"+id+"/testMatch", `{"message":`+c.message+`}`).want(t, http.StatusOK)
			if r.get("matches").Bool() != c.matches {
				t.Errorf("matches = %v, want %v: %s", !c.matches, c.matches, r.Body)
			}
			got := map[string]bool{}
			for k, v := range r.get("rules").Map() {
				got[k] = v.Bool()
			}
			if len(got) != len(c.rules) {
				t.Errorf("rules %v, want %v", got, c.rules)
			}
			for k, v := range c.rules {
				if got[k] != v {
					t.Errorf("rule %s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
	// OR: any rule; the default stream has no rules and matches nothing.
	e.do(admin, "PUT", "/streams/"+id, map[string]any{"matching_type": "OR"}).want(t, http.StatusOK)
	if !e.do(admin, "POST", "/streams/"+id+"/testMatch", `{"message":{"message":"disk full"}}`).want(t, http.StatusOK).get("matches").Bool() {
		t.Error("OR stream did not match on one rule")
	}
	r := e.do(admin, "POST", "/streams/"+streams.DefaultStreamID+"/testMatch", `{"message":{"a":"b"}}`).want(t, http.StatusOK)
	if r.get("matches").Bool() || r.get("rules").Raw != "{}" {
		t.Errorf("default stream: %s", r.Body)
	}

	e.do(admin, "POST", "/streams/"+id+"/testMatch", `{"msg":{}}`).wantError(t, http.StatusBadRequest, "needs a message object")
	e.do(admin, "POST", "/streams/"+id+"/testMatch", `{"message":[1]}`).wantError(t, http.StatusBadRequest, "Unable to parse JSON")
	e.do(admin, "POST", "/streams/"+unknownID+"/testMatch", `{"message":{}}`).want(t, http.StatusNotFound)
	e.do(as(t, "streams:read:"+unknownID), "POST", "/streams/"+id+"/testMatch", `{"message":{}}`).wantError(t, http.StatusForbidden, "Not authorized")
}

func TestListings(t *testing.T) {
	e := newEnv(t)
	e.outs.add(outputA, "A")
	b := e.createStream(map[string]any{"title": "beta", "description": "second"})
	a := e.createStream(map[string]any{"title": "Alpha", "description": "first", "rules": []map[string]any{{"type": 7}}})
	c := e.createStream(map[string]any{"title": "gamma"})
	e.do(admin, "POST", "/streams/"+a+"/outputs", map[string]any{"outputs": []string{outputA}}).want(t, http.StatusAccepted)
	e.do(admin, "POST", "/streams/"+a+"/resume", nil).want(t, http.StatusNoContent)

	r := e.do(admin, "GET", "/streams", nil).want(t, http.StatusOK)
	if r.Header().Get("Deprecation") != "true" || !strings.Contains(r.Header().Get("Link"), "/streams/paginated>") {
		t.Errorf("deprecated listing headers: %v", r.Header())
	}
	if ids := idsOf(r.get("streams")); !slices.Equal(ids, []string{streams.EventsStreamID, streams.DefaultStreamID, streams.SystemEventsStreamID, a, b, c}) || r.get("total").Int() != 6 {
		t.Errorf("GET /streams: total %d, ids %v", r.get("total").Int(), ids)
	}
	if got := r.get(`streams.#(id=="` + a + `").outputs.0.title`).String(); got != "A" {
		t.Errorf("StreamResponse outputs should be summaries: %s", r.get(`streams.#(id=="`+a+`").outputs`).Raw)
	}

	// Per-stream read permissions filter every listing.
	p := as(t, "streams:read:"+a, "streams:read:"+c)
	r = e.do(p, "GET", "/streams", nil).want(t, http.StatusOK)
	if ids := idsOf(r.get("streams")); !slices.Equal(ids, []string{a, c}) || r.get("total").Int() != 2 {
		t.Errorf("filtered GET /streams: %s", r.Body)
	}
	r = e.do(p, "GET", "/streams/enabled", nil).want(t, http.StatusOK)
	if ids := idsOf(r.get("streams")); !slices.Equal(ids, []string{a}) || r.get("total").Int() != 1 {
		t.Errorf("GET /streams/enabled: %s", r.Body)
	}
	r = e.do(admin, "GET", "/streams/enabled", nil).want(t, http.StatusOK)
	if r.get("total").Int() != 4 {
		t.Errorf("enabled: %s", r.Body)
	}
	r = e.do(as(t), "GET", "/streams", nil).want(t, http.StatusOK)
	if r.get("total").Int() != 0 || r.get("streams").Raw != "[]" {
		t.Errorf("no permission: %s", r.Body)
	}

	r = e.do(p, "GET", "/streams/paginated?per_page=1&page=2", nil).want(t, http.StatusOK)
	want := map[string]string{
		"query": "", "sort": "title", "order": "asc", "total": "6",
		"pagination": `{"total":2,"count":1,"page":2,"per_page":1}`, "streams.#": "1", "streams.0.id": c,
	}
	for f, v := range want {
		if g := r.get(f).Raw; strings.Trim(g, `"`) != v {
			t.Errorf("paginated %s = %s, want %s", f, g, v)
		}
	}
	if keys := keysOf(r.get("@this")); !slices.Equal(keys, []string{"order", "pagination", "query", "sort", "streams", "total"}) {
		t.Errorf("paginated envelope %v", keys)
	}
	r = e.do(admin, "GET", "/streams/paginated?query=alp", nil).want(t, http.StatusOK)
	if r.get("streams.0.outputs").Raw != `["`+outputA+`"]` || r.get("streams.0.rules.#").Int() != 1 || r.get("pagination.total").Int() != 1 {
		t.Errorf("StreamDTO outputs should be ids: %s", r.Body)
	}
	orders := []struct {
		query string
		want  []string
	}{
		{"sort=title&order=desc", []string{c, b, a, streams.SystemEventsStreamID, streams.DefaultStreamID, streams.EventsStreamID}},
		{"sort=description&per_page=2", []string{c, a}},
		{"query=description:sec", []string{b}},
		{"query=-title:a", []string{}},
		{"query=a&page=2&per_page=4", []string{b, c}},
		{"page=3", []string{}},
	}
	for _, o := range orders {
		r := e.do(admin, "GET", "/streams/paginated?"+o.query, nil).want(t, http.StatusOK)
		if ids := idsOf(r.get("streams")); !slices.Equal(ids, o.want) {
			t.Errorf("%s: %v, want %v", o.query, ids, o.want)
		}
	}
	for _, bad := range []string{"sort=secret", "order=up", "page=0", "per_page=x", "query=owner:me", `query="open`} {
		e.do(admin, "GET", "/streams/paginated?"+bad, nil).want(t, http.StatusBadRequest)
	}
}
