package views

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func FuzzDecodeView(f *testing.F) {
	for _, s := range []string{
		`{"type":"SEARCH","title":"T","search_id":"s"}`,
		`{"type":"DASHBOARD","title":"T","summary":"","description":"","search_id":"s","properties":["a","a"],"requires":{"p":{"name":"x"}},` +
			`"state":{"q":{"selected_fields":["source"],"static_message_list_id":null,"titles":{"tab":{"title":"x"}},` +
			`"widgets":[{"id":"w","type":"aggregation","filter":null,"config":{"x":[1]},"timerange":{"type":"relative","range":300},"query":null,"streams":["s"]}],` +
			`"widget_mapping":{"w":["t"]},"positions":{"w":{"col":1}},"formatting":null,"display_mode_settings":{},"extra":1}}}`,
		`{"type":"SEARCH","title":"T","search_id":"s","id":"x","owner":"o","created_at":"2020-01-01T00:00:00Z"}`,
		`{"type":"search","title":" ","search_id":""}`,
		`{"type":"SEARCH","title":"T","search_id":"s","state":{"q":{"widgets":[{"id":1},"x",{"type":""}]}}}`,
		`{"type":"SEARCH","title":"T","search_id":"s","state":{"q":{"Widgets":5,"widgets":null}}}`,
		`{"type":"SEARCH","title":"T","search_id":"s","properties":[null],"requires":{"a":[]}}`,
		`{"type":"SEARCH","title":"T","search_id":"s","unknown":true}`,
		`{"type":null}`, `[]`, `{`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := decodeView(body)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", body, err)
			}
			return
		}
		if v.Type != Search && v.Type != Dashboard || strings.TrimSpace(v.Title) == "" || strings.TrimSpace(v.SearchID) == "" {
			t.Fatalf("%s: accepted %+v", body, v)
		}
		if v.Properties == nil || v.Requires == nil || v.State == nil || v.ID != "" || v.Owner != nil || !v.CreatedAt.IsZero() {
			t.Fatalf("%s: accepted %+v", body, v)
		}
		seen := map[string]bool{}
		for _, p := range v.Properties {
			if seen[p] {
				t.Fatalf("%s: property %q twice", body, p)
			}
			seen[p] = true
		}
		for _, m := range []map[string]json.RawMessage{v.Requires, v.State} {
			for k, raw := range m {
				if !isObject(raw) {
					t.Fatalf("%s: %q is %s, not an object", body, k, raw)
				}
			}
		}
		// What is stored reads back as the same view: a client that sends
		// back what it got changes nothing.
		doc, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: encode %+v: %v", body, v, err)
		}
		again, err := decodeView(doc)
		if err != nil {
			t.Fatalf("%s: stored %s is refused: %v", body, doc, err)
		}
		doc2, err := json.Marshal(again)
		if err != nil || !bytes.Equal(doc, doc2) {
			t.Fatalf("%s: stored %s, round trip %s (%v)", body, doc, doc2, err)
		}
	})
}
