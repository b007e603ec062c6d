package compat

// FieldHistory exposes the table of field additions to the tests, which
// check every row.
var FieldHistory = fieldHistory

// FieldPlacements returns the routes and paths of a resource's records.
func FieldPlacements(resource string) (routes, paths []string) {
	for _, p := range resourcePlacements[resource] {
		routes, paths = append(routes, p.route), append(paths, p.path)
	}
	return routes, paths
}
