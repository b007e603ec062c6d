package compat

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// The authentication realms of Graylog 3.3, by the names its
// AuthenticationConfig uses.
const (
	RealmSession    = "mongodb-session"
	RealmToken      = "access-token"
	RealmLegacyLDAP = "legacy-ldap"
	RealmPassword   = "mongodb-password"
	RealmRootUser   = "root-user"
)

// DefaultRealmOrder is Graylog 3.3's realm order before anyone changed it.
func DefaultRealmOrder() []string {
	return []string{RealmSession, RealmToken, RealmLegacyLDAP, RealmPassword, RealmRootUser}
}

// RealmConfig is Graylog 3.3's AuthenticationConfig: the order of the
// authentication realms and those that are switched off.
type RealmConfig struct {
	RealmOrder     []string `json:"realm_order"`
	DisabledRealms []string `json:"disabled_realms"`
}

// AuthenticationConfig keeps the 3.3 realm configuration; the node answers
// from its authentication services. Errors are api errors.
type AuthenticationConfig interface {
	// RealmConfig returns the stored realm order, completed with the
	// realms it lacks, and the realms that are off in fact: "legacy-ldap"
	// is off exactly when no directory backend is active, the others are
	// never off.
	RealmConfig(ctx context.Context) (RealmConfig, error)
	// SaveRealmConfig stores a validated configuration, deactivating the
	// active directory backend when it disables "legacy-ldap", and returns
	// what RealmConfig then returns.
	SaveRealmConfig(ctx context.Context, c RealmConfig) (RealmConfig, error)
}

// Permissions of 3.3's AuthenticationResource (RestPermissions@3.3),
// removed in 4.0.
const (
	permClusterConfigRead  = "clusterconfigentry:read"
	permAuthenticationEdit = "authentication:edit"
)

// Warnings (RFC 7234 warn-code 299) of a PUT whose realm settings loggate
// keeps but does not apply.
const (
	realmOrderWarning = `299 - "The realm order is kept but not applied: loggate checks a password against the local account first and against the directory only for users without one"`
	realmLDAPWarning  = `299 - "legacy-ldap stays off until a directory backend is activated with POST /system/authentication/services/configuration"`
)

// The routes of the 3.x authentication configuration.
const (
	authConfigGet = "GET /system/authentication/config"
	authConfigPut = "PUT /system/authentication/config"
)

// AuthenticationConfigAPI is the 4.0 removal of the 3.x authentication
// configuration (/system/authentication/config), whose realms gave way to
// the authentication services. The change answers it itself from c with
// 3.3's permissions and shape; the path does not exist in 4.0, so it is
// recognised on the default release too. c may be nil for describing the
// change only.
func AuthenticationConfigAPI(c AuthenticationConfig) *Change {
	return &Change{
		Release: MustRelease("4.0"),
		Removed: true,
		Description: "The 3.x authentication configuration (`GET|PUT /system/authentication/config`, the realm order and the disabled realms) is replaced by the authentication services; " +
			"it is still answered, with `legacy-ldap` on exactly when a directory backend is active: disabling it deactivates that backend, enabling it does not activate one (`Warning: 299`; use `POST /system/authentication/services/configuration`). " +
			"The realm order is stored and returned but not applied, and the other realms cannot be disabled (400).",
		Routes: []Route{R(authConfigGet), R(authConfigPut)},
		// The path is gone from 4.0: any request for it is old.
		Recognise: func(context.Context, *http.Request, Vars) bool { return true },
		Request: func(ctx context.Context, x *Exchange) error {
			if c == nil {
				return api.Errorf(api.NotFound, "HTTP 404 Not Found")
			}
			return answerAuthenticationConfig(ctx, c, x)
		},
	}
}

// answerAuthenticationConfig serves one request; as in the router, the
// CSRF header is checked before permissions.
func answerAuthenticationConfig(ctx context.Context, c AuthenticationConfig, x *Exchange) error {
	if err := CheckCSRF(x.Req); err != nil {
		return err
	}
	if x.Route.Method+" "+x.Route.Template.String() == authConfigGet {
		if err := requireAny(ctx, permClusterConfigRead); err != nil {
			return err
		}
		cfg, err := c.RealmConfig(ctx)
		if err != nil {
			return err
		}
		return realmAnswer(cfg, nil)
	}
	if err := requireAny(ctx, permClusterConfigRead); err != nil {
		return err
	}
	if err := requireAny(ctx, permAuthenticationEdit); err != nil {
		return err
	}
	body, err := x.Body()
	if err != nil {
		return err
	}
	in, err := ParseRealmConfig(body)
	if err != nil {
		return err
	}
	out, err := c.SaveRealmConfig(ctx, in)
	if err != nil {
		return err
	}
	var warnings []string
	if !slices.Equal(out.RealmOrder, DefaultRealmOrder()) {
		warnings = append(warnings, realmOrderWarning)
	}
	if !slices.Contains(in.DisabledRealms, RealmLegacyLDAP) && slices.Contains(out.DisabledRealms, RealmLegacyLDAP) {
		warnings = append(warnings, realmLDAPWarning)
	}
	return realmAnswer(out, warnings)
}

// realmAnswer is the 200 answer with cfg, which 3.3 gave to GET and PUT,
// and the warnings about what is not applied.
func realmAnswer(cfg RealmConfig, warnings []string) error {
	b, err := api.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("authentication config: %w", err)
	}
	a := JSON(http.StatusOK, b)
	for _, w := range warnings {
		a.Header.Add("Warning", w)
	}
	return a
}

// ParseRealmConfig reads a PUT body: both lists present, every realm one
// Graylog 3.3 has, none twice, and only "legacy-ldap" disabled, since
// loggate cannot switch the other realms off and must not pretend to.
// Unknown properties are ignored, as by Graylog's object mapper.
func ParseRealmConfig(body []byte) (RealmConfig, error) {
	var c RealmConfig
	if err := api.DecodeBytes(body, &c, false); err != nil {
		return RealmConfig{}, err
	}
	if c.RealmOrder == nil || c.DisabledRealms == nil {
		return RealmConfig{}, api.Errorf(api.Invalid, "realm_order and disabled_realms are required")
	}
	known := DefaultRealmOrder()
	for _, list := range []struct {
		field  string
		realms []string
	}{{"realm_order", c.RealmOrder}, {"disabled_realms", c.DisabledRealms}} {
		field, realms := list.field, list.realms
		for i, r := range realms {
			if !slices.Contains(known, r) {
				return RealmConfig{}, api.Errorf(api.Invalid, "Unknown realm %q in %s; known realms are %s", r, field, strings.Join(known, ", "))
			}
			if slices.Contains(realms[:i], r) {
				return RealmConfig{}, api.Errorf(api.Invalid, "Realm %q is listed twice in %s", r, field)
			}
		}
	}
	for _, r := range c.DisabledRealms {
		if r != RealmLegacyLDAP {
			return RealmConfig{}, api.Errorf(api.Invalid, "Realm %q cannot be disabled: loggate always offers it", r)
		}
	}
	return c, nil
}
