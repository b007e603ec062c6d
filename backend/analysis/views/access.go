package views

import "github.com/loggate/loggate/auth"

// ref names a view for a permission decision: a stored View or a listing's
// summary.
type ref struct {
	id    string
	typ   Type
	owner string
}

func (v View) ref() ref { return ref{id: v.ID, typ: v.Type, owner: v.owner()} }

func (s summary) ref() ref { return ref{id: s.id, typ: s.typ, owner: s.owner} }

// owns stands in for Graylog 4.0's ownership grant, which gives the creator
// every right on the view without a permission string.
func owns(p *auth.Principal, v ref) bool {
	return p != nil && p.Username != "" && v.owner == p.Username
}

// canRead: the owner, view:read:<id>, and for dashboards dashboards:read:<id>.
func canRead(p *auth.Principal, v ref) bool {
	return owns(p, v) || p.Permits("view:read:"+v.id) ||
		v.typ == Dashboard && p.Permits("dashboards:read:"+v.id)
}

// canEdit: the owner, view:edit:<id>, and for dashboards dashboards:edit:<id>.
func canEdit(p *auth.Principal, v ref) bool {
	return owns(p, v) || p.Permits("view:edit:"+v.id) ||
		v.typ == Dashboard && p.Permits("dashboards:edit:"+v.id)
}

// canDelete: the owner and view:delete:<id>, as Graylog 4.0 checks only the
// view permission on delete.
func canDelete(p *auth.Principal, v ref) bool {
	return owns(p, v) || p.Permits("view:delete:"+v.id)
}

// canSetDefault is the view:read:<id> half of setting the default view;
// Graylog checks the view permission only, not dashboards:read.
func canSetDefault(p *auth.Principal, v ref) bool {
	return owns(p, v) || p.Permits("view:read:"+v.id)
}

// Readable reports whether p may read the view of that id, type and owner
// ("" for none), as GET /views/{id} decides: for content pack exports.
func Readable(p *auth.Principal, id string, typ Type, owner string) bool {
	return canRead(p, ref{id: id, typ: typ, owner: owner})
}
