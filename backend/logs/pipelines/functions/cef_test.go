package functions_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// TestParseCEF evaluates parse_cef as Graylog 4.0's CEF plugin tests it:
// header fields under cef_version, device_vendor, …, severity; extension
// keys short or full; invalid or empty input is null.
func TestParseCEF(t *testing.T) {
	lib := library()
	const ev = `"CEF:0|vendor|product|1.0|id|name|low|dvc=example.com msg=Foobar"`
	header := map[string]any{
		"cef_version": int64(0), "device_vendor": "vendor", "device_product": "product", "device_version": "1.0",
		"device_event_class_id": "id", "name": "name", "severity": "low",
	}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range header {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		expr string
		want any
	}{
		{`parse_cef(` + ev + `, false)`, with("dvc", "example.com", "msg", "Foobar")},
		{`parse_cef(` + ev + `, true)`, with("deviceAddress", "example.com", "message", "Foobar")},
		{`parse_cef(use_full_names: false, cef_string: "CEF:0|vendor|product|1.0|id|name|low|dvc=example.com")`, with("dvc", "example.com")},
		{`parse_cef("CEF:0|vendor|product|1.0|id|name|low|spt=80 cs2Label=Rule cs2=allow all", true)`, with("sourcePort", int64(80), "Rule", "allow all")},
		{`parse_cef("Sep 19 08:26:10 fw1 CEF:0|vendor|product|1.0|id|name|low|src=10.0.0.1", false)`, with("src", "10.0.0.1")},
		// the extension's keys replace the header's
		{`parse_cef("CEF:0|vendor|product|1.0|id|name|low|name=other", false)`, with("name", "other")},
		{`parse_cef("CEF:0|Foobar", false)`, nil},
		{`parse_cef("", false)`, nil},
		{`parse_cef(to_string($message.missing, ""), false)`, nil},
		{`parse_cef(` + ev + `, false).msg`, "Foobar"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := lang.ParseExpr(tc.expr, lib)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			m := &lang.Message{Message: &messages.Message{ID: "m1", Timestamp: testNow}}
			got, err := e.Eval(lang.NewContext(m, func() time.Time { return testNow }))
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if tc.want == nil {
				if got != nil && !reflect.ValueOf(got).IsNil() {
					t.Fatalf("got %#v, want null", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
	// Both parameters are required, as in Graylog 4.0.
	if _, err := lang.ParseExpr(`parse_cef("CEF:0|a|b|c|d|e|f|")`, lib); err == nil {
		t.Error("parse_cef without use_full_names parsed")
	}
}
