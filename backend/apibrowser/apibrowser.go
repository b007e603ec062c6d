// Package apibrowser serves the API browser and the machine-readable
// description of the API, both generated from the router's route table.
package apibrowser

import "github.com/loggate/loggate/backend/api"

// Handler serves /api-browser and the API description.
type Handler struct {
	routes func() []api.Route
}

// New returns the API browser. routes returns the complete route table; it is
// called per request because the table includes the browser's own routes.
func New(routes func() []api.Route) *Handler {
	return &Handler{routes: routes}
}

// Routes returns the browser's routes.
func (h *Handler) Routes() []api.Route { return nil }
