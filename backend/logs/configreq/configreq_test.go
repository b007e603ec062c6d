package configreq_test

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/configreq"
	"github.com/loggate/loggate/router/api"
)

// schema has every kind, attribute and optionality the coercion tells apart.
var schema = configreq.Request{
	{Name: "host", Kind: configreq.Text, HumanName: "Host", Description: "Where to", Default: ""},
	{Name: "port", Kind: configreq.Number, HumanName: "Port", Default: 12201, Attributes: []string{configreq.IsPortNumber}},
	{Name: "proto", Kind: configreq.Dropdown, HumanName: "Protocol", Default: "TCP", Optional: true,
		Choices: []configreq.Choice{{Value: "UDP", Label: "udp"}, {Value: "TCP", Label: "tcp"}}},
	{Name: "timeout", Kind: configreq.Number, Default: 1000, Optional: true, Attributes: []string{configreq.OnlyPositive}},
	{Name: "offset", Kind: configreq.Number, Default: -1, Optional: true, Attributes: []string{configreq.OnlyNegative}},
	{Name: "tls", Kind: configreq.Boolean, Default: false},
	{Name: "secret", Kind: configreq.Text, Default: "", Optional: true, Attributes: []string{configreq.IsPassword}},
	{Name: "source", Kind: configreq.Text, Default: nil, Optional: true, Position: 7},
}

func raw(t testing.TB, body string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("bad test body %s: %v", body, err)
	}
	return m
}

func TestMarshalJSON(t *testing.T) {
	b, err := json.Marshal(configreq.Request{schema[0], schema[2], schema[5], schema[6], schema[7]})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"host":{"type":"text","human_name":"Host","description":"Where to","default_value":"","is_optional":false,"attributes":[],"additional_info":{},"position":100},` +
		`"proto":{"type":"dropdown","human_name":"Protocol","description":"","default_value":"TCP","is_optional":true,"attributes":[],"additional_info":{"values":{"UDP":"udp","TCP":"tcp"}},"position":100},` +
		`"tls":{"type":"boolean","human_name":"","description":"","default_value":false,"is_optional":true,"attributes":[],"additional_info":{},"position":100},` +
		`"secret":{"type":"text","human_name":"","description":"","default_value":"","is_optional":true,"attributes":["is_password"],"additional_info":{},"position":100},` +
		`"source":{"type":"text","human_name":"","description":"","default_value":null,"is_optional":true,"attributes":[],"additional_info":{},"position":7}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// defaults is what every optional field of schema holds when left out.
func defaults(set map[string]any) map[string]any {
	out := map[string]any{"proto": "TCP", "timeout": 1000, "offset": -1, "tls": false, "secret": "", "source": nil}
	maps.Copy(out, set)
	return out
}

func TestCoerce(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]any
	}{
		{"minimal", `{"host":"a","port":1}`, defaults(map[string]any{"host": "a", "port": 1})},
		{"strings as numbers and booleans", `{"host":"a","port":"65535","timeout":"0","tls":"TRUE"}`,
			defaults(map[string]any{"host": "a", "port": 65535, "timeout": 0, "tls": true})},
		{"numbers and booleans as text", `{"host":42,"port":80,"source":true}`, defaults(map[string]any{"host": "42", "port": 80, "source": "true"})},
		{"null and empty mean absent", `{"host":"a","port":2,"proto":"","timeout":null,"tls":"","source":null}`,
			defaults(map[string]any{"host": "a", "port": 2})},
		{"dropdown in another case", `{"host":"a","port":3,"proto":"udp"}`, defaults(map[string]any{"host": "a", "port": 3, "proto": "UDP"})},
		{"everything", `{"host":"h","port":9,"proto":"UDP","timeout":5,"offset":-7,"tls":false,"secret":"s3","source":""}`,
			map[string]any{"host": "h", "port": 9, "proto": "UDP", "timeout": 5, "offset": -7, "tls": false, "secret": "s3", "source": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := schema.Coerce(raw(t, c.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestCoerceRefuses(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]string // field → part of its message
	}{
		{"required missing", `{}`, map[string]string{"host": `Mandatory configuration field "host" is missing`, "port": `Mandatory configuration field "port"`}},
		{"required empty", `{"host":"","port":""}`, map[string]string{"host": "is missing", "port": "is missing"}},
		{"unknown key", `{"host":"a","port":1,"hots":"b"}`, map[string]string{"hots": `Unknown configuration field description for field "hots"`}},
		{"port range", `{"host":"a","port":0}`, map[string]string{"port": "must be a port number between 1 and 65535, got 0"}},
		{"port too high", `{"host":"a","port":"65536"}`, map[string]string{"port": "got 65536"}},
		{"fraction", `{"host":"a","port":1.5}`, map[string]string{"port": `must be a whole number between -2147483648 and 2147483647, got "1.5"`}},
		{"beyond a Java int", `{"host":"a","port":1,"timeout":2147483648}`, map[string]string{"timeout": "must be a whole number"}},
		{"not a number", `{"host":"a","port":"x"}`, map[string]string{"port": `got "x"`}},
		{"boolean for number", `{"host":"a","port":true}`, map[string]string{"port": "must be a whole number, got true"}},
		{"negative", `{"host":"a","port":1,"timeout":-1}`, map[string]string{"timeout": "must not be negative, got -1"}},
		{"not negative", `{"host":"a","port":1,"offset":0}`, map[string]string{"offset": "must be negative, got 0"}},
		{"boolean", `{"host":"a","port":1,"tls":"yes"}`, map[string]string{"tls": `must be true or false, got "yes"`}},
		{"number for boolean", `{"host":"a","port":1,"tls":1}`, map[string]string{"tls": `must be true or false, got "1"`}},
		{"dropdown", `{"host":"a","port":1,"proto":"SCTP"}`, map[string]string{"proto": `must be one of UDP, TCP, got "SCTP"`}},
		{"object", `{"host":{"a":1},"port":[1]}`, map[string]string{"host": "got a JSON object", "port": "got a JSON array"}},
		{"mask without a stored password", `{"host":"a","port":1,"secret":"<password set>"}`, map[string]string{"secret": "no password is stored"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := schema.Coerce(raw(t, c.in), nil)
			var verr *api.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("got %v, %v; want a validation error", got, err)
			}
			if !slices.Equal(slices.Sorted(maps.Keys(verr.Fields)), slices.Sorted(maps.Keys(c.want))) {
				t.Fatalf("failing fields %v, want those of %v", verr.Fields, c.want)
			}
			for f, part := range c.want {
				if len(verr.Fields[f]) != 1 || !strings.Contains(verr.Fields[f][0], part) {
					t.Errorf("%s: %q, want one message containing %q", f, verr.Fields[f], part)
				}
			}
		})
	}
}

func TestCoerceKeepsMaskedPassword(t *testing.T) {
	stored := map[string]any{"host": "a", "port": 1, "secret": "hunter2"}
	got, err := schema.Coerce(raw(t, `{"host":"a","port":1,"secret":"<password set>"}`), stored)
	if err != nil || got["secret"] != "hunter2" {
		t.Errorf("got %v, %v; want the stored secret kept", got, err)
	}
	got, err = schema.Coerce(raw(t, `{"host":"a","port":1,"secret":"new"}`), stored)
	if err != nil || got["secret"] != "new" {
		t.Errorf("got %v, %v; want the new secret", got, err)
	}
	got, err = schema.Coerce(raw(t, `{"host":"a","port":1}`), stored)
	if err != nil || got["secret"] != "" {
		t.Errorf("got %v, %v; want a left-out secret cleared to its default", got, err)
	}
}

func TestMask(t *testing.T) {
	config := map[string]any{"host": "a", "secret": "hunter2"}
	masked := schema.Mask(config)
	if masked["secret"] != configreq.Mask || masked["host"] != "a" {
		t.Errorf("masked %v", masked)
	}
	if config["secret"] != "hunter2" {
		t.Error("Mask changed its argument")
	}
	if empty := schema.Mask(map[string]any{"secret": ""}); empty["secret"] != "" {
		t.Errorf("an empty password is shown as %v; Graylog shows it empty", empty["secret"])
	}
}

func TestTypedRoundTrip(t *testing.T) {
	in, err := schema.Coerce(raw(t, `{"host":"a","port":"443","timeout":7}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(back, in) {
		t.Fatal("sanity: JSON should have turned ints into float64")
	}
	if got := schema.Typed(back); !reflect.DeepEqual(got, in) {
		t.Errorf("got  %#v\nwant %#v", got, in)
	}
	n := map[string]any{"port": json.Number("80"), "other": 1.5}
	if got := schema.Typed(n); got["port"] != 80 || got["other"] != 1.5 {
		t.Errorf("Typed(%v) = %v", n, got)
	}
}

func FuzzCoerce(f *testing.F) {
	for _, s := range []string{
		`{"host":"a","port":1}`, `{"host":1,"port":"80","tls":"true","proto":"udp"}`, `{"port":1e3}`,
		`{"port":-0}`, `{"secret":"<password set>"}`, `{"x":null}`, `{"timeout":"+5","offset":"-0"}`, `{"host":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	stored := map[string]any{"secret": "kept"}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in map[string]json.RawMessage
		if json.Unmarshal(body, &in) != nil {
			return
		}
		got, err := schema.Coerce(in, stored)
		if err != nil {
			var verr *api.ValidationError
			if !errors.As(err, &verr) || len(verr.Fields) == 0 {
				t.Fatalf("error %v is not a validation error naming fields", err)
			}
			return
		}
		// A coerced configuration holds every declared field in its type,
		// and coercing it again changes nothing.
		for _, fl := range schema {
			v, ok := got[fl.Name]
			if !ok {
				t.Fatalf("%s missing from %v", fl.Name, got)
			}
			if !typed(fl, v) {
				t.Fatalf("%s = %#v is not a %s", fl.Name, v, fl.Kind)
			}
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var again map[string]json.RawMessage
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatal(err)
		}
		got2, err := schema.Coerce(again, stored)
		if err != nil || !reflect.DeepEqual(got, got2) {
			t.Fatalf("not idempotent: %v then %v, %v", got, got2, err)
		}
	})
}

func typed(f configreq.Field, v any) bool {
	if v == nil {
		return f.Default == nil
	}
	switch f.Kind {
	case configreq.Text, configreq.Dropdown:
		_, ok := v.(string)
		return ok
	case configreq.Number:
		_, ok := v.(int)
		return ok
	case configreq.Boolean:
		_, ok := v.(bool)
		return ok
	}
	return false
}

func BenchmarkCoerce(b *testing.B) {
	in := raw(b, `{"host":"graylog.example.org","port":"12201","proto":"UDP","timeout":5,"tls":true,"secret":"<password set>"}`)
	stored := map[string]any{"secret": "s"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.Coerce(in, stored); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMask(b *testing.B) {
	config := map[string]any{"host": "h", "port": 1, "proto": "TCP", "timeout": 5, "tls": true, "secret": "s", "source": nil}
	b.ReportAllocs()
	for b.Loop() {
		if schema.Mask(config)["secret"] != configreq.Mask {
			b.Fatal("not masked")
		}
	}
}
