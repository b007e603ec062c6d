package loggers

import "github.com/loggate/loggate/router/api"

// MaxNameLen bounds a logger name set through the API; every set name stays
// in memory for the life of the process.
const MaxNameLen = 255

// CheckName returns an api.Invalid error unless name is a dotted identifier:
// non-empty segments of ASCII letters, digits, '_' and '-', joined by dots,
// at most MaxNameLen bytes. Names become part of permission strings
// (loggers:edit:<name>), so ':', ',' and '*' must never get through.
func CheckName(name string) error {
	if name == "" {
		return api.Errorf(api.Invalid, "Invalid logger name: it must not be empty")
	}
	if len(name) > MaxNameLen {
		return api.Errorf(api.Invalid, "Invalid logger name: it is longer than %d characters", MaxNameLen)
	}
	segment := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.':
			if segment == 0 {
				return api.Errorf(api.Invalid, "Invalid logger name %q: empty segment at offset %d", name, i)
			}
			segment = 0
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
			segment++
		default:
			return api.Errorf(api.Invalid, "Invalid logger name %q: use letters, digits, '_', '-' and dots", name)
		}
	}
	if segment == 0 {
		return api.Errorf(api.Invalid, "Invalid logger name %q: it must not end with a dot", name)
	}
	return nil
}
