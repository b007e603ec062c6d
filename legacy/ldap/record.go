package ldap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collection holds the one record linking the 3.x LDAP settings to the 4.0
// backend that stands for them.
const Collection = "legacy_ldap"

const recordID = "settings"

// Record is what the 3.x settings keep beyond their backend: which backend
// stands for them, the group settings 4.0 has no place for, and the 3.x
// documents already migrated.
type Record struct {
	// BackendID is the backend that stands for the settings, or "".
	BackendID string `json:"backend_id"`
	// GroupMapping maps LDAP groups to role names. It is kept, never
	// applied: 4.0 has no LDAP group mapping.
	GroupMapping       map[string]string `json:"group_mapping"`
	GroupSearchBase    string            `json:"group_search_base"`
	GroupIDAttribute   string            `json:"group_id_attribute"`
	GroupSearchPattern string            `json:"group_search_pattern"`
	// EnableRequested is true when the last save asked for LDAP enabled:
	// the backend is created inactive, and until someone activates it the
	// node says why the 3.x form shows LDAP off.
	EnableRequested bool `json:"enable_requested"`
	// Migrated are the ids of the ldap_settings documents already
	// migrated (or skipped as disabled), so a second migration does
	// nothing, as Graylog's migrated_configs does.
	Migrated []string `json:"migrated"`
}

// hasMigrated reports whether the legacy document id was handled.
func (r Record) hasMigrated(id string) bool { return id != "" && slices.Contains(r.Migrated, id) }

// empty reports whether the record holds nothing worth keeping.
func (r Record) empty() bool {
	return r.BackendID == "" && len(r.Migrated) == 0 && len(r.GroupMapping) == 0 &&
		r.GroupSearchBase == "" && r.GroupIDAttribute == "" && r.GroupSearchPattern == ""
}

// record reads the record; a missing one is the zero Record.
func (s *Service) record(ctx context.Context) (Record, error) {
	var r Record
	doc, err := s.st.Get(ctx, Collection, recordID)
	if errors.Is(err, store.ErrNotFound) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("legacy ldap record: %w", err)
	}
	if err := json.Unmarshal(doc, &r); err != nil {
		return r, fmt.Errorf("legacy ldap record: %w", err)
	}
	return r, nil
}

// putRecord stores the record, or removes it when it holds nothing.
func (s *Service) putRecord(ctx context.Context, r Record) error {
	if r.empty() {
		err := s.st.Delete(ctx, Collection, recordID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("legacy ldap record: %w", err)
		}
		return nil
	}
	doc, err := api.Marshal(r)
	if err != nil {
		return fmt.Errorf("legacy ldap record: %w", err)
	}
	if err := s.st.Put(ctx, Collection, recordID, doc); err != nil {
		return fmt.Errorf("legacy ldap record: %w", err)
	}
	return nil
}
