package apibrowser

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// benchTable returns a route table of Graylog 4.0's size (460 routes).
func benchTable() []api.Route {
	var routes []api.Route
	for i := range 46 {
		base := fmt.Sprintf("/system/resource%d", i)
		routes = append(routes,
			api.Route{Method: "GET", Path: base, Summary: "List", Permission: "things:read", Query: api.PageQuery},
			api.Route{Method: "POST", Path: base, Summary: "Create", Permission: "things:create", Body: `{"title":"t"}`},
			api.Route{Method: "GET", Path: base + "/{id}", Summary: "Get", Permission: "things:read:{id}"},
			api.Route{Method: "PUT", Path: base + "/{id}", Summary: "Update", Permission: "things:edit:{id}", Body: `{"title":"t"}`},
			api.Route{Method: "DELETE", Path: base + "/{thingId}", Summary: "Delete", Permission: "things:delete:{thingId}"},
			api.Route{Method: "GET", Path: base + "/{id}/children", Summary: "Children"},
			api.Route{Method: "GET", Path: base + "/{id}/children/{childId}", Summary: "Child"},
			api.Route{Method: "PUT", Path: base + "/{id}/children/{childId}", Summary: "Child", Body: `[]`},
			api.Route{Method: "GET", Path: base + "/old", Summary: "Old", Successor: base},
			api.Route{Method: "GET", Path: base + "/{name:[a-z]+}/x", Summary: "Pattern", Public: true},
		)
	}
	return routes
}

// BenchmarkBuild measures what the first request after start pays: the
// model and both encoded documents of a full-size table.
func BenchmarkBuild(b *testing.B) {
	routes := benchTable()
	b.ReportAllocs()
	for b.Loop() {
		m := newModel(routes)
		if _, err := json.Marshal(openAPI(m, "4.0.0")); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(listing(m, "4.0.0")); err != nil {
			b.Fatal(err)
		}
	}
}
