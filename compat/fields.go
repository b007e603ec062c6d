package compat

import (
	"context"
	"slices"
	"strings"

	"github.com/loggate/loggate/rewrite"
)

// fieldHistory is when each field of a resource's records appeared: field
// Field of Resource first answered in release Since. Clients of older
// releases do not get it — clients that refuse unknown properties
// (Jackson's default, FAIL_ON_UNKNOWN_PROPERTIES) would fail on it. Fields
// not listed are as old as the oldest release loggate speaks (1.0). A field
// old releases had under another name is converted by its own version
// change (OutputIDs) and is not listed here.
//
// Sources: the model classes at each release tag (UserSummary,
// SessionResponse, StreamResponse, AccessTokenSummary) and the upgrade
// notes, as summarised in reference/graylog-api-4.0.md §2, §3.3, §4.2, §6.1
// and §15.
var fieldHistory = []struct {
	Resource, Field, Since string
}{
	// Index sets came with 2.2, and every stream with one.
	{"streams", "index_set_id", "2.2"},
	{"streams", "remove_matches_from_default_stream", "2.2"},
	{"streams", "is_default", "2.2"},
	// 2.2 timed extractors' conditions and executions apart; 2.0 and 2.1
	// reported only total and converters (ExtractorMetrics).
	{"extractor metrics", "condition", "2.2"},
	{"extractor metrics", "execution", "2.2"},
	{"extractor metrics", "condition_hits", "2.2"},
	{"extractor metrics", "condition_misses", "2.2"},
	// 3.2 made the login body free JSON and answered the username.
	{"sessions", "username", "3.2"},
	// 3.3 encrypted tokens at rest and gave them ids.
	{"tokens", "id", "3.3"},
	// 4.0: entity sharing, account status and user ids in sessions;
	// service accounts are 4.0's too (backported in 4.0.16).
	{"users", "grn_permissions", "4.0"},
	{"users", "account_status", "4.0"},
	{"users", "service_account", "4.0"},
	{"sessions", "user_id", "4.0"},
	// loggate's own: the release a token is pinned to. Pinned tokens are
	// for old clients, which must not meet a field no Graylog had.
	{"tokens", "api_release", "4.0"},
}

// placement is where records of a resource sit in one route's answer: path
// addresses them as in rewrite ("" the answer itself, "users.#" each
// element of its users array).
type placement struct {
	route, path string
}

// resourcePlacements are the answers that carry each resource's records.
// Routes are as old clients call them (usernames where 4.0 has user ids).
var resourcePlacements = map[string][]placement{
	"users": {
		{"GET /users", "users.#"},
		{"GET /users/{username}", ""},
		{"GET /roles/{rolename}/members", "users.#"},
	},
	"sessions": {
		{"POST /system/sessions", ""},
	},
	"streams": {
		{"GET /streams", "streams.#"},
		{"GET /streams/enabled", "streams.#"},
		{"GET /streams/{streamId}", ""},
		{"PUT /streams/{streamId}", ""},
	},
	"extractor metrics": {
		{"GET /system/inputs/{inputId}/extractors", "extractors.#.metrics"},
		{"GET /system/inputs/{inputId}/extractors/{extractorId}", "metrics"},
		{"PUT /system/inputs/{inputId}/extractors/{extractorId}", "metrics"},
	},
	"tokens": {
		{"GET /users/{user}/tokens", "tokens.#"},
		{"POST /users/{user}/tokens/{name}", ""},
	},
}

// FieldAdditions returns, for every release in fieldHistory, the version
// change that hides the fields it added from older clients.
func FieldAdditions() []*Change {
	var releases []Release
	for _, f := range fieldHistory {
		if r := MustRelease(f.Since); !slices.Contains(releases, r) {
			releases = append(releases, r)
		}
	}
	out := make([]*Change, len(releases))
	for i, rel := range releases {
		out[i] = fieldAddition(rel)
	}
	return out
}

// fieldAddition is the change of the fields release rel added.
func fieldAddition(rel Release) *Change {
	// route → each (path, field) to drop from its answer
	drops := map[string][]rewrite.Member{}
	var routes []Route
	var described []string
	for _, f := range fieldHistory {
		if MustRelease(f.Since) != rel {
			continue
		}
		described = append(described, f.Resource+" `"+f.Field+"`")
		for _, p := range resourcePlacements[f.Resource] {
			if _, seen := drops[p.route]; !seen {
				routes = append(routes, R(p.route))
			}
			drops[p.route] = append(drops[p.route], rewrite.Member{Path: p.path, Field: f.Field})
		}
	}
	return &Change{
		Release:     rel,
		Description: "Fields added to answers: " + strings.Join(described, ", ") + "; older clients do not get them.",
		Routes:      routes,
		Response: func(_ context.Context, x *Exchange, body []byte) ([]byte, error) {
			return rewrite.DeleteFields(body, drops[x.Route.Method+" "+x.Route.Template.String()]...)
		},
	}
}
