package events

import (
	"encoding/json"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func FuzzSearchParameters(f *testing.F) {
	for _, s := range []string{
		searchExample, `{}`, `{"page":0}`, `{"filter":{"alerts":"ONLY"}}`, `{"sort_direction":"up"}`,
		`{"timerange":null,"query":null,"filter":null}`, `{"per_page":-1}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req searchRequest
		if api.DecodeBytes(body, &req, false) != nil {
			return
		}
		p, err := req.parameters()
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", body, err)
			}
			return
		}
		if p.Page < 1 || p.PerPage < 1 || p.Filter.Alerts == nil || p.Filter.EventDefinitions == nil ||
			p.SortDirection != "asc" && p.SortDirection != "desc" {
			t.Fatalf("%s: parameters %+v", body, p)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
	})
}
