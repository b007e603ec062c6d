package ldap

import (
	"context"
	"errors"
	"fmt"

	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/store"
)

// Plan is what migrating one 3.x document does.
type Plan struct {
	Document Document
	// Skip says why the document is not migrated, or is "".
	Skip string
	// Backend is the backend to create. Its password is set only when
	// the legacy one was decrypted.
	Backend authservices.BackendInput
	// PasswordStored reports whether the document has a system password;
	// PasswordError is why it could not be decrypted, or nil.
	PasswordStored bool
	PasswordError  error
	// GroupMapping is the document's group mapping by role name, kept
	// for reference when the backend becomes the standing one.
	GroupMapping map[string]string
	// BackendID is set by Apply: the created backend.
	BackendID string
}

// Reasons a document is skipped.
const (
	SkipDisabled = "disabled (enabled=false); Graylog 4.0 does not migrate disabled LDAP settings"
	SkipMigrated = "already migrated"
)

// Plan works out what migrating docs does, in order, without changing
// anything: which documents are skipped (disabled, as Graylog skips them,
// or already migrated) and the backend each other one becomes. The system
// passwords are decrypted with the old Graylog's password_secret.
func (s *Service) Plan(ctx context.Context, docs []Document, graylogPasswordSecret string) ([]Plan, error) {
	rec, err := s.record(ctx)
	if err != nil {
		return nil, err
	}
	plans := make([]Plan, 0, len(docs))
	for _, d := range docs {
		p := Plan{Document: d}
		switch {
		case !d.Enabled:
			p.Skip = SkipDisabled
		case rec.hasMigrated(d.ID):
			p.Skip = SkipMigrated
		}
		if p.Skip == "" {
			if err := s.plan(ctx, &p, graylogPasswordSecret); err != nil {
				return nil, docError(d, err)
			}
		}
		plans = append(plans, p)
	}
	return plans, nil
}

func (s *Service) plan(ctx context.Context, p *Plan, secret string) error {
	d := p.Document
	if d.RolesByName {
		def, more, err := s.roleIDs(ctx, d.DefaultGroup, d.AdditionalDefaultGroups)
		if err != nil {
			return err
		}
		d.DefaultGroup, d.AdditionalDefaultGroups = def, more
	}
	var pw authservices.EncryptedValue
	p.PasswordStored = d.SystemPassword != ""
	if p.PasswordStored {
		plain, err := DecryptLegacyPassword(d.SystemPassword, d.SystemPasswordSalt, secret)
		if err != nil {
			p.PasswordError = err
		} else {
			pw = authservices.SetValue(plain)
		}
	}
	var lookErr error
	in, err := ToBackend(d, pw, func(id string) bool {
		_, err := s.roles.RoleName(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			lookErr = err
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if lookErr != nil {
		return lookErr
	}
	p.Backend = in
	p.GroupMapping = map[string]string{}
	for group, role := range d.GroupMapping {
		if !d.RolesByName {
			if name, err := s.roles.RoleName(ctx, role); err == nil {
				role = name
			}
		}
		p.GroupMapping[group] = role
	}
	return nil
}

// Apply creates the backends of the plans not skipped, inactive, as
// Graylog 4.0's migration does, and records each document as migrated. The
// first one becomes the standing backend of the 3.x API, with its group
// settings kept, unless one already stands. It returns the plans with
// BackendID set.
func (s *Service) Apply(ctx context.Context, plans []Plan) ([]Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Plan(nil), plans...)
	for i := range out {
		p := &out[i]
		if p.Skip != "" {
			continue
		}
		rec, b, err := s.standing(ctx)
		if err != nil {
			return out, err
		}
		if rec.hasMigrated(p.Document.ID) {
			p.Skip = SkipMigrated
			continue
		}
		nb, err := s.backends.Create(ctx, p.Backend)
		if err != nil {
			return out, docError(p.Document, err)
		}
		p.BackendID = nb.ID
		if b == nil {
			d := p.Document
			rec.BackendID, rec.GroupMapping = nb.ID, p.GroupMapping
			rec.GroupSearchBase, rec.GroupIDAttribute, rec.GroupSearchPattern = d.GroupSearchBase, d.GroupIDAttribute, d.GroupSearchPattern
		}
		rec.Migrated = append(rec.Migrated, p.Document.ID)
		if err := s.putRecord(ctx, rec); err != nil {
			return out, fmt.Errorf("backend %s created, but: %w", nb.ID, err)
		}
		if len(p.GroupMapping) > 0 {
			s.warnMapping(len(p.GroupMapping))
		}
	}
	return out, nil
}
