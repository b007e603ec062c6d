package authservices

import (
	"bytes"
	"encoding/json"
	"errors"
)

// SecretAction is what a write does with a stored secret.
type SecretAction int

// The forms of Graylog's EncryptedValue on write.
const (
	// SecretAbsent: the property was absent or null. A backend then has no
	// password, as in Graylog; a backend test uses the stored one.
	SecretAbsent SecretAction = iota
	// SecretSet: a plain string or {"set_value":"…"}.
	SecretSet
	// SecretKeep: {"keep_value":true}, keep the stored secret.
	SecretKeep
	// SecretDelete: {"delete_value":true}, remove the stored secret.
	SecretDelete
)

// EncryptedValue is a secret as clients write it: Graylog's EncryptedValue
// in one of its write forms. It is never written back; reads show only
// {"is_set":bool}. Its String and GoString hide the value, so formatting it
// into a log or an error cannot leak it.
type EncryptedValue struct {
	Action SecretAction
	value  string
}

// SetValue returns the write that stores plain.
func SetValue(plain string) EncryptedValue { return EncryptedValue{Action: SecretSet, value: plain} }

// KeepValue returns the write that keeps the stored secret.
func KeepValue() EncryptedValue { return EncryptedValue{Action: SecretKeep} }

// DeleteValue returns the write that removes the stored secret.
func DeleteValue() EncryptedValue { return EncryptedValue{Action: SecretDelete} }

// Value is the plain secret of a SecretSet write, or "".
func (e EncryptedValue) Value() string { return e.value }

// String names the action, never the value.
func (e EncryptedValue) String() string {
	switch e.Action {
	case SecretSet:
		return "set_value:<redacted>"
	case SecretKeep:
		return "keep_value"
	case SecretDelete:
		return "delete_value"
	}
	return "absent"
}

// GoString is String, for %#v.
func (e EncryptedValue) GoString() string { return e.String() }

// errEncryptedValue is the one message of every malformed secret. It names
// the accepted forms and never echoes what was sent, which may be the secret.
var errEncryptedValue = errors.New("an encrypted value must be a string or an object with exactly one of " +
	`"set_value" (a string), "keep_value" (true) or "delete_value" (true)`)

// UnmarshalJSON reads a plain string, {"set_value":"…"}, {"keep_value":true}
// or {"delete_value":true}; the forms are mutually exclusive, as in Graylog.
// null is SecretAbsent.
func (e *EncryptedValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*e = EncryptedValue{}
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return errEncryptedValue
		}
		*e = SetValue(s)
		return nil
	case len(b) > 0 && b[0] == '{':
	default:
		return errEncryptedValue
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || len(fields) != 1 {
		return errEncryptedValue
	}
	for name, raw := range fields {
		switch name {
		case "set_value":
			var s *string
			if err := json.Unmarshal(raw, &s); err != nil || s == nil {
				return errEncryptedValue
			}
			*e = SetValue(*s)
		case "keep_value", "delete_value":
			var set bool
			if err := json.Unmarshal(raw, &set); err != nil || !set {
				return errEncryptedValue
			}
			*e = KeepValue()
			if name == "delete_value" {
				*e = DeleteValue()
			}
		default:
			return errEncryptedValue
		}
	}
	return nil
}

// passwordState is how a stored secret reads: whether there is one.
type passwordState struct {
	IsSet bool `json:"is_set"`
}

// sealedValue is how a secret is stored: sealed by the Sealer.
type sealedValue struct {
	EncryptedValue string `json:"encrypted_value"`
}
