package ldap

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	goldap "github.com/go-ldap/ldap/v3"
)

// Entry is the directory entry of an authenticated user.
type Entry struct {
	DN string
	// UniqueID identifies the user for good, whatever renames happen: the
	// entryUUID (or the configured attribute) of an LDAP entry, the
	// objectGUID of an AD entry in its usual string form
	// ("3f2504e0-4f89-11d3-9a0c-0305e82c3301").
	UniqueID string
	// Username is the value of the configured user name attribute.
	Username string
	// FullName is the value of the configured full name attribute, or
	// Username when the entry has none.
	FullName string
	// Email is the mail attribute, or "".
	Email string
	// Attributes are the entry's user attributes, for showing an
	// administrator what the directory holds. Attributes named like a
	// password are never included; values that are not UTF-8 text are
	// base64-encoded.
	Attributes map[string][]string

	rawUniqueID []byte
}

// Base64UniqueID is the unique id attribute's raw value in base64, the form
// Graylog 4.0 stores as a directory user's auth_service_uid and shows in its
// login test.
func (e *Entry) Base64UniqueID() string {
	return base64.StdEncoding.EncodeToString(e.rawUniqueID)
}

// newEntry reads the user from a search result entry.
func newEntry(cfg Config, le *goldap.Entry) (*Entry, error) {
	idAttr := cfg.uniqueIDAttribute()
	raw := le.GetEqualFoldRawAttributeValue(idAttr)
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: entry %q has no %s attribute", ErrMisconfigured, le.DN, idAttr)
	}
	e := &Entry{DN: le.DN, rawUniqueID: raw, UniqueID: string(raw)}
	if cfg.Type == TypeActiveDirectory {
		guid, err := formatGUID(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %q: %w", ErrMisconfigured, le.DN, err)
		}
		e.UniqueID = guid
	}
	if e.Username = le.GetEqualFoldAttributeValue(cfg.UserNameAttribute); e.Username == "" {
		return nil, fmt.Errorf("%w: entry %q has no %s attribute", ErrMisconfigured, le.DN, cfg.UserNameAttribute)
	}
	if e.FullName = le.GetEqualFoldAttributeValue(cfg.UserFullNameAttribute); e.FullName == "" {
		e.FullName = e.Username
	}
	e.Email = le.GetEqualFoldAttributeValue("mail")
	e.Attributes = make(map[string][]string, len(le.Attributes))
	for _, a := range le.Attributes {
		if secret(a.Name) {
			continue
		}
		vals := make([]string, len(a.ByteValues))
		for i, v := range a.ByteValues {
			switch {
			case cfg.Type == TypeActiveDirectory && strings.EqualFold(a.Name, ADUniqueIDAttribute):
				vals[i] = e.UniqueID
			case utf8.Valid(v):
				vals[i] = string(v)
			default:
				vals[i] = base64.StdEncoding.EncodeToString(v)
			}
		}
		e.Attributes[a.Name] = vals
	}
	return e, nil
}

// secret reports whether an attribute may hold a password or its hash:
// userPassword, AD's unicodePwd and anything else named like a password.
func secret(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "password") || n == "unicodepwd"
}

// formatGUID formats an AD objectGUID as Windows does: its first three
// fields are stored little-endian, the last eight bytes in order.
func formatGUID(b []byte) (string, error) {
	if len(b) != 16 {
		return "", fmt.Errorf("objectGUID has %d bytes, not 16", len(b))
	}
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x",
		binary.LittleEndian.Uint32(b[0:4]), binary.LittleEndian.Uint16(b[4:6]),
		binary.LittleEndian.Uint16(b[6:8]), b[8:10], b[10:16]), nil
}
