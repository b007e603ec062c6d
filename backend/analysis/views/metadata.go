package views

import (
	"encoding/json"
	"regexp"
	"slices"

	"github.com/tidwall/gjson"
)

// parameterUse is how a query string uses a search parameter: $name$, as
// Graylog's QueryStringParser finds them.
var parameterUse = regexp.MustCompile(`\$([a-zA-Z_]\w*)\$`)

// queryMetadata is Graylog's QueryMetadata.
type queryMetadata struct {
	UsedParametersNames []string `json:"used_parameters_names"`
}

// searchMetadata is Graylog's SearchMetadata: the parameters each query
// uses and those the search declares, by name.
type searchMetadata struct {
	QueryMetadata      map[string]queryMetadata   `json:"query_metadata"`
	DeclaredParameters map[string]json.RawMessage `json:"declared_parameters"`
}

// metadataOf computes a search's metadata: the parameter names used in
// each query's query string and in its search types' own query strings.
func metadataOf(s ViewSearch) searchMetadata {
	md := searchMetadata{QueryMetadata: map[string]queryMetadata{}, DeclaredParameters: map[string]json.RawMessage{}}
	for _, q := range s.Queries {
		r := gjson.ParseBytes(q)
		used := []string{}
		add := func(qs string) {
			for _, m := range parameterUse.FindAllStringSubmatch(qs, -1) {
				if !slices.Contains(used, m[1]) {
					used = append(used, m[1])
				}
			}
		}
		add(r.Get("query.query_string").Str)
		for _, st := range r.Get("search_types").Array() {
			add(st.Get("query.query_string").Str)
		}
		slices.Sort(used)
		md.QueryMetadata[r.Get("id").Str] = queryMetadata{UsedParametersNames: used}
	}
	for _, p := range s.Parameters {
		if name := gjson.GetBytes(p, "name").Str; name != "" {
			md.DeclaredParameters[name] = p
		}
	}
	return md
}
