package authservices

import (
	"context"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/router/api"
)

// testBody is the request of the backend tests, Graylog's
// AuthServiceBackendTestRequest.
type testBody struct {
	BackendID            *string      `json:"backend_id"`
	BackendConfiguration *backendBody `json:"backend_configuration"`
	UserLogin            *UserLogin   `json:"user_login"`
}

// UserLogin is the user a login test logs in.
type UserLogin struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// String hides the password.
func (u UserLogin) String() string { return "{" + u.Username + " <redacted>}" }

// GoString is String, for %#v.
func (u UserLogin) GoString() string { return u.String() }

// TestRequest is a decoded backend test request.
type TestRequest struct {
	// BackendID names the stored backend being edited, or is "". Its
	// stored system password is used when Backend keeps (or omits) it.
	BackendID string
	Backend   BackendInput
	UserLogin *UserLogin
}

// parseTest decodes a test request. A configuration is required; its type
// must be known even for a connection test, since Graylog cannot map one
// of another type.
func parseTest(body []byte) (TestRequest, error) {
	var b testBody
	if err := api.DecodeBytes(body, &b, true); err != nil {
		return TestRequest{}, err
	}
	return b.request()
}

func (b testBody) request() (TestRequest, error) {
	if b.BackendConfiguration == nil {
		return TestRequest{}, api.Errorf(api.Invalid, "backend_configuration is required")
	}
	req := TestRequest{Backend: b.BackendConfiguration.input(), UserLogin: b.UserLogin}
	if b.BackendID != nil {
		req.BackendID = *b.BackendID
	}
	switch t := req.Backend.Config.Type; t {
	case ldap.TypeLDAP, ldap.TypeActiveDirectory:
	default:
		return TestRequest{}, api.Errorf(api.Invalid, "Unknown authentication service type %q; use %q or %q", t, ldap.TypeLDAP, ldap.TypeActiveDirectory)
	}
	return req, nil
}

// UsesStoredPassword reports whether the test binds with the stored
// password of req.BackendID: the request names a backend and its
// configuration keeps the password or leaves it out, as the web interface
// does when an administrator tests an edited backend without retyping it.
func (req TestRequest) UsesStoredPassword() bool {
	a := req.Backend.Password.Action
	return req.BackendID != "" && (a == SecretKeep || a == SecretAbsent)
}

// testConfig is the configuration a test runs with, the password resolved.
func (s *Service) testConfig(ctx context.Context, req TestRequest) (ldap.Config, error) {
	cfg := req.Backend.Config
	cfg.SystemUserPassword = ""
	switch {
	case req.UsesStoredPassword():
		b, err := s.get(ctx, req.BackendID)
		if err != nil {
			return ldap.Config{}, err
		}
		if b.sealed != "" {
			if cfg.SystemUserPassword, err = s.sealer.Open(b.sealed); err != nil {
				return ldap.Config{}, err
			}
		}
	case req.Backend.Password.Action == SecretSet:
		cfg.SystemUserPassword = req.Backend.Password.value
	}
	return cfg, nil
}

// TestConnection connects and binds as the system user of a configuration
// that may be incomplete; it is not validated.
func (s *Service) TestConnection(ctx context.Context, req TestRequest) (ldap.Result, error) {
	cfg, err := s.testConfig(ctx, req)
	if err != nil {
		return ldap.Result{}, err
	}
	return ldap.New(cfg).TestConnection(ctx), nil
}

// TestLogin logs the request's user in with a configuration, which must be
// valid (an *api.ValidationError otherwise), as must the user login.
func (s *Service) TestLogin(ctx context.Context, req TestRequest) (ldap.Result, error) {
	var v api.ValidationError
	req.Backend.Config.ValidateInto(&v)
	if req.UserLogin == nil || blank(req.UserLogin.Username) {
		v.Add("user_login", "Username cannot be empty.")
	}
	if err := v.Err(); err != nil {
		return ldap.Result{}, err
	}
	cfg, err := s.testConfig(ctx, req)
	if err != nil {
		return ldap.Result{}, err
	}
	res, _ := ldap.New(cfg).TestLogin(ctx, req.UserLogin.Username, req.UserLogin.Password)
	return res, nil
}
