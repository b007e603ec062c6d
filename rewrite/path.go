package rewrite

import (
	"errors"
	"fmt"
)

// ErrInvalidPath is wrapped by the error a field edit returns for a path it
// cannot follow.
var ErrInvalidPath = errors.New("rewrite: invalid field path")

// checkPath accepts the subset of gjson path syntax the field edits follow:
// dot-separated keys (a backslash makes the next character literal), array
// indexes, and "#" for every element of an array. Wildcards, queries, pipes
// and modifiers are rejected rather than silently taken as literal keys.
func checkPath(path string) error {
	if path == "" {
		return nil
	}
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) {
			switch path[i] {
			case '\\':
				if i++; i == len(path) {
					return fmt.Errorf("%w %q: trailing backslash", ErrInvalidPath, path)
				}
				continue
			case '*', '?', '|':
				return fmt.Errorf("%w %q: %q is not supported", ErrInvalidPath, path, path[i])
			case '.':
			default:
				continue
			}
		}
		seg := path[start:i]
		switch {
		case seg == "":
			return fmt.Errorf("%w %q: empty segment", ErrInvalidPath, path)
		case seg[0] == '@' || seg[0] == '!':
			return fmt.Errorf("%w %q: modifiers and literals are not supported", ErrInvalidPath, path)
		case seg[0] == '#' && seg != "#":
			return fmt.Errorf("%w %q: queries are not supported", ErrInvalidPath, path)
		}
		start = i + 1
	}
	return nil
}

// nextSegment splits a path checked by checkPath into its first segment and
// the rest.
func nextSegment(path string) (seg, rest string) {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++
		case '.':
			return path[:i], path[i+1:]
		}
	}
	return path, ""
}

// arrayIndex parses a segment made only of digits.
func arrayIndex(seg string) (int, bool) {
	n := 0
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c < '0' || c > '9' || n > (1<<31)/10 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
