package compat

import (
	"context"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// LegacyLDAP serves Graylog 3.x's LDAP API in its own JSON; the node
// answers from the authentication backend that stands for the 3.x
// settings. Errors are api errors (a 400 for a bad body).
type LegacyLDAP interface {
	// Settings returns the LdapSettingsResponse.
	Settings(ctx context.Context) ([]byte, error)
	// SaveSettings stores an LdapSettingsRequest.
	SaveSettings(ctx context.Context, body []byte) error
	// DeleteSettings removes the settings.
	DeleteSettings(ctx context.Context) error
	// GroupMapping returns the group mapping, {"<ldap group>":"<role>"}.
	GroupMapping(ctx context.Context) ([]byte, error)
	// SaveGroupMapping stores a group mapping.
	SaveGroupMapping(ctx context.Context, body []byte) error
	// Groups returns the directory's groups, ["group", …].
	Groups(ctx context.Context) ([]byte, error)
	// Test runs an LdapTestConfigRequest and returns the
	// LdapTestConfigResponse.
	Test(ctx context.Context, body []byte) ([]byte, error)
}

// Permissions of the 3.x LDAP API (RestPermissions@3.3).
const (
	permLDAPEdit       = "ldap:edit"
	permLDAPGroupsRead = "ldapgroups:read"
	permLDAPGroupsEdit = "ldapgroups:edit"
)

// groupMappingWarning tells old clients that 4.0 keeps the group mapping
// but does not apply it (RFC 7234 warn-code 299, "miscellaneous persistent
// warning").
const groupMappingWarning = `299 - "LDAP group mapping is not applied in 4.0; it is kept for reference"`

// The routes of the 3.x LDAP API.
const (
	ldapGetSettings     = "GET /system/ldap/settings"
	ldapPutSettings     = "PUT /system/ldap/settings"
	ldapDeleteSettings  = "DELETE /system/ldap/settings"
	ldapGetGroupMapping = "GET /system/ldap/settings/groups"
	ldapPutGroupMapping = "PUT /system/ldap/settings/groups"
	ldapGetGroups       = "GET /system/ldap/groups"
	ldapTest            = "POST /system/ldap/test"
)

// LegacyLDAPAPI is the 4.0 removal of the 3.x LDAP API (/system/ldap), in
// favour of the authentication services. The removed endpoints are
// answered by the change itself from l, with 3.x's permissions and shapes;
// their paths do not exist in 4.0, so they are recognised on the default
// release too. l may be nil for describing the change only.
func LegacyLDAPAPI(l LegacyLDAP) *Change {
	return &Change{
		Release: MustRelease("4.0"),
		Removed: true,
		Description: "The 3.x LDAP API (`GET|PUT|DELETE /system/ldap/settings`, `GET|PUT /system/ldap/settings/groups`, `GET /system/ldap/groups`, `POST /system/ldap/test`) is replaced by the authentication services; " +
			"it is still answered from the LDAP backend that stands for the 3.x settings, which a PUT creates inactive (activate it with `POST /system/authentication/services/configuration`); the group mapping is kept but not applied (`Warning: 299`).",
		Routes: []Route{R(ldapGetSettings), R(ldapPutSettings), R(ldapDeleteSettings), R(ldapGetGroupMapping), R(ldapPutGroupMapping), R(ldapGetGroups), R(ldapTest)},
		// The paths are gone from 4.0: any request for them is old.
		Recognise: func(context.Context, *http.Request, Vars) bool { return true },
		Request: func(ctx context.Context, x *Exchange) error {
			if l == nil {
				return api.Errorf(api.NotFound, "HTTP 404 Not Found")
			}
			return answerLDAP(ctx, l, x)
		},
	}
}

// answerLDAP serves one 3.x LDAP request. As in the router, the CSRF
// header is checked before permissions.
func answerLDAP(ctx context.Context, l LegacyLDAP, x *Exchange) error {
	r, route := x.Req, x.Route.Method+" "+x.Route.Template.String()
	if err := CheckCSRF(r); err != nil {
		return err
	}
	var err error
	switch route {
	case ldapGetGroupMapping, ldapGetGroups:
		err = requireAny(ctx, permLDAPGroupsRead, permLDAPEdit)
	case ldapPutGroupMapping:
		err = requireAny(ctx, permLDAPGroupsEdit, permLDAPEdit)
	default:
		err = requireAny(ctx, permLDAPEdit)
	}
	if err != nil {
		return err
	}
	body, err := x.Body()
	if err != nil {
		return err
	}
	var out []byte
	warn := false
	switch route {
	case ldapGetSettings:
		out, err = l.Settings(ctx)
	case ldapPutSettings:
		warn = len(gjson.GetBytes(body, "group_mapping").Map()) > 0
		err = l.SaveSettings(ctx, body)
	case ldapDeleteSettings:
		err = l.DeleteSettings(ctx)
	case ldapGetGroupMapping:
		warn = true
		out, err = l.GroupMapping(ctx)
	case ldapPutGroupMapping:
		warn = true
		err = l.SaveGroupMapping(ctx, body)
	case ldapGetGroups:
		warn = true
		out, err = l.Groups(ctx)
	case ldapTest:
		out, err = l.Test(ctx, body)
	}
	if err != nil {
		return err
	}
	a := &Answer{Status: http.StatusNoContent, Header: http.Header{}}
	if out != nil {
		a = JSON(http.StatusOK, out)
	}
	if warn {
		a.Header.Set("Warning", groupMappingWarning)
		api.Logger(ctx).Warn("LDAP group mapping is not applied in 4.0; it is kept for reference",
			"route", route)
	}
	return a
}

// requireAny passes when the caller holds one of perms: 401 for anonymous
// callers, 403 otherwise, as Graylog's @RequiresPermissions(logical = OR).
func requireAny(ctx context.Context, perms ...string) error {
	if p := auth.FromContext(ctx); p != nil {
		for _, perm := range perms {
			if p.Permits(perm) {
				return nil
			}
		}
	}
	return auth.Require(ctx, perms[0])
}
