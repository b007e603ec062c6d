package views

import (
	"encoding/json"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func FuzzDecodeSearch(f *testing.F) {
	for _, s := range []string{
		searchExample,
		`{"queries":[]}`, `{"id":"x","queries":[{"id":"q"}]}`, `{"queries":[{"id":"q"},{"id":"q"}]}`,
		`{"queries":[{"id":"q","search_types":[{"id":"a"},{"type":"b"},7]}]}`, `{"queries":[{"id":"q","search_types":{}}]}`,
		`{"parameters":[{"name":"host"},{"name":7}],"queries":[{"id":"q","query":{"query_string":"$host$ $x$"}}]}`,
		`{"queries":[1,"q",null]}`, `[]`, `{`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := decodeSearch(body)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", body, err)
			}
			return
		}
		if !isObjectID(s.ID) || s.Queries == nil || s.Parameters == nil || s.Requires == nil {
			t.Fatalf("%s: accepted %+v", body, s)
		}
		md := metadataOf(s)
		if len(md.QueryMetadata) != len(s.Queries) {
			t.Fatalf("%s: metadata of %d queries for %d", body, len(md.QueryMetadata), len(s.Queries))
		}
		if _, err := json.Marshal(md); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzExecutionState(f *testing.F) {
	query := `{"id":"q1","query":{"type":"elasticsearch","query_string":""},"timerange":{"type":"relative","range":300},` +
		`"search_types":[{"id":"m","type":"messages","limit":150},{"id":"e","type":"events"},{"id":"c","type":"pivot"}]}`
	for _, s := range []string{
		executeExample, `{"parameter_bindings":{}}`, `{}`,
		`{"global_override":{"keep_search_types":["e"]},"queries":{"q1":{"timerange":null,"search_types":{"m":{"limit":"x","a.b":1}}}}}`,
		`{"global_override":{"search_types":{"m":[]}}}`, `{"global_override":{"query":7,"timerange":"x"}}`,
	} {
		f.Add([]byte(s), []byte(query))
	}
	f.Fuzz(func(t *testing.T, body, q []byte) {
		var state executionState
		if api.DecodeBytes(body, &state, false) != nil || !json.Valid(q) {
			return
		}
		out, err := state.GlobalOverride.apply(q)
		if err == nil {
			out, err = state.Queries["q1"].apply(out)
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("state %s on %s: invalid %s", body, q, out)
		}
		rest, _, err := splitEvents(out)
		if err == nil && !json.Valid(rest) {
			t.Fatalf("splitting the events of %s: invalid %s", out, rest)
		}
	})
}
