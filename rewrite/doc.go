// Package rewrite holds the primitives the compat chain and the router use to
// convert requests and responses between API releases: path templates,
// field edits on raw JSON bytes, a capturing response writer and
// Jackson-compatible pretty printing.
//
// Everything here works on the bytes as they travel: no value is decoded into
// Go types and encoded again, so converting a response costs a validating
// pass and an editing pass over its body and, when nothing needs converting,
// no allocation at all.
//
// # Field paths
//
// RenameField, DeleteField and SetField address objects with a path in gjson
// syntax, in which a "#" segment stands for every element of an array:
//
//	""                      the document itself
//	"outputs"               the object at key outputs
//	"tokens.#"              every element of the tokens array
//	"streams.#.outputs.#"   every output of every stream
//	"streams.0"             the first stream
//	`a\.b`                  the object at key "a.b"
//
// Addressed values that are not objects, and segments that lead nowhere, are
// skipped. A key segment follows the first member of that name, as gjson
// does. Wildcards, queries, pipes and modifiers are rejected with
// ErrInvalidPath. Member names are compared after JSON unescaping, so
// "\u0069d" is the member id.
//
// Each edit validates the document, then copies it once, splicing in the
// changes; the input slice is never modified. When no addressed object needs
// a change, the input is returned as it is and nothing is allocated.
package rewrite
