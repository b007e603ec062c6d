package extractors_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/extractors"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return epoch }

// recorded keeps the system messages the service writes.
type recorded struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorded) Record(_ context.Context, _, format string, args ...any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, sprintf(format, args...))
	return nil
}

type env struct {
	t      testing.TB
	st     *bolt.Store
	inputs *inputs.Service
	svc    *extractors.Service
	notes  *recorded
	input  string
	routertest.Client
}

var grokStore struct {
	sync.Once
	svc *grok.Service
	err error
}

// newEnv serves the extractor routes and the input routes over a fresh
// store holding one GELF input.
func newEnv(t testing.TB) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), grok.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	grokStore.Do(func() {
		gst, err := bolt.Open(filepath.Join(t.TempDir(), "grok"), grok.Indexes)
		if err != nil {
			grokStore.err = err
			return
		}
		grokStore.svc, grokStore.err = grok.NewService(context.Background(), gst, clock)
	})
	if grokStore.err != nil {
		t.Fatal(grokStore.err)
	}
	e := &env{t: t, st: st, inputs: inputs.NewService(st, clock), notes: &recorded{}}
	e.svc, err = extractors.NewService(context.Background(), st, grokStore.svc, extractors.Options{Now: clock, Messages: e.notes})
	if err != nil {
		t.Fatal(err)
	}
	e.H = routertest.Handler(slices.Concat(extractors.NewHandler(e.svc).Routes(), inputs.NewHandler(e.inputs, inputs.NewStates(clock), nil).Routes()))
	in, err := e.inputs.Create(context.Background(), inputs.CreateRequest{Title: "gelf", Type: "org.graylog2.inputs.gelf.http.GELFHttpInput", Global: true,
		Configuration: map[string]json.RawMessage{"bind_address": json.RawMessage(`"127.0.0.1"`), "port": json.RawMessage(`12201`)}}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	e.input = in.ID
	return e
}

func (e *env) path(rest string) string { return "/system/inputs/" + e.input + rest }

// terraformBody is what terraform-provider-graylog sends: the ten fields,
// converters as an object keyed by type.
const terraformBody = `{"title":"took","cut_or_copy":"copy","source_field":"message","target_field":"took_ms",
"extractor_type":"regex","extractor_config":{"regex_value":"took (\\d+) ms"},
"converters":{"numeric":{}},"condition_type":"string","condition_value":"took","order":3}`

func (e *env) create(body string) string {
	e.t.Helper()
	rec := e.Admin("POST", e.path("/extractors"), body)
	routertest.WantStatus(e.t, rec, http.StatusCreated)
	return gjson.Get(rec.Body.String(), "extractor_id").String()
}

func TestCreateListShowUpdateDelete(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("POST", e.path("/extractors"), terraformBody)
	routertest.WantStatus(t, rec, http.StatusCreated)
	id := gjson.Get(rec.Body.String(), "extractor_id").String()
	if len(id) != 36 || id[14] != '1' {
		t.Errorf("id %q, want a time-based UUID", id)
	}
	if loc := rec.Header().Get("Location"); !strings.HasSuffix(loc, e.path("/extractors/"+id)) {
		t.Errorf("Location %s", loc)
	}
	list := e.Admin("GET", e.path("/extractors"), "")
	routertest.WantStatus(t, list, http.StatusOK)
	b := gjson.Parse(list.Body.String())
	one := b.Get("extractors.0")
	if b.Get("total").Int() != 1 || one.Get("id").String() != id || one.Get("type").String() != "regex" ||
		one.Get("cursor_strategy").String() != "copy" || one.Get("converters").Raw != `[{"type":"numeric","config":{}}]` ||
		one.Get("extractor_config.regex_value").String() != `took (\d+) ms` || one.Get("order").Int() != 3 ||
		one.Get("creator_user_id").String() != "user" || one.Get("condition_type").String() != "string" ||
		!one.Get("exceptions").Exists() || !one.Get("converter_exceptions").Exists() {
		t.Errorf("list: %s", list.Body)
	}
	for _, k := range []string{"total", "condition", "execution", "converters"} {
		m := one.Get("metrics." + k)
		if !m.Get("time.95th_percentile").Exists() || !m.Get("rate.one_minute").Exists() || m.Get("duration_unit").String() != "microseconds" {
			t.Errorf("metrics.%s: %s", k, m.Raw)
		}
	}
	if !one.Get("metrics.condition_hits").Exists() || !one.Get("metrics.condition_misses").Exists() {
		t.Errorf("metrics: %s", one.Get("metrics").Raw)
	}
	show := e.Admin("GET", e.path("/extractors/"+id), "")
	routertest.WantStatus(t, show, http.StatusOK)
	if gjson.Get(show.Body.String(), "title").String() != "took" {
		t.Errorf("show: %s", show.Body)
	}
	// PUT answers 200 with the new summary; without order it is 0.
	upd := strings.Replace(strings.Replace(terraformBody, `"order":3`, `"order":0`, 1), `"took",`, `"renamed",`, 1)
	upd = strings.Replace(upd, `,"order":0`, ``, 1)
	rec = e.Admin("PUT", e.path("/extractors/"+id), upd)
	routertest.WantStatus(t, rec, http.StatusOK)
	if g := gjson.Parse(rec.Body.String()); g.Get("id").String() != id || g.Get("title").String() != "renamed" || g.Get("order").Int() != 0 {
		t.Errorf("update: %s", rec.Body)
	}
	routertest.WantStatus(t, e.Admin("DELETE", e.path("/extractors/"+id), ""), http.StatusNoContent)
	routertest.WantError(t, e.Admin("DELETE", e.path("/extractors/"+id), ""), http.StatusNotFound, "Couldn't find extractor "+id)
	routertest.WantError(t, e.Admin("GET", e.path("/extractors/"+id), ""), http.StatusNotFound, "Couldn't find extractor "+id)
	want := []string{
		"Added extractor " + id + " of type [regex] to input " + e.input + ".",
		"Updated extractor " + id + " of type [regex] in input " + e.input + ".",
		"Deleted extractor " + id + " of type [REGEX] from input " + e.input + ".",
	}
	if !slices.Equal(e.notes.msgs, want) {
		t.Errorf("system messages %q, want %q", e.notes.msgs, want)
	}
}

// TestInputUpdateKeepsExtractors: the input document holds the
// extractors and static fields; updating the input keeps them.
func TestInputUpdateKeepsExtractors(t *testing.T) {
	e := newEnv(t)
	id := e.create(terraformBody)
	routertest.WantStatus(t, e.Admin("POST", e.path("/staticfields"), `{"key":"env","value":"prod"}`), http.StatusCreated)
	rec := e.Admin("PUT", e.path(""), `{"title":"renamed","type":"org.graylog2.inputs.gelf.http.GELFHttpInput","global":true,"configuration":{"bind_address":"127.0.0.1","port":12201}}`)
	routertest.WantStatus(t, rec, http.StatusCreated)
	list := e.Admin("GET", e.path("/extractors"), "")
	if gjson.Get(list.Body.String(), "extractors.0.id").String() != id {
		t.Errorf("after the input's update: %s", list.Body)
	}
	in := e.Admin("GET", e.path(""), "")
	if gjson.Get(in.Body.String(), "static_fields").Raw != `{"env":"prod"}` || gjson.Get(in.Body.String(), "title").String() != "renamed" {
		t.Errorf("input: %s", in.Body)
	}
	all := e.Admin("GET", "/system/inputs", "")
	if gjson.Get(all.Body.String(), "inputs.0.static_fields.env").String() != "prod" || gjson.Get(all.Body.String(), "inputs.0.extractors").Exists() {
		t.Errorf("inputs: %s", all.Body)
	}
}

// TestErrors are 4.0's statuses and messages (§2.1, §2.4).
func TestErrors(t *testing.T) {
	e := newEnv(t)
	swap := func(old, new string) string { return strings.Replace(terraformBody, old, new, 1) }
	cases := []struct {
		name, path, body string
		status           int
		msg              string
	}{
		{"input id invalid", "/system/inputs/nope/extractors", terraformBody, 404, "Input id <nope> is invalid!"},
		{"input missing", "/system/inputs/5f0000000000000000000001/extractors", terraformBody, 404, "Input <5f0000000000000000000001> not found!"},
		{"unknown property", e.path("/extractors"), swap(`"order":3`, `"order":3,"x":1`), 400, "Unable to map property x"},
		{"converters as a list", e.path("/extractors"), swap(`{"numeric":{}}`, `[{"type":"numeric"}]`), 400, "converters must be an object"},
		{"converter config not an object", e.path("/extractors"), swap(`{"numeric":{}}`, `{"numeric":"x"}`), 400, "converter numeric must be an object"},
		{"missing title", e.path("/extractors"), swap(`"title":"took",`, ``), 400, "Null title"},
		{"missing converters", e.path("/extractors"), swap(`"converters":{"numeric":{}},`, ``), 400, "Null converters"},
		{"missing config", e.path("/extractors"), swap(`"extractor_config":{"regex_value":"took (\\d+) ms"},`, ``), 400, "Null extractorConfig"},
		{"unknown type", e.path("/extractors"), swap(`"extractor_type":"regex"`, `"extractor_type":"xml"`), 500, "No enum constant org.graylog2.plugin.inputs.Extractor.Type.XML"},
		{"unknown cursor", e.path("/extractors"), swap(`"cut_or_copy":"copy"`, `"cut_or_copy":"move"`), 500, "No enum constant org.graylog2.plugin.inputs.Extractor.CursorStrategy.MOVE"},
		{"unknown condition", e.path("/extractors"), swap(`"condition_type":"string"`, `"condition_type":"maybe"`), 500, "ConditionType.MAYBE"},
		{"unknown converter", e.path("/extractors"), swap(`{"numeric":{}}`, `{"nope":{}}`), 500, "No enum constant org.graylog2.plugin.inputs.Converter.Type.NOPE"},
		{"reserved target", e.path("/extractors"), swap(`"target_field":"took_ms"`, `"target_field":"_id"`), 400, "You cannot apply an extractor on reserved field [_id]."},
		{"missing regex", e.path("/extractors"), swap(`{"regex_value":"took (\\d+) ms"}`, `{}`), 400, "regex_value"},
		{"RE2 refuses lookbehind", e.path("/extractors"), swap(`took (\\d+) ms`, `(?<=took )\\d+`), 400, "RE2"},
		{"no lookup tables", e.path("/extractors"), swap(`"extractor_type":"regex","extractor_config":{"regex_value":"took (\\d+) ms"}`, `"extractor_type":"lookup_table","extractor_config":{"lookup_table_name":"t"}`), 500, "Configured lookup table <t> doesn't exist"},
		{"show: input", "/system/inputs/5f0000000000000000000001/extractors/x", "", 404, "Couldn't find input 5f0000000000000000000001"},
		{"show: extractor", e.path("/extractors/x"), "", 404, "Couldn't find extractor x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if c.body == "" {
				method = "GET"
			}
			routertest.WantError(t, e.Admin(method, c.path, c.body), c.status, c.msg)
		})
	}
	// A converter with a bad configuration is left out; the extractor is
	// saved with the others (Graylog's loadConverters skips it and the
	// extractor persists the converters built), their types in lower case.
	id := e.create(swap(`{"numeric":{}}`, `{"date":{},"UpperCase":{},"split_and_count":{"split_by":""},"csv":{"column_header":"a,b"}}`))
	show := e.Admin("GET", e.path("/extractors/"+id), "")
	if got := gjson.Get(show.Body.String(), "converters.#.type").Raw; got != `["uppercase","csv"]` {
		t.Errorf("converters %s, want the bad ones left out", got)
	}
	if got := gjson.Get(show.Body.String(), "converters.1.config.column_header").String(); got != "a,b" {
		t.Errorf("csv config %q", got)
	}
}

func TestOrder(t *testing.T) {
	e := newEnv(t)
	a := e.create(terraformBody)
	b := e.create(terraformBody)
	rec := e.Admin("POST", e.path("/extractors/order"), `{"order":{"0":"`+b+`","1":"`+a+`","2":"unknown"}}`)
	routertest.WantStatus(t, rec, http.StatusNoContent)
	list := gjson.Parse(e.Admin("GET", e.path("/extractors"), "").Body.String())
	// Stored order is kept in the list; the order values changed.
	if list.Get("extractors.#.id").Raw != `["`+a+`","`+b+`"]` || list.Get("extractors.#.order").Raw != `[1,0]` {
		t.Errorf("after reorder: %s", list.Raw)
	}
	routertest.WantError(t, e.Admin("POST", "/system/inputs/5f0000000000000000000001/extractors/order", `{"order":{}}`), 404, "not found")
	routertest.WantStatus(t, e.Admin("POST", e.path("/extractors/order"), `{"order":{"x":"y"}}`), 400)
}

// TestOrderSameIDTwice: an id at several positions takes the lowest, as
// Graylog's getKeyByValue finds it, every time.
func TestOrderSameIDTwice(t *testing.T) {
	e := newEnv(t)
	a := e.create(terraformBody)
	for i := 0; i < 20; i++ {
		body := `{"order":{"7":"` + a + `","3":"` + a + `","5":"` + a + `"}}`
		routertest.WantStatus(t, e.Admin("POST", e.path("/extractors/order"), body), http.StatusNoContent)
		if got := gjson.Get(e.Admin("GET", e.path("/extractors/"+a), "").Body.String(), "order").Int(); got != 3 {
			t.Fatalf("round %d: order %d, want 3", i, got)
		}
	}
}

func TestStaticFields(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("POST", e.path("/staticfields"), `{"key":"env","value":"prod"}`)
	routertest.WantStatus(t, rec, http.StatusCreated)
	if rec.Body.Len() != 0 || !strings.HasSuffix(rec.Header().Get("Location"), e.path("")) {
		t.Errorf("create: %q, Location %s", rec.Body, rec.Header().Get("Location"))
	}
	routertest.WantStatus(t, e.Admin("POST", e.path("/staticfields"), `{"key":"","value":"empty key passes"}`), http.StatusCreated)
	routertest.WantStatus(t, e.Admin("POST", e.path("/staticfields"), `{"key":"message","value":"settable"}`), http.StatusCreated)
	for _, c := range []struct {
		body, msg string
		status    int
	}{
		{`{"key":"bad key","value":"x"}`, "Invalid key: [bad key]", 400},
		{`{"key":"_id","value":"x"}`, "Cannot add static field. Field [_id] is reserved.", 400},
		{`{"value":"x"}`, "Null key", 400},
		{`{"key":"k"}`, "Null value", 400},
		{`{"key":"k","value":"v","x":1}`, "Unable to map property x", 400},
	} {
		routertest.WantError(t, e.Admin("POST", e.path("/staticfields"), c.body), c.status, c.msg)
	}
	routertest.WantError(t, e.Admin("POST", "/system/inputs/5f0000000000000000000001/staticfields", `{"key":"k","value":"v"}`), 404, "Input <5f0000000000000000000001> not found.")
	if got := gjson.Get(e.Admin("GET", e.path(""), "").Body.String(), "static_fields.env").String(); got != "prod" {
		t.Errorf("input shows %q", got)
	}
	routertest.WantStatus(t, e.Admin("DELETE", e.path("/staticfields/env"), ""), http.StatusNoContent)
	routertest.WantError(t, e.Admin("DELETE", e.path("/staticfields/env"), ""), 404, "No such static field [env] on input "+e.input+".")
	if slices.Index(e.notes.msgs, "Added static field [env] to input "+e.input+".") < 0 || slices.Index(e.notes.msgs, "Removed static field [env] of input "+e.input+".") < 0 {
		t.Errorf("system messages %q", e.notes.msgs)
	}
}

// TestPermissions: inputs:read on the input reads, inputs:edit changes.
func TestPermissions(t *testing.T) {
	e := newEnv(t)
	id := e.create(terraformBody)
	reader := routertest.Principal(t, "inputs:read:"+e.input)
	other := routertest.Principal(t, "inputs:read:5f0000000000000000000001", "inputs:edit:5f0000000000000000000001")
	routertest.WantStatus(t, e.Do(reader, "GET", e.path("/extractors"), ""), 200)
	routertest.WantStatus(t, e.Do(reader, "GET", e.path("/extractors/"+id), ""), 200)
	routertest.WantStatus(t, e.Do(reader, "POST", e.path("/extractors"), terraformBody), 403)
	routertest.WantStatus(t, e.Do(reader, "DELETE", e.path("/extractors/"+id), ""), 403)
	routertest.WantStatus(t, e.Do(reader, "POST", e.path("/staticfields"), `{"key":"a","value":"b"}`), 403)
	routertest.WantStatus(t, e.Do(other, "GET", e.path("/extractors"), ""), 403)
	editor := routertest.Principal(t, "inputs:edit:"+e.input)
	routertest.WantStatus(t, e.Do(editor, "POST", e.path("/extractors/order"), `{"order":{}}`), 204)
}

// TestFilter runs an input's extractors and static fields on messages of
// that input only: ascending order, a static field only where the message
// lacks it.
func TestFilter(t *testing.T) {
	e := newEnv(t)
	e.create(`{"title":"second","cut_or_copy":"copy","source_field":"word","target_field":"upper","extractor_type":"copy_input",
		"extractor_config":{},"converters":{"uppercase":{}},"condition_type":"none","condition_value":"","order":2}`)
	e.create(`{"title":"first","cut_or_copy":"cut","source_field":"line","target_field":"word","extractor_type":"regex",
		"extractor_config":{"regex_value":"^(\\w+)"},"converters":{},"condition_type":"regex","condition_value":"^h","order":1}`)
	routertest.WantStatus(t, e.Admin("POST", e.path("/staticfields"), `{"key":"env","value":"prod"}`), http.StatusCreated)
	routertest.WantStatus(t, e.Admin("POST", e.path("/staticfields"), `{"key":"word","value":"static"}`), http.StatusCreated)
	mine := &messages.Message{Fields: []messages.Field{{Key: "line", Value: "hello world"}, {Key: messages.FieldSourceInput, Value: e.input}}}
	other := &messages.Message{Fields: []messages.Field{{Key: "line", Value: "hello world"}, {Key: messages.FieldSourceInput, Value: "5f0000000000000000000009"}}}
	e.svc.Filter().Process(context.Background(), []*messages.Message{mine, other})
	want := map[string]any{"line": "world", "word": "hello", "upper": "HELLO", "env": "prod", messages.FieldSourceInput: e.input}
	got := map[string]any{}
	for _, f := range mine.Fields {
		got[f.Key] = f.Value
	}
	if !mapsEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(other.Fields) != 2 {
		t.Errorf("another input's message changed: %v", other.Fields)
	}
}
