package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ValidationError is Graylog's ValidationApiError: a 400 whose body names the
// fields that failed, {"type":"ValidationApiError","message":"Validation
// failed!","validation_errors":{"<field>":[{"error":"<text>"}]}}. Clients
// such as the web interface show each message beside its field.
type ValidationError struct {
	Fields map[string][]string
}

// Invalidf returns a ValidationError for one field. A failure that belongs to
// no field uses the field "_", as Graylog does.
func Invalidf(field, format string, args ...any) error {
	return &ValidationError{Fields: map[string][]string{field: {fmt.Sprintf(format, args...)}}}
}

// Add records another failure and returns v, so that validators can collect
// every failure of a body before answering.
func (v *ValidationError) Add(field, format string, args ...any) *ValidationError {
	if v.Fields == nil {
		v.Fields = map[string][]string{}
	}
	v.Fields[field] = append(v.Fields[field], fmt.Sprintf(format, args...))
	return v
}

// Err returns v as an error, or nil when nothing failed.
func (v *ValidationError) Err() error {
	if v == nil || len(v.Fields) == 0 {
		return nil
	}
	return v
}

// Error lists the failures, sorted by field, for logs and tests.
func (v *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("Validation failed!")
	for _, f := range slices.Sorted(maps.Keys(v.Fields)) {
		for _, msg := range v.Fields[f] {
			fmt.Fprintf(&b, " %s: %s;", f, msg)
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}

type validationBody struct {
	Type    string                         `json:"type"`
	Message string                         `json:"message"`
	Errors  map[string][]map[string]string `json:"validation_errors"`
}

func (v *ValidationError) body() validationBody {
	out := validationBody{Type: "ValidationApiError", Message: "Validation failed!", Errors: map[string][]map[string]string{}}
	for f, msgs := range v.Fields {
		for _, m := range msgs {
			out.Errors[f] = append(out.Errors[f], map[string]string{"error": m})
		}
	}
	return out
}
