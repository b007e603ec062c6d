package ldap

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/backend/access/authservices"
)

// TestRequest is Graylog 3.x's LdapTestConfigRequest, the body of
// POST /system/ldap/test.
type TestRequest struct {
	SystemUsername string `json:"system_username"`
	// SystemPassword nil uses the stored password of the settings.
	SystemPassword       *string `json:"system_password"`
	LdapURI              string  `json:"ldap_uri"`
	UseStartTLS          bool    `json:"use_start_tls"`
	TrustAllCertificates bool    `json:"trust_all_certificates"`
	ActiveDirectory      bool    `json:"active_directory"`
	SearchBase           string  `json:"search_base"`
	SearchPattern        string  `json:"search_pattern"`
	Principal            string  `json:"principal"`
	Password             string  `json:"password"`
	TestConnectOnly      bool    `json:"test_connect_only"`
	GroupSearchBase      *string `json:"group_search_base"`
	GroupIDAttribute     *string `json:"group_id_attribute"`
	GroupSearchPattern   *string `json:"group_search_pattern"`
}

// String hides the passwords.
func (r TestRequest) String() string {
	type plain TestRequest
	c := plain(r)
	c.SystemPassword, c.Password = hidden(c.SystemPassword), hiddenString(c.Password)
	return fmt.Sprintf("%+v", c)
}

// GoString is String, for %#v.
func (r TestRequest) GoString() string { return r.String() }

// TestResponse is Graylog 3.x's LdapTestConfigResponse.
type TestResponse struct {
	Connected           bool              `json:"connected"`
	SystemAuthenticated bool              `json:"system_authenticated"`
	LoginAuthenticated  bool              `json:"login_authenticated"`
	Entry               map[string]string `json:"entry"`
	Groups              []string          `json:"groups"`
	Exception           *string           `json:"exception"`
}

// Test tries a 3.x configuration as Graylog 3.x's LDAP test did: connect
// and bind as the system user, then, unless only the connection is tested,
// find the principal, log it in and list its groups. A nil system password
// uses the standing backend's stored one.
func (s *Service) Test(ctx context.Context, req TestRequest) (TestResponse, error) {
	out := TestResponse{Entry: map[string]string{}, Groups: []string{}}
	cfg, err := ToConfig(Document{
		SystemUsername: req.SystemUsername, LdapURI: req.LdapURI, UseStartTLS: req.UseStartTLS,
		TrustAllCertificates: req.TrustAllCertificates, ActiveDirectory: req.ActiveDirectory,
		SearchBase: req.SearchBase, PrincipalSearchPattern: req.SearchPattern,
	})
	if err != nil {
		return out.failed(err.Error()), nil
	}
	_, b, err := s.standing(ctx)
	if err != nil {
		return TestResponse{}, err
	}
	// The 3.x test request has no display name attribute; the standing
	// backend's, or the usual one, is as good for a test.
	cfg.UserFullNameAttribute = "cn"
	if req.ActiveDirectory {
		cfg.UserFullNameAttribute = ldap.ADUserFullNameAttribute
	}
	if b != nil && b.Config.UserFullNameAttribute != "" {
		cfg.UserFullNameAttribute = b.Config.UserFullNameAttribute
	}
	plain, known, err := s.testPassword(ctx, req, b)
	if err != nil {
		return TestResponse{}, err
	}
	cfg.SystemUserPassword = plain
	if !known {
		return s.testStored(ctx, req, cfg, b.ID, out)
	}
	dir := ldap.New(cfg)
	conn := dir.TestConnection(ctx)
	if !conn.Success {
		return out.failed(resultMessage(conn)), nil
	}
	out.Connected, out.SystemAuthenticated = true, req.SystemUsername != ""
	if req.TestConnectOnly || req.Principal == "" {
		return out, nil
	}
	res, entry := dir.TestLogin(ctx, req.Principal, req.Password)
	out.LoginAuthenticated = res.Success
	if entry == nil {
		if exists, _ := res.Details["user_exists"].(bool); !exists && len(res.Details) == 0 {
			return out.failed(resultMessage(res)), nil
		}
		return out, nil
	}
	out.Entry = flatten(entry)
	if base, attr := deref(req.GroupSearchBase), deref(req.GroupIDAttribute); base != "" && attr != "" {
		groups, err := searchGroups(ctx, cfg, base, groupFilter(deref(req.GroupSearchPattern), entry.DN, entry.Username), attr)
		if err != nil {
			return out.failed(err.Error()), nil
		}
		out.Groups = groups
	}
	return out, nil
}

// testPassword returns the system password of a test and whether it is
// known in plain: given in the request, or stored in the standing backend
// when that is active (the only one whose password is opened outside a
// backend test).
func (s *Service) testPassword(ctx context.Context, req TestRequest, b *authservices.Backend) (string, bool, error) {
	if req.SystemPassword != nil {
		return *req.SystemPassword, true, nil
	}
	if b == nil || !b.PasswordSet {
		return "", true, nil
	}
	active, err := s.backends.Active(ctx)
	if err != nil {
		return "", false, err
	}
	if active != nil && active.BackendID == b.ID {
		return active.Config.SystemUserPassword, true, nil
	}
	return "", false, nil
}

// testStored tests with an inactive standing backend's stored password
// through the backend tests, which open it; the entry is then the login
// test's user details and no groups are listed.
func (s *Service) testStored(ctx context.Context, req TestRequest, cfg ldap.Config, backendID string, out TestResponse) (TestResponse, error) {
	treq := authservices.TestRequest{BackendID: backendID, Backend: authservices.BackendInput{
		Title: "test", Config: cfg, Password: authservices.KeepValue(),
	}}
	conn, err := s.backends.TestConnection(ctx, treq)
	if err != nil {
		return TestResponse{}, err
	}
	if !conn.Success {
		return out.failed(resultMessage(conn)), nil
	}
	out.Connected, out.SystemAuthenticated = true, req.SystemUsername != ""
	if req.TestConnectOnly || req.Principal == "" {
		return out, nil
	}
	treq.UserLogin = &authservices.UserLogin{Username: req.Principal, Password: req.Password}
	res, err := s.backends.TestLogin(ctx, treq)
	if err != nil {
		return out.failed(err.Error()), nil
	}
	out.LoginAuthenticated = res.Success
	if user, ok := res.Details["user_details"].(map[string]string); ok {
		for k, v := range user {
			out.Entry[k] = v
		}
	}
	return out, nil
}

func (r TestResponse) failed(msg string) TestResponse {
	r.Exception = &msg
	return r
}

func resultMessage(r ldap.Result) string {
	if len(r.Errors) == 0 {
		return r.Message
	}
	return r.Message + ": " + strings.Join(r.Errors, "; ")
}

// flatten is the entry as Graylog 3.x's LdapEntry showed it: one string per
// attribute, several values joined, and the DN.
func flatten(e *ldap.Entry) map[string]string {
	out := make(map[string]string, len(e.Attributes)+1)
	for k, vs := range e.Attributes {
		sorted := append([]string(nil), vs...)
		sort.Strings(sorted)
		out[k] = strings.Join(sorted, ", ")
	}
	out["dn"] = e.DN
	return out
}
