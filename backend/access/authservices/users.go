package authservices

import (
	"context"
	"fmt"
	"slices"

	"github.com/loggate/loggate/backend/access/users"
)

// UserOverview is a user created through a backend: Graylog 4.0's
// UserOverviewDTO, with role ids instead of names — the listing's context
// names them.
type UserOverview struct {
	users.Overview
	Roles []string `json:"roles"`
}

// userField is a user's value of a searchable or sortable field.
func userField(u UserOverview, field string) string {
	switch field {
	case "username":
		return u.Username
	case "email":
		return u.Email
	}
	return u.FullName
}

// BackendUsers returns the users a backend created; an unknown backend is
// a 404.
func (s *Service) BackendUsers(ctx context.Context, id string) ([]UserOverview, error) {
	if _, err := s.get(ctx, id); err != nil {
		return nil, err
	}
	if s.users == nil {
		return nil, errNoUsers
	}
	users, err := s.users.ByAuthService(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("users of backend %s: %w", id, err)
	}
	return users, nil
}

// roleContext names the roles of users: Graylog's {"<id>":{"title":name}}.
// Roles deleted meanwhile are left out.
func (s *Service) roleContext(ctx context.Context, users []UserOverview) (map[string]map[string]string, error) {
	var ids []string
	for _, u := range users {
		ids = append(ids, u.Roles...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make(map[string]map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	titles, err := s.roles.Titles(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("role titles: %w", err)
	}
	for _, id := range ids {
		if t, ok := titles[id]; ok {
			out[id] = map[string]string{"title": t}
		}
	}
	return out, nil
}
