package authservices

import (
	"errors"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves the authentication services API.
type Handler struct {
	svc *Service
}

// NewHandler returns the handler of svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

const (
	servicesPath   = "/system/authentication/services"
	backendsPath   = servicesPath + "/backends"
	backendPath    = backendsPath + "/{backendId}"
	headerAuthPath = "/system/authentication/http-header-auth-config"
)

// Example bodies for the API browser.
const (
	backendExample = `{"title":"Corporate LDAP","description":"","default_roles":["<role id>"],"config":{"type":"ldap",` +
		`"servers":[{"host":"ldap.example.org","port":636}],"transport_security":"tls","verify_certificates":true,` +
		`"system_user_dn":"cn=admin,dc=example,dc=org","system_user_password":{"set_value":"secret"},` +
		`"user_search_base":"ou=people,dc=example,dc=org","user_search_pattern":"(&(objectClass=inetOrgPerson)(uid={0}))",` +
		`"user_unique_id_attribute":"entryUUID","user_name_attribute":"uid","user_full_name_attribute":"cn"}}`
	activeExample     = `{"active_backend":"<backend id>"}`
	testExample       = `{"backend_id":"<backend id>","backend_configuration":` + backendExample + `,"user_login":{"username":"alice","password":"secret"}}`
	headerAuthExample = `{"enabled":true,"username_header":"Remote-User"}`
)

// Routes returns the routes of the API. Literal paths come before the
// templates beside them.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: http.MethodGet, Path: servicesPath + "/configuration", Summary: "Get the global authentication services configuration",
			Permission: "authserviceglobalconfig:read", Handler: h.getConfiguration},
		{Method: http.MethodPost, Path: servicesPath + "/configuration", Summary: "Update the global authentication services configuration (activates a backend)",
			Permission: "authserviceglobalconfig:edit", Body: activeExample, Handler: h.setConfiguration},
		{Method: http.MethodGet, Path: servicesPath + "/active-backend", Summary: "Get the active authentication service backend",
			Permission: "authserviceglobalconfig:read", Handler: h.getActiveBackend},
		// Not in Graylog 4.0, which activates through /configuration only.
		{Method: http.MethodPost, Path: servicesPath + "/active-backend", Summary: "Activate a backend, or none (loggate alias of POST /configuration)",
			Permission: "authserviceglobalconfig:edit", Body: activeExample, Handler: h.setConfiguration},
		{Method: http.MethodPost, Path: servicesPath + "/test/backend/connection", Summary: "Test the connection to an authentication service backend",
			Permission: "authservicetestbackend:execute", Body: testExample, Handler: h.testConnection},
		{Method: http.MethodPost, Path: servicesPath + "/test/backend/login", Summary: "Test a user login with an authentication service backend",
			Permission: "authservicetestbackend:execute", Body: testExample, Handler: h.testLogin},
		{Method: http.MethodGet, Path: backendsPath, Summary: "List the authentication service backends",
			Permission: "authservicebackend:read:{backendId}", Query: api.PageQuery, Handler: h.list},
		{Method: http.MethodPost, Path: backendsPath, Summary: "Create an authentication service backend",
			Permission: "authservicebackend:create", Body: backendExample, Handler: h.create},
		{Method: http.MethodGet, Path: backendPath, Summary: "Get an authentication service backend",
			Permission: "authservicebackend:read:{backendId}", Handler: api.JSON(h.get)},
		{Method: http.MethodPut, Path: backendPath, Summary: "Update an authentication service backend",
			Permission: "authservicebackend:edit:{backendId}", Body: backendExample, Handler: h.update},
		{Method: http.MethodDelete, Path: backendPath, Summary: "Delete an authentication service backend",
			Permission: "authservicebackend:delete:{backendId}", Handler: h.delete},
		// users:read is checked by the handler: a route has one static
		// permission.
		{Method: http.MethodGet, Path: backendPath + "/users", Summary: "List the users of an authentication service backend (also needs users:read)",
			Permission: "authserviceglobalconfig:read", Query: api.PageQuery, Handler: h.users},
		{Method: http.MethodGet, Path: headerAuthPath, Summary: "Get the trusted header authentication configuration",
			Permission: "authhttpheaderconfig:read", Handler: api.JSON(h.getHeaderAuth)},
		{Method: http.MethodPut, Path: headerAuthPath, Summary: "Update the trusted header authentication configuration",
			Permission: "authhttpheaderconfig:edit", Body: headerAuthExample, Handler: api.JSON(h.setHeaderAuth)},
	}
}

// failure gives a validation failure Graylog's ValidationFailureException
// body (a ValidationResult, not the ValidationApiError other resources
// answer with); any other error stays as it is.
func failure(err error) error {
	var v *api.ValidationError
	if !errors.As(err, &v) {
		return err
	}
	return &api.Error{Code: api.Invalid, Message: v.Error(), Body: newFailureBody(v), Err: err}
}

func (h *Handler) getHeaderAuth(r *http.Request) (any, error) {
	c, err := h.svc.HeaderAuthConfig(r.Context())
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (h *Handler) setHeaderAuth(r *http.Request) (any, error) {
	var c HeaderAuthConfig
	if err := api.Decode(r, &c, true); err != nil {
		return nil, err
	}
	saved, err := h.svc.SetHeaderAuth(r.Context(), c)
	if err != nil {
		return nil, err
	}
	return saved, nil
}

// requireRead is Graylog's instance check on a backend.
func requireRead(r *http.Request, id string) error {
	return auth.Require(r.Context(), "authservicebackend:read:"+id)
}
