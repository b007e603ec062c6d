// Package cef parses ArcSight Common Event Format (CEF) events as Graylog
// 4.0's parse_cef does: the seven header fields, the extension's key=value
// pairs, custom labels (cs1Label names cs1's value) and, on request, the
// full names of the CEF dictionary (src → sourceAddress), with values of
// the dictionary's numeric and date keys converted.
package cef

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// Event is one parsed CEF event.
type Event struct {
	Version            int64
	DeviceVendor       string
	DeviceProduct      string
	DeviceVersion      string
	DeviceEventClassID string
	Name               string
	Severity           string
	// Extensions are the extension's pairs in their order, unescaped.
	Extensions []Pair
}

// Pair is one key=value pair of the extension.
type Pair struct{ Key, Value string }

// ErrInvalid is returned for a string that is not a CEF event.
var ErrInvalid = errors.New("not a CEF event")

// prefix finds "CEF:<version>" at the start, or after a syslog-style
// "<timestamp> <host> " envelope (the timestamp must then parse). Unlike
// Graylog's parser, an event that starts with "CEF:" is never read as an
// envelope, even when a value holds " host CEF:0".
var prefix = regexp.MustCompile(`^(CEF:\d+)|^(?:(.+)\s+\S+\s+)(CEF:\d+)`)

// key finds extension keys: a word right before '=' (an escaped '\=' has
// a backslash before it, so it never ends a key).
var key = regexp.MustCompile(`\w+=`)

// Parse parses one event. Leading and trailing white space is ignored.
func Parse(s string) (Event, error) {
	var ev Event
	s = strings.TrimSpace(s)
	m := prefix.FindStringSubmatchIndex(s)
	if m == nil {
		return ev, ErrInvalid
	}
	start := m[2]
	if start < 0 {
		// Graylog's parser refuses an envelope whose timestamp it cannot
		// read; its host is not kept.
		if !envelopeTime(s[m[4]:m[5]]) {
			return ev, ErrInvalid
		}
		start = m[6]
	}
	parts := splitHeader(s[start:])
	// Java's split drops trailing empty parts: "…|Low|" has no extension
	// and "…|name||" lacks the severity.
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) < 7 {
		return ev, ErrInvalid
	}
	v, err := strconv.ParseInt(parts[0][len("CEF:"):], 10, 32)
	if err != nil {
		return ev, ErrInvalid
	}
	ev.Version = v
	h := make([]string, 6)
	for i := range h {
		h[i] = unescapeHeader(parts[i+1])
	}
	ev.DeviceVendor, ev.DeviceProduct, ev.DeviceVersion, ev.DeviceEventClassID, ev.Name, ev.Severity = h[0], h[1], h[2], h[3], h[4], h[5]
	if len(parts) > 7 {
		ev.Extensions = parseExtension(strings.Join(parts[7:], "|"))
	}
	return ev, nil
}

// splitHeader splits at each '|' not preceded by a backslash.
func splitHeader(s string) []string {
	var parts []string
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			parts = append(parts, s[last:i])
			last = i + 1
		}
	}
	return append(parts, s[last:])
}

// unescapeHeader undoes the header's escapes, \| and \\.
func unescapeHeader(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '|' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseExtension reads key=value pairs: a value runs to the next key, so
// it may hold spaces; text before the first key is ignored. A key seen
// twice keeps its later value, except that the last pair does not replace
// an earlier one (as Graylog's parser does).
func parseExtension(s string) []Pair {
	keys := key.FindAllStringIndex(s, -1)
	var out []Pair
	index := map[string]int{}
	for i, loc := range keys {
		end := len(s)
		if i+1 < len(keys) {
			end = keys[i+1][0]
		}
		k := s[loc[0] : loc[1]-1]
		v := unescapeValue(strings.TrimSpace(s[loc[1]:end]))
		if j, ok := index[k]; ok {
			if i < len(keys)-1 {
				out[j].Value = v
			}
			continue
		}
		index[k] = len(out)
		out = append(out, Pair{Key: k, Value: v})
	}
	return out
}

// unescapeValue undoes the extension's escapes: \= \\ \n \r (and \|).
func unescapeValue(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '=', '\\', '|':
				c = s[i+1]
				i++
			case 'n':
				c = '\n'
				i++
			case 'r':
				c = '\r'
				i++
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
