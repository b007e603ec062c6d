// Package javaregex holds the conventions of Java's java.util.regex that
// Graylog's users write beside their patterns, for the extractors and
// the pipeline functions that take them.
package javaregex

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Replacement translates a Java replacement string ($1, ${name}, \$, as
// Matcher.appendReplacement reads it) into a Go template for
// Regexp.Expand. A group number takes digits only while it names a group
// of re ("$10" with one group is group 1, then 0); a reference to a group
// re lacks is an error, as in Java (where it is thrown when a match is
// replaced).
func Replacement(repl string, re *regexp.Regexp) (string, error) {
	groups := re.NumSubexp()
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch c {
		case '\\':
			i++
			if i >= len(repl) {
				return "", errors.New("character to be escaped is missing")
			}
			if repl[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(repl[i])
			}
		case '$':
			i++
			if i >= len(repl) {
				return "", errors.New("illegal group reference: group index is missing")
			}
			if repl[i] == '{' {
				end := strings.IndexByte(repl[i:], '}')
				if end < 0 {
					return "", errors.New("named capturing group is missing trailing '}'")
				}
				name := repl[i+1 : i+end]
				if re.SubexpIndex(name) < 0 {
					return "", fmt.Errorf("no group with name {%s}", name)
				}
				b.WriteString("${" + name + "}")
				i += end
				continue
			}
			if repl[i] < '0' || repl[i] > '9' {
				return "", errors.New("illegal group reference")
			}
			ref := int(repl[i] - '0')
			for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' && ref*10+int(repl[i+1]-'0') <= groups {
				i++
				ref = ref*10 + int(repl[i]-'0')
			}
			if ref > groups {
				return "", fmt.Errorf("no group %d", ref)
			}
			b.WriteString("${" + strconv.Itoa(ref) + "}")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
