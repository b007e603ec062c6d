package configreq

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Coerce validates a configuration a client sent and returns it with every
// value in its declared type, as Graylog's ConfigurationMapConverter
// converts it: numbers may come as JSON numbers or as strings of digits,
// booleans as JSON booleans or the strings "true"/"false", text as strings,
// numbers or booleans. Fields left out, null, or an empty string (other than
// for text) take their default when optional.
//
// The error, if any, is an *api.ValidationError naming every failing field:
// keys the schema does not declare, mandatory fields missing, values of the
// wrong type, numbers out of their attribute's range, dropdown values that
// are not among the choices.
//
// stored is the configuration being replaced, or nil: a password field that
// comes back as Mask keeps its stored value.
func (r Request) Coerce(in map[string]json.RawMessage, stored map[string]any) (map[string]any, error) {
	verr := &api.ValidationError{}
	out := r.CoerceInto(verr, in, stored)
	if err := verr.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// CoerceInto is Coerce for a body with more fields than the configuration:
// it adds the configuration's failures to verr, beside those of the other
// fields, and returns the coerced configuration, which is only meaningful
// when verr holds no failures.
func (r Request) CoerceInto(verr *api.ValidationError, in map[string]json.RawMessage, stored map[string]any) map[string]any {
	for key := range in {
		if _, ok := r.Field(key); !ok {
			verr.Add(key, "Unknown configuration field description for field %q", key)
		}
	}
	out := make(map[string]any, len(r))
	for _, f := range r {
		raw := in[f.Name]
		if f.Kind == Text && f.Has(IsPassword) && isMask(raw) {
			prev, _ := stored[f.Name].(string)
			if prev == "" {
				verr.Add(f.Name, "Configuration field %q holds the password mask %q but no password is stored; send the password itself", f.Name, Mask)
				continue
			}
			out[f.Name] = prev
			continue
		}
		v, set, problem := f.coerce(raw)
		switch {
		case problem != "":
			verr.Add(f.Name, "%s", problem)
		case set && !(f.Kind == Text && v == "" && !f.optional()):
			out[f.Name] = v
		case !f.optional():
			verr.Add(f.Name, "Mandatory configuration field %q is missing or has the wrong data type", f.Name)
		default:
			out[f.Name] = f.Default
		}
	}
	return out
}

func isMask(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s == Mask
}

// coerce converts one raw value. set is false when the value counts as
// absent: left out, null, or (except for text) an empty string. A value that
// cannot be converted yields the message telling the client why.
func (f Field) coerce(raw json.RawMessage) (v any, set bool, problem string) {
	tok, lit, problem := scalar(raw)
	if problem != "" {
		return nil, false, fmt.Sprintf("Configuration field %q %s", f.Name, problem)
	}
	switch {
	case tok == tokAbsent:
		return nil, false, ""
	case tok == tokString && lit == "" && f.Kind != Text:
		return nil, false, ""
	}
	switch f.Kind {
	case Text:
		return lit, true, ""
	case Number:
		return f.number(tok, lit)
	case Boolean:
		if tok == tokNumber || !(strings.EqualFold(lit, "true") || strings.EqualFold(lit, "false")) {
			return nil, false, fmt.Sprintf("Configuration field %q must be true or false, got %s", f.Name, quote(lit))
		}
		return strings.EqualFold(lit, "true"), true, ""
	case Dropdown:
		return f.choice(lit)
	}
	return nil, false, fmt.Sprintf("Configuration field %q has the unknown type %q", f.Name, f.Kind)
}

func (f Field) number(tok token, lit string) (any, bool, string) {
	if tok == tokBool {
		return nil, false, fmt.Sprintf("Configuration field %q must be a whole number, got %s", f.Name, lit)
	}
	// Graylog reads numbers with Integer.parseInt: whole, within a Java int.
	n, err := strconv.ParseInt(lit, 10, 32)
	if err != nil {
		return nil, false, fmt.Sprintf("Configuration field %q must be a whole number between %d and %d, got %s",
			f.Name, math.MinInt32, math.MaxInt32, quote(lit))
	}
	switch {
	case f.Has(IsPortNumber) && (n < 1 || n > 65535):
		return nil, false, fmt.Sprintf("Configuration field %q must be a port number between 1 and 65535, got %d", f.Name, n)
	case f.Has(OnlyPositive) && n < 0:
		return nil, false, fmt.Sprintf("Configuration field %q must not be negative, got %d", f.Name, n)
	case f.Has(OnlyNegative) && n >= 0:
		return nil, false, fmt.Sprintf("Configuration field %q must be negative, got %d", f.Name, n)
	}
	return int(n), true, ""
}

func (f Field) choice(lit string) (any, bool, string) {
	for _, c := range f.Choices {
		if c.Value == lit {
			return c.Value, true, ""
		}
	}
	// Graylog's transports upper-case the protocol they read; accept any
	// case and store the declared spelling.
	for _, c := range f.Choices {
		if strings.EqualFold(c.Value, lit) {
			return c.Value, true, ""
		}
	}
	vals := make([]string, len(f.Choices))
	for i, c := range f.Choices {
		vals[i] = c.Value
	}
	return nil, false, fmt.Sprintf("Configuration field %q must be one of %s, got %s", f.Name, strings.Join(vals, ", "), quote(lit))
}

type token int

const (
	tokAbsent token = iota // left out or null
	tokString
	tokNumber
	tokBool
)

// scalar reads a raw JSON scalar: its kind and its text (a string's
// content, a number's or boolean's literal). Objects and arrays are refused
// with the reason, to be put after the field's name.
func scalar(raw json.RawMessage) (tok token, lit, problem string) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return tokAbsent, "", ""
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, "", "is not a valid JSON string"
		}
		return tokString, s, ""
	case c == 't' || c == 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return 0, "", "is not a valid JSON value"
		}
		return tokBool, string(raw), ""
	case c == '-' || (c >= '0' && c <= '9'):
		if !json.Valid(raw) {
			return 0, "", "is not a valid JSON number"
		}
		return tokNumber, string(raw), ""
	case c == '{':
		return 0, "", "must be a single value, got a JSON object"
	case c == '[':
		return 0, "", "must be a single value, got a JSON array"
	}
	return 0, "", "is not a valid JSON value"
}

// quote shows a client's value in a message, cut short so that a huge value
// cannot bloat the response.
func quote(s string) string {
	const limit = 64
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "…"
	}
	return strconv.Quote(s)
}
