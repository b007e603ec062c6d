package contentpacks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// params are an installation's parameter values, each a literal of its
// parameter's type.
type params map[string]ValueRef

// resolve returns the literal a reference stands for: itself, or the value
// of the parameter it names. A nil reference resolves to nil.
func (p params) resolve(v *ValueRef) (*ValueRef, error) {
	if v == nil {
		return nil, nil
	}
	if v.Type != TypeParameter {
		if err := checkLiteral(v.Type, v.Value); err != nil {
			return nil, err
		}
		return v, nil
	}
	var name string
	if err := json.Unmarshal(v.Value, &name); err != nil {
		return nil, fmt.Errorf("a parameter reference names no parameter: %s", v.Value)
	}
	val, ok := p[name]
	if !ok {
		return nil, fmt.Errorf("missing parameter %s", name)
	}
	return &val, nil
}

// want resolves v and checks its type, one of types.
func (p params) want(v *ValueRef, what string, types ...string) (*ValueRef, error) {
	r, err := p.resolve(v)
	if err != nil || r == nil {
		return nil, err
	}
	for _, t := range types {
		if r.Type == t {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%s: expected a value of type %s but got %s", what, types[0], r.Type)
}

// str resolves a string reference; def when it is missing.
func (p params) str(v *ValueRef, what, def string) (string, error) {
	r, err := p.want(v, what, TypeString)
	if err != nil || r == nil {
		return def, err
	}
	var s string
	err = json.Unmarshal(r.Value, &s)
	return s, err
}

// boolean resolves a boolean reference; def when it is missing.
func (p params) boolean(v *ValueRef, what string, def bool) (bool, error) {
	r, err := p.want(v, what, TypeBoolean)
	if err != nil || r == nil {
		return def, err
	}
	var b bool
	err = json.Unmarshal(r.Value, &b)
	return b, err
}

// integer resolves an integer (or long) reference; def when it is missing.
func (p params) integer(v *ValueRef, what string, def int64) (int64, error) {
	r, err := p.want(v, what, TypeInteger, TypeLong)
	if err != nil || r == nil {
		return def, err
	}
	return strconv.ParseInt(string(bytes.TrimSpace(r.Value)), 10, 64)
}

// isRef reports whether a JSON object is a value reference.
func isRef(m map[string]json.RawMessage) bool {
	_, t := m["@type"]
	_, v := m["@value"]
	return t && v && len(m) == 2
}

// value resolves a Graylog ReferenceMap, ReferenceList or ValueReference
// into plain JSON.
func (p params) value(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage("null"), nil
	}
	switch raw[0] {
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		if isRef(m) {
			var v ValueRef
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, err
			}
			r, err := p.resolve(&v)
			if err != nil {
				return nil, err
			}
			return r.Value, nil
		}
		out := make(map[string]json.RawMessage, len(m))
		for k, v := range m {
			r, err := p.value(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		}
		return json.Marshal(out)
	case '[':
		var l []json.RawMessage
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		for i, v := range l {
			r, err := p.value(v)
			if err != nil {
				return nil, err
			}
			l[i] = r
		}
		return json.Marshal(l)
	}
	return raw, nil
}

// valueMap resolves a ReferenceMap into plain values by key.
func (p params) valueMap(raw json.RawMessage) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return out, nil
	}
	resolved, err := p.value(raw)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(resolved, &out); err != nil {
		return nil, fmt.Errorf("a reference map is a JSON object")
	}
	return out, nil
}

// toRefs turns plain JSON into a ReferenceMap / ReferenceList of literal
// references, as Graylog exports configurations.
func toRefs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = toRefs(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toRefs(e)
		}
		return out
	}
	if r := ref(v); r != nil {
		return r
	}
	return nil
}

// refsOf re-decodes a Go value as JSON (numbers kept exact) and turns it
// into references.
func refsOf(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var plain any
	if err := dec.Decode(&plain); err != nil {
		return nil, err
	}
	return toRefs(plain), nil
}

// validateParameters checks an installation's parameter values against a
// pack's parameters as Graylog does: none unknown, none missing, each of
// its parameter's type.
func validateParameters(given map[string]ValueRef, declared []Parameter) (params, error) {
	types := make(map[string]string, len(declared))
	for _, d := range declared {
		types[d.Name] = d.Type
	}
	var unknown, missing, invalid []string
	for name := range given {
		if _, ok := types[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	for _, d := range declared {
		if _, ok := given[d.Name]; !ok {
			missing = append(missing, d.Name)
		}
	}
	for _, d := range declared {
		v, ok := given[d.Name]
		if ok && (v.Type != d.Type || checkLiteral(d.Type, v.Value) != nil) {
			invalid = append(invalid, d.Name)
		}
	}
	switch {
	case len(unknown) > 0:
		return nil, api.Errorf(api.Invalid, "Unknown parameters: %s", list(unknown))
	case len(missing) > 0:
		return nil, api.Errorf(api.Invalid, "Missing parameters: %s", list(missing))
	case len(invalid) > 0:
		return nil, api.Errorf(api.Invalid, "Invalid parameters: %s", list(invalid))
	}
	out := make(params, len(given))
	for k, v := range given {
		out[k] = v
	}
	return out, nil
}

// list writes names as Java writes a set: [a, b], here sorted.
func list(names []string) string {
	slices.Sort(names)
	return "[" + strings.Join(names, ", ") + "]"
}
