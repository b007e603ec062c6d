package ldap

import (
	"context"

	"github.com/loggate/loggate/backend/access/roles"
)

// RoleService adapts the role service to Roles.
func RoleService(r *roles.Service) Roles { return roleService{r} }

type roleService struct{ r *roles.Service }

func (s roleService) RoleID(ctx context.Context, name string) (string, error) {
	role, err := s.r.ByName(ctx, name)
	return role.ID, err
}

func (s roleService) RoleName(ctx context.Context, id string) (string, error) {
	role, err := s.r.ByID(ctx, id)
	return role.Name, err
}
