// Package configreq is Graylog's ConfigurationRequest: the typed
// configuration schema of a pluggable type (an input, an output), its JSON
// form in the type listings, and the coercion and validation of the
// configuration a client sends for it.
//
// Inputs and outputs share it, as in Graylog, so that every type declares
// its fields once, in a table, and the web interface renders one form for
// all of them.
package configreq

import (
	"bytes"

	"github.com/loggate/loggate/router/api"
)

// Kind is a field's type as clients see it ("type" in the schema).
type Kind string

// The field kinds loggate's types use; Graylog's list fields are not needed
// by any of them yet.
const (
	Text     Kind = "text"
	Number   Kind = "number"
	Boolean  Kind = "boolean"
	Dropdown Kind = "dropdown"
)

// Attributes Graylog gives fields. The web interface reads them: it renders
// a password input for IsPassword and bounds number inputs by the others;
// loggate enforces the bounds on the server as well.
const (
	IsPassword   = "is_password"
	Textarea     = "textarea"
	OnlyPositive = "only_positive" // at least 0, as the web interface bounds it
	OnlyNegative = "only_negative" // at most -1
	IsPortNumber = "is_port_number"
)

// DefaultPosition is the position Graylog gives fields that declare none.
const DefaultPosition = 100

// Mask replaces a stored password in configurations shown to clients.
// Sending it back in an update keeps the stored password.
const Mask = "<password set>"

// Choice is one value of a dropdown and the label shown for it.
type Choice struct {
	Value string
	Label string
}

// Field is one configuration field of a type.
type Field struct {
	Name        string
	Kind        Kind
	HumanName   string
	Description string
	// Default is the value filled in when a client leaves an optional field
	// out: a string (Text, Dropdown), an int (Number), a bool (Boolean) or
	// nil, which is stored as null, as Graylog's form sends it.
	Default  any
	Optional bool
	// Attributes are the field's attribute names (IsPassword, IsPortNumber…).
	Attributes []string
	// Choices are a dropdown's values, in the order clients show them.
	Choices []Choice
	// Position orders fields in forms; 0 means DefaultPosition.
	Position int
}

// optional reports whether a client may leave the field out. Graylog's
// boolean fields are always optional: an unticked box sends nothing.
func (f Field) optional() bool { return f.Optional || f.Kind == Boolean }

// Has reports whether the field carries an attribute.
func (f Field) Has(attr string) bool {
	for _, a := range f.Attributes {
		if a == attr {
			return true
		}
	}
	return false
}

// fieldJSON is the form of a field in Graylog's ConfigurationRequest JSON.
type fieldJSON struct {
	Type           Kind     `json:"type"`
	HumanName      string   `json:"human_name"`
	Description    string   `json:"description"`
	DefaultValue   any      `json:"default_value"`
	IsOptional     bool     `json:"is_optional"`
	Attributes     []string `json:"attributes"`
	AdditionalInfo any      `json:"additional_info"`
	Position       int      `json:"position"`
}

// choices marshals as an object in declaration order, as Graylog's
// ImmutableMap keeps it.
type choices []Choice

func (c choices) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, ch := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeKeyValue(&b, ch.Value, ch.Label); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (f Field) jsonForm() fieldJSON {
	out := fieldJSON{
		Type: f.Kind, HumanName: f.HumanName, Description: f.Description, DefaultValue: f.Default,
		IsOptional: f.optional(), Attributes: f.Attributes, AdditionalInfo: struct{}{}, Position: f.Position,
	}
	if out.Attributes == nil {
		out.Attributes = []string{}
	}
	if f.Kind == Dropdown {
		out.AdditionalInfo = map[string]choices{"values": f.Choices}
	}
	if out.Position == 0 {
		out.Position = DefaultPosition
	}
	return out
}

func writeKeyValue(b *bytes.Buffer, key string, value any) error {
	k, err := api.Marshal(key)
	if err != nil {
		return err
	}
	v, err := api.Marshal(value)
	if err != nil {
		return err
	}
	b.Write(k)
	b.WriteByte(':')
	b.Write(v)
	return nil
}
