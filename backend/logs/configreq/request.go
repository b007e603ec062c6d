package configreq

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Request is a type's configuration schema: its fields in form order.
type Request []Field

// Field returns the field with that name.
func (r Request) Field(name string) (Field, bool) {
	for _, f := range r {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// MarshalJSON writes Graylog's ConfigurationRequest JSON: an object from
// field name to its description, in form order.
func (r Request) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeKeyValue(&b, f.Name, f.jsonForm()); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Mask returns config with every non-empty password replaced by Mask, for
// showing to clients. config is not modified.
func (r Request) Mask(config map[string]any) map[string]any {
	out := make(map[string]any, len(config))
	for k, v := range config {
		if f, ok := r.Field(k); ok && f.Kind == Text && f.Has(IsPassword) {
			if s, _ := v.(string); s != "" {
				v = Mask
			}
		}
		out[k] = v
	}
	return out
}

// Typed returns a stored configuration with each declared field's value in
// its Go type: numbers read back from JSON as float64 become int again, so
// that a configuration is the same before and after the store. Undeclared
// keys and values of another type are kept as they are.
func (r Request) Typed(stored map[string]any) map[string]any {
	out := make(map[string]any, len(stored))
	for k, v := range stored {
		if f, ok := r.Field(k); ok && f.Kind == Number {
			switch n := v.(type) {
			case float64:
				if n == math.Trunc(n) && n >= math.MinInt32 && n <= math.MaxInt32 {
					v = int(n)
				}
			case json.Number:
				if i, err := strconv.ParseInt(string(n), 10, 32); err == nil {
					v = int(i)
				}
			}
		}
		out[k] = v
	}
	return out
}
