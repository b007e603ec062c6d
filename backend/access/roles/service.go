// Package roles owns roles: their storage, the built-in Admin and Reader
// roles, and the /roles resource.
package roles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collection is the store collection of roles.
const Collection = "roles"

// Indexes are the unique indexes roles need.
var Indexes = []store.Index{{Collection: Collection, Field: "name_lower"}}

// Role is a stored role.
type Role struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	NameLower   string   `json:"name_lower"`
	Description *string  `json:"description"`
	Permissions []string `json:"permissions"`
	ReadOnly    bool     `json:"read_only"`
}

// Built-in roles, rewritten to these permission sets at every start as
// Graylog 4.0 does. The permission sets of the migration-added roles follow
// their descriptions; Graylog's migrations were not available to compare.
var builtins = []Role{
	{Name: "Admin", Description: ptr("Grants all permissions for Graylog administrators (built-in)"), Permissions: []string{"*"}, ReadOnly: true},
	{Name: "Reader", Description: ptr("Grants basic permissions for every Graylog user (built-in)"), Permissions: []string{
		"buffers:read", "clusterconfigentry:read", "decorators:read", "fieldnames:read", "indexercluster:read",
		"inputs:read", "journal:read", "jvmstats:read", "messagecount:read", "messages:analyze", "messages:read",
		"metrics:read", "system:read", "throughput:read",
	}, ReadOnly: true},
	// The roles Graylog's migrations add; clients and Terraform
	// configurations assign them by name.
	{Name: "Dashboard Creator", Description: ptr("Allows creation of Dashboards (built-in)"), Permissions: []string{"dashboards:create"}, ReadOnly: true},
	{Name: "Event Definition Creator", Description: ptr("Allows creation of Event Definitions (built-in)"), Permissions: []string{"eventdefinitions:create"}, ReadOnly: true},
	{Name: "Event Notification Creator", Description: ptr("Allows creation of Event Notifications (built-in)"), Permissions: []string{"eventnotifications:create"}, ReadOnly: true},
	{Name: "User Inspector", Description: ptr("Allows listing all user accounts (built-in)"), Permissions: []string{"users:read"}, ReadOnly: true},
	{Name: "Views Manager", Description: ptr("Allows reading and writing all views and extended searches (built-in)"), Permissions: []string{"view:use", "view:create", "view:read", "view:edit"}, ReadOnly: true},
	{Name: "Alerts Manager", Description: ptr("Allows reading and writing all event definitions and event notifications (built-in)"), Permissions: []string{
		"eventdefinitions:create", "eventdefinitions:delete", "eventdefinitions:edit", "eventdefinitions:execute", "eventdefinitions:read",
		"eventnotifications:create", "eventnotifications:delete", "eventnotifications:edit", "eventnotifications:read",
	}, ReadOnly: true},
	{Name: "Sidecar System (Internal)", Description: ptr("Internal technical role. Grants access to register and pull configurations for a Sidecar node (built-in)"), Permissions: []string{
		"sidecar_collectors:read", "sidecar_collector_configurations:read", "sidecars:update",
	}, ReadOnly: true},
}

func ptr(s string) *string { return &s }

// Service stores roles.
type Service struct {
	st store.Store
}

// NewService returns the role service and makes sure the built-in roles
// exist with their current permissions.
func NewService(ctx context.Context, st store.Store) (*Service, error) {
	s := &Service{st: st}
	for _, b := range builtins {
		if err := s.ensure(ctx, b); err != nil {
			return nil, fmt.Errorf("built-in role %s: %w", b.Name, err)
		}
	}
	return s, nil
}

func (s *Service) ensure(ctx context.Context, r Role) error {
	old, err := s.ByName(ctx, r.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		_, err = s.Create(ctx, r, true)
		return err
	case err != nil:
		return err
	}
	r.ID = old.ID
	return s.put(ctx, r)
}

// ByName returns a role by name, matched case-insensitively.
func (s *Service) ByName(ctx context.Context, name string) (Role, error) {
	_, doc, err := s.st.FindUnique(ctx, Collection, "name_lower", strings.ToLower(name))
	if err != nil {
		return Role{}, fmt.Errorf("role %q: %w", name, err)
	}
	return decode(doc)
}

// ByID returns a role by id.
func (s *Service) ByID(ctx context.Context, id string) (Role, error) {
	doc, err := s.st.Get(ctx, Collection, id)
	if err != nil {
		return Role{}, fmt.Errorf("role %s: %w", id, err)
	}
	return decode(doc)
}

// All returns every role, sorted by name.
func (s *Service) All(ctx context.Context) ([]Role, error) {
	var out []Role
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		r, err := decode(doc)
		out = append(out, r)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].NameLower < out[j].NameLower })
	return out, err
}

// IDsByNames resolves role names to ids. Unknown names are an Invalid error
// listing them, as Graylog words it.
func (s *Service) IDsByNames(ctx context.Context, names []string) ([]string, error) {
	var ids, unknown []string
	for _, n := range names {
		r, err := s.ByName(ctx, n)
		if errors.Is(err, store.ErrNotFound) {
			unknown = append(unknown, n)
			continue
		}
		if err != nil {
			return nil, err
		}
		ids = append(ids, r.ID)
	}
	if len(unknown) > 0 {
		return nil, api.Errorf(api.Invalid, "Invalid role names: %s", strings.Join(unknown, ", "))
	}
	return ids, nil
}

// Resolve returns the names and the combined permissions of role ids.
// Roles deleted meanwhile are skipped.
func (s *Service) Resolve(ctx context.Context, ids []string) (names, perms []string, err error) {
	for _, id := range ids {
		r, err := s.ByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		names = append(names, r.Name)
		perms = append(perms, r.Permissions...)
	}
	return names, perms, nil
}

// ReaderID returns the id of the built-in Reader role, given to users
// created without roles.
func (s *Service) ReaderID(ctx context.Context) (string, error) {
	r, err := s.ByName(ctx, "Reader")
	return r.ID, err
}

// AdminID returns the id of the built-in Admin role.
func (s *Service) AdminID(ctx context.Context) (string, error) {
	r, err := s.ByName(ctx, "Admin")
	return r.ID, err
}

// Create stores a new role. Graylog ignores read_only on create; only
// built-ins are read-only.
func (s *Service) Create(ctx context.Context, r Role, builtin bool) (Role, error) {
	if err := validate(r); err != nil {
		return Role{}, err
	}
	r.ReadOnly = builtin
	r.ID = primitive.NewObjectID().Hex()
	r.NameLower = strings.ToLower(r.Name)
	doc, err := api.Marshal(r)
	if err != nil {
		return Role{}, err
	}
	if err := s.st.Insert(ctx, Collection, r.ID, doc); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Role{}, api.Errorf(api.Invalid, "Role %s already exists.", r.Name)
		}
		return Role{}, err
	}
	return r, nil
}

// Update replaces the role with the given id.
func (s *Service) Update(ctx context.Context, r Role) error {
	if err := validate(r); err != nil {
		return err
	}
	return s.put(ctx, r)
}

func (s *Service) put(ctx context.Context, r Role) error {
	r.NameLower = strings.ToLower(r.Name)
	doc, err := api.Marshal(r)
	if err != nil {
		return err
	}
	if err := s.st.Put(ctx, Collection, r.ID, doc); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return api.Errorf(api.Invalid, "Role %s already exists.", r.Name)
		}
		return err
	}
	return nil
}

// Delete removes a role by id; an unknown one is a 404.
func (s *Service) Delete(ctx context.Context, id string) error {
	return api.As(s.st.Delete(ctx, Collection, id), store.ErrNotFound, api.NotFound)
}

func validate(r Role) error {
	if err := permission.ValidName("role name", r.Name); err != nil {
		return api.Wrap(api.Invalid, strings.ToUpper(err.Error()[:1])+err.Error()[1:], err)
	}
	if r.Permissions == nil {
		return api.Errorf(api.Invalid, "Role %s: permissions are required (an empty list is fine)", r.Name)
	}
	for _, p := range r.Permissions {
		if err := permission.Valid(p); err != nil {
			return api.Errorf(api.Invalid, "Role %s: %s", r.Name, err.Error())
		}
	}
	return nil
}

func decode(doc []byte) (Role, error) {
	var r Role
	if err := json.Unmarshal(doc, &r); err != nil {
		return Role{}, fmt.Errorf("stored role: %w", err)
	}
	if r.Permissions == nil {
		r.Permissions = []string{}
	}
	return r, nil
}
