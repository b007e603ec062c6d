package search

import (
	"encoding/json"
	"testing"
)

// TestFilterQuery: a filter's streams narrow a search; what they cannot say
// (an "and" of streams, a query_string filter) is ANDed to its query.
func TestFilterQuery(t *testing.T) {
	for _, tc := range []struct {
		filter, query, want string
	}{
		{`null`, `a`, `a`},
		{`{"type":"stream","id":"s1"}`, `a`, `a`},
		{`{"type":"or","filters":[{"type":"stream","id":"s1"},{"type":"stream","id":"s2"}]}`, `a`, `a`},
		{`{"type":"and","filters":[{"type":"stream","id":"s1"}]}`, `a`, `a`},
		{`{"type":"and","filters":[{"type":"stream","id":"s1"},{"type":"stream","id":"s2"}]}`, `a`, `(a) AND (streams:s1 AND streams:s2)`},
		{`{"type":"and","filters":[{"type":"stream","id":"s1"},{"type":"stream","id":"s2"}]}`, ``, `(streams:s1 AND streams:s2)`},
		{`{"type":"or","filters":[{"type":"stream","id":"s1"},{"type":"query_string","query":"level:3"}]}`, `a`, `(a) AND (streams:s1 OR (level:3))`},
		{`{"type":"and","filters":[{"type":"or","filters":[{"type":"stream","id":"s1"},{"type":"stream","id":"s2"}]},{"type":"stream","id":"s3"}]}`, `*`,
			`(*) AND ((streams:s1 OR streams:s2) AND streams:s3)`},
		{`{"type":"query_string","query":" "}`, `a`, `a`},
	} {
		var f *viewFilter
		if err := json.Unmarshal([]byte(tc.filter), &f); err != nil {
			t.Fatal(err)
		}
		if got := narrowed(tc.query, f); got != tc.want {
			t.Errorf("%s with %q: %q, want %q", tc.filter, tc.query, got, tc.want)
		}
	}
}
