package entity

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// GrantsCollection holds the ownership grants, as Graylog 4.0 names it.
const GrantsCollection = "grants"

// GRN types of the alerts' entities.
const (
	TypeDefinition   = "event_definition"
	TypeNotification = "notification"
)

// Owners records who created the alerts' entities: Graylog 4.0 grants the
// creator of an event definition or notification ownership of it (the
// grant "own" on grn::::<type>:<id>), which gives them every right on it
// without a permission string, so that a user who may create definitions
// sees and manages the ones they create.
type Owners struct {
	St  store.Store
	Now func() time.Time
}

// grant is Graylog's GrantDTO.
type grant struct {
	Grantee    string   `json:"grantee"`
	Capability string   `json:"capability"`
	Target     string   `json:"target"`
	CreatedBy  string   `json:"created_by"`
	CreatedAt  api.Time `json:"created_at"`
	UpdatedBy  string   `json:"updated_by"`
	UpdatedAt  api.Time `json:"updated_at"`
}

func grn(typ, id string) string { return "grn::::" + typ + ":" + id }

// userPrefix starts the GRN of a user grantee.
const userPrefix = "grn::::user:"

// userGRN names a principal as a grantee.
func userGRN(p *auth.Principal) string { return userPrefix + p.UserID }

// OwnerUserID is the user id of an owner GRN; ok is false when the owner
// is not a user (or there is none).
func OwnerUserID(owner string) (id string, ok bool) { return strings.CutPrefix(owner, userPrefix) }

// Own makes the caller in ctx the owner of the entity.
func (o Owners) Own(ctx context.Context, typ, id string) error {
	p := auth.FromContext(ctx)
	if p == nil || p.UserID == "" {
		return nil
	}
	now := api.Time{Time: o.Now().UTC().Truncate(time.Millisecond)}
	doc, err := json.Marshal(grant{Grantee: userGRN(p), Capability: "own", Target: grn(typ, id),
		CreatedBy: p.Username, CreatedAt: now, UpdatedBy: p.Username, UpdatedAt: now})
	if err != nil {
		return err
	}
	return o.St.Put(ctx, GrantsCollection, grn(typ, id), doc)
}

// Forget drops the ownership of a deleted entity.
func (o Owners) Forget(ctx context.Context, typ, id string) error {
	err := o.St.Delete(ctx, GrantsCollection, grn(typ, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// Owner returns the grantee GRN owning the entity, "" when none does.
func (o Owners) Owner(ctx context.Context, typ, id string) (string, error) {
	doc, err := o.St.Get(ctx, GrantsCollection, grn(typ, id))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var g grant
	return g.Grantee, json.Unmarshal(doc, &g)
}

// Owned returns the owners of every owned entity of a type, by id.
func (o Owners) Owned(ctx context.Context, typ string) (map[string]string, error) {
	all, err := store.All(ctx, o.St, GrantsCollection, func(doc []byte) (grant, error) {
		var g grant
		err := json.Unmarshal(doc, &g)
		return g, err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	prefix := grn(typ, "")
	for _, g := range all {
		if id, ok := strings.CutPrefix(g.Target, prefix); ok && g.Capability == "own" {
			out[id] = g.Grantee
		}
	}
	return out, nil
}

// Owns reports whether p is the grantee owner.
func Owns(p *auth.Principal, owner string) bool {
	return p != nil && p.UserID != "" && owner == userGRN(p)
}

// Require is auth.Require of perm (the instance permission of the entity),
// which the entity's owner passes without it.
func (o Owners) Require(ctx context.Context, perm, typ, id string) error {
	err := auth.Require(ctx, perm)
	if api.ErrorCode(err) != api.Forbidden {
		return err
	}
	owner, oerr := o.Owner(ctx, typ, id)
	if oerr != nil {
		return oerr
	}
	if Owns(auth.FromContext(ctx), owner) {
		return nil
	}
	return err
}
