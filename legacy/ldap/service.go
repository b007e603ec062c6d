package ldap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Roles resolves role names and ids; the 3.x API speaks names, backends
// store ids.
type Roles interface {
	// RoleID returns the id of the role named name (case-insensitive);
	// an unknown role is an error wrapping store.ErrNotFound.
	RoleID(ctx context.Context, name string) (string, error)
	// RoleName returns the name of the role id; an unknown role is an
	// error wrapping store.ErrNotFound.
	RoleName(ctx context.Context, id string) (string, error)
}

// readerRole is the role Graylog 3.x falls back to for an unknown default
// group, and 4.0 gives external users without default roles.
const readerRole = "Reader"

// Service serves the 3.x LDAP settings from the backend that stands for
// them.
type Service struct {
	backends *authservices.Service
	roles    Roles
	st       store.Store
	log      *slog.Logger

	// mu serialises the writes, which read the record, write the backend
	// and then the record.
	mu sync.Mutex
}

// NewService returns the service. All arguments are required.
func NewService(backends *authservices.Service, roles Roles, st store.Store, log *slog.Logger) *Service {
	return &Service{backends: backends, roles: roles, st: st, log: log}
}

// standing returns the record and the backend that stands for the
// settings, or a nil backend when there is none (never configured, or
// deleted through the 4.0 API).
func (s *Service) standing(ctx context.Context) (Record, *authservices.Backend, error) {
	rec, err := s.record(ctx)
	if err != nil || rec.BackendID == "" {
		return rec, nil, err
	}
	b, err := s.backends.Get(ctx, rec.BackendID)
	if api.ErrorCode(err) == api.NotFound {
		return rec, nil, nil
	}
	if err != nil {
		return rec, nil, err
	}
	return rec, &b, nil
}

// Settings renders the standing backend in the 3.x GET shape: enabled when
// it is the active backend, role ids as names, the group settings from the
// record. Without one it is Graylog's empty, disabled object.
func (s *Service) Settings(ctx context.Context) (SettingsResponse, error) {
	rec, b, err := s.standing(ctx)
	if err != nil || b == nil {
		return EmptyDisabled(), err
	}
	out := fromBackend(b.Config, b.PasswordSet)
	active, err := s.backends.ActiveID(ctx)
	if err != nil {
		return SettingsResponse{}, err
	}
	out.Enabled = active == b.ID
	names, err := s.roleNames(ctx, b.DefaultRoles)
	if err != nil {
		return SettingsResponse{}, err
	}
	out.DefaultGroup = readerRole
	if len(names) > 0 {
		out.DefaultGroup, out.AdditionalDefaultGroups = names[0], names[1:]
	}
	if rec.GroupMapping != nil {
		out.GroupMapping = rec.GroupMapping
	}
	out.GroupSearchBase, out.GroupIDAttribute, out.GroupSearchPattern = rec.GroupSearchBase, rec.GroupIDAttribute, rec.GroupSearchPattern
	return out, nil
}

// roleNames names the roles of ids that exist, in order.
func (s *Service) roleNames(ctx context.Context, ids []string) ([]string, error) {
	names := make([]string, 0, len(ids))
	for _, id := range ids {
		n, err := s.roles.RoleName(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, nil
}

// roleIDs resolves the 3.x default groups as Graylog 3.x's LdapSettingsImpl
// does: an unknown default group is Reader, unknown additional groups are
// dropped.
func (s *Service) roleIDs(ctx context.Context, def string, more []string) (string, []string, error) {
	id, err := s.roles.RoleID(ctx, def)
	if errors.Is(err, store.ErrNotFound) {
		id, err = s.roles.RoleID(ctx, readerRole)
		if errors.Is(err, store.ErrNotFound) {
			id, err = "", nil
		}
	}
	if err != nil {
		return "", nil, err
	}
	var ids []string
	for _, name := range more {
		rid, err := s.roles.RoleID(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			s.log.Warn("legacy LDAP settings: unknown additional default group dropped", "role", name)
			continue
		}
		if err != nil {
			return "", nil, err
		}
		ids = append(ids, rid)
	}
	return id, ids, nil
}

// DescriptionAPI is the description of a backend written through the 3.x
// API, so an operator can tell it from a migrated one.
const DescriptionAPI = "Configured through the legacy LDAP API (/system/ldap/settings)."

// Save writes the 3.x settings to the standing backend, creating it when
// there is none. A new backend is not activated: it stays disabled until an
// operator reviews and activates it, as after Graylog's own migration; the
// active one stays active. A nil system_password keeps the stored one. A
// group mapping is kept, not applied. A validation failure is an
// *api.ValidationError with the 4.0 field names.
func (s *Service) Save(ctx context.Context, req SettingsRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	def, more, err := s.roleIDs(ctx, req.DefaultGroup, req.AdditionalDefaultGroups)
	if err != nil {
		return err
	}
	doc := Document{
		Enabled: req.Enabled, SystemUsername: req.SystemUsername, LdapURI: req.LdapURI,
		UseStartTLS: req.UseStartTLS, TrustAllCertificates: req.TrustAllCertificates,
		ActiveDirectory: req.ActiveDirectory, SearchBase: req.SearchBase,
		PrincipalSearchPattern: req.SearchPattern, UsernameAttribute: req.DisplayNameAttribute,
		DefaultGroup: def, AdditionalDefaultGroups: more,
	}
	pw := authservices.KeepValue()
	if req.SystemPassword != nil {
		pw = authservices.SetValue(*req.SystemPassword)
	}
	// The roles were resolved by name just now.
	in, err := ToBackend(doc, pw, func(string) bool { return true })
	if err != nil {
		return err
	}
	in.Description = DescriptionAPI
	rec, b, err := s.standing(ctx)
	if err != nil {
		return err
	}
	if b != nil {
		_, err = s.backends.Update(ctx, b.ID, in)
		err = legacyValidation(err)
	} else {
		var nb authservices.Backend
		if nb, err = s.backends.Create(ctx, in); err == nil {
			rec.BackendID = nb.ID
			s.log.Warn("legacy LDAP settings saved as a new, inactive authentication backend; review and activate it",
				"backend", nb.ID, "activate", "POST /api/system/authentication/services/configuration {\"active_backend\":\""+nb.ID+"\"}")
		}
		err = legacyValidation(err)
	}
	if err != nil {
		return err
	}
	if req.GroupMapping != nil {
		rec.GroupMapping = req.GroupMapping
		s.warnMapping(len(req.GroupMapping))
	}
	rec.GroupSearchBase, rec.GroupIDAttribute, rec.GroupSearchPattern = deref(req.GroupSearchBase), deref(req.GroupIDAttribute), deref(req.GroupSearchPattern)
	rec.EnableRequested = req.Enabled
	return s.putRecord(ctx, rec)
}

// AwaitingActivation returns the standing backend's id when the 3.x
// settings asked for LDAP enabled but the backend is not the active one
// (saves create it inactive, for review); "" otherwise.
func (s *Service) AwaitingActivation(ctx context.Context) (string, error) {
	rec, b, err := s.standing(ctx)
	if err != nil || b == nil || !rec.EnableRequested {
		return "", err
	}
	active, err := s.backends.ActiveID(ctx)
	if err != nil || active == b.ID {
		return "", err
	}
	return b.ID, nil
}

// Delete removes the standing backend, deactivating it first when it is the
// active one, and forgets the kept group settings. Without settings it does
// nothing, as Graylog 3.x.
func (s *Service) Delete(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, b, err := s.standing(ctx)
	if err != nil {
		return err
	}
	if b != nil {
		active, err := s.backends.ActiveID(ctx)
		if err != nil {
			return err
		}
		if active == b.ID {
			if err := s.backends.SetActive(ctx, ""); err != nil {
				return err
			}
		}
		if err := s.backends.Delete(ctx, b.ID); err != nil && api.ErrorCode(err) != api.NotFound {
			return err
		}
	}
	// The migrated document ids stay: deleting the settings must not make
	// the next migration recreate them.
	return s.putRecord(ctx, Record{Migrated: rec.Migrated})
}

// GroupMapping returns the kept group mapping (LDAP group → role name).
func (s *Service) GroupMapping(ctx context.Context) (map[string]string, error) {
	rec, err := s.record(ctx)
	if err != nil {
		return nil, err
	}
	if rec.GroupMapping == nil {
		return map[string]string{}, nil
	}
	return rec.GroupMapping, nil
}

// SaveGroupMapping keeps the group mapping for reference. It is never
// applied: 4.0 has no LDAP group mapping.
func (s *Service) SaveGroupMapping(ctx context.Context, m map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.record(ctx)
	if err != nil {
		return err
	}
	if m == nil {
		m = map[string]string{}
	}
	rec.GroupMapping = m
	s.warnMapping(len(m))
	return s.putRecord(ctx, rec)
}

func (s *Service) warnMapping(n int) {
	if n > 0 {
		s.log.Warn("LDAP group mapping is not applied in 4.0; it is kept for reference", "groups", n)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Graylog 3.x's refusals of GET /system/ldap/groups.
const (
	msgDisabled        = "LDAP is disabled."
	msgNoGroupSettings = "LDAP group configuration settings are not set."
)

// Groups lists the directory's groups with the kept group search settings,
// through the standing backend when it is the active one.
func (s *Service) Groups(ctx context.Context) ([]string, error) {
	rec, err := s.record(ctx)
	if err != nil {
		return nil, err
	}
	active, err := s.backends.Active(ctx)
	if err != nil {
		return nil, err
	}
	if rec.BackendID == "" || active == nil || active.BackendID != rec.BackendID {
		return nil, api.Errorf(api.Invalid, msgDisabled)
	}
	if rec.GroupSearchBase == "" || rec.GroupIDAttribute == "" {
		return nil, api.Errorf(api.Invalid, msgNoGroupSettings)
	}
	groups, err := searchGroups(ctx, active.Config, rec.GroupSearchBase, groupFilter(rec.GroupSearchPattern, "", ""), rec.GroupIDAttribute)
	if err != nil {
		return nil, api.Wrap(api.Internal, "Couldn't list LDAP groups", fmt.Errorf("backend %s: %w", rec.BackendID, err))
	}
	return groups, nil
}

// legacyFields are the 3.x names of the 4.0 fields a conversion fills, for
// validation errors an old client can place.
var legacyFields = map[string]string{
	"servers":                  "ldap_uri",
	"transport_security":       "use_start_tls",
	"system_user_dn":           "system_username",
	"user_search_base":         "search_base",
	"user_search_pattern":      "search_pattern",
	"user_full_name_attribute": "display_name_attribute",
	"default_roles":            "default_group",
}

// legacyValidation renames the fields of a validation error to 3.x's.
func legacyValidation(err error) error {
	var v *api.ValidationError
	if !errors.As(err, &v) {
		return err
	}
	out := &api.ValidationError{}
	for field, msgs := range v.Fields {
		if old, ok := legacyFields[field]; ok {
			field = old
		}
		for _, m := range msgs {
			out.Add(field, "%s", m)
		}
	}
	return out.Err()
}

// StandingID returns the id of the backend that stands for the 3.x
// settings, or "" when there is none.
func (s *Service) StandingID(ctx context.Context) (string, error) {
	_, b, err := s.standing(ctx)
	if err != nil || b == nil {
		return "", err
	}
	return b.ID, nil
}
