package grok

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// A reference is one %{NAME}, %{NAME:field} or %{NAME:field:type} in a
// pattern, in go-grok's syntax.
type reference struct {
	token string // the reference as written, "%{NUMBER:bytes:int}"
	name  string // the referenced pattern, "NUMBER"
	field string // the capture name, "bytes"; empty for %{NAME}
	typ   string // the conversion, "int"; empty for none
}

var (
	// refToken finds everything that reads as a reference: %{, a name and,
	// after a colon, anything up to the closing brace. It is wider than
	// go-grok's own syntax on purpose: go-grok leaves a reference it cannot
	// read (%{WORD:a-b}, Graylog's %{DATA:ts;date;yyyy}) in the regular
	// expression, where RE2 reads the braces as literal text, so such a
	// pattern would be saved and silently never match. %{2,3} (a repetition
	// of a literal %) has no colon after its name and is not a reference.
	refToken = regexp.MustCompile(`%\{(\w+)(?::([^{}]*))?\}`)
	// refSyntax is go-grok's reference syntax (its reusePattern), anchored.
	refSyntax = regexp.MustCompile(`^%\{(\w+)(?::([\w+.]+)(?::(\w+))?)?\}$`)
	// openRef finds what starts like a reference ("%{" and a letter or an
	// underscore) but is not one, such as "%{NOPE" without its brace:
	// RE2 reads it as literal text, so the pattern would be saved and
	// never match; Java's regular expressions, and so Graylog, refuse it.
	// "%{2,3}" (a repetition of a literal %) starts with a digit.
	openRef = regexp.MustCompile(`%\{[A-Za-z_]\S{0,30}`)
	// nameSyntax is what a pattern name must be to be referenced at all.
	nameSyntax = regexp.MustCompile(`^\w+$`)
)

// types are the conversions go-grok applies to %{NAME:field:type}.
var types = map[string]bool{"int": true, "long": true, "float": true, "double": true, "bool": true, "boolean": true, "string": true}

// parseReferences returns the references of pattern in order, one per
// occurrence. A reference go-grok cannot read, or one with a type go-grok
// does not convert to, is an error.
func parseReferences(pattern string) ([]reference, error) {
	if !strings.Contains(pattern, "%{") {
		return nil, nil
	}
	if open := openRef.FindString(refToken.ReplaceAllLiteralString(pattern, "")); open != "" {
		return nil, fmt.Errorf("%s is not a valid reference (no closing brace); use %%{NAME}, %%{NAME:field} or %%{NAME:field:type}", open)
	}
	var refs []reference
	for _, loc := range refToken.FindAllStringIndex(pattern, -1) {
		token := pattern[loc[0]:loc[1]]
		m := refSyntax.FindStringSubmatch(token)
		if m == nil {
			return nil, fmt.Errorf("%s is not a valid reference; use %%{NAME}, %%{NAME:field} or %%{NAME:field:type}", token)
		}
		if m[3] != "" && !types[m[3]] {
			return nil, fmt.Errorf("%s has the unsupported type %q; use int, long, float, double, bool, boolean or string", token, m[3])
		}
		refs = append(refs, reference{token: token, name: m[1], field: m[2], typ: m[3]})
	}
	return refs, nil
}

// checkSyntax reports a regular expression syntax error in pattern itself,
// with its references standing in as empty groups, so that the message
// quotes what the user wrote rather than the (possibly huge) expansion.
func checkSyntax(pattern string) error {
	if _, err := syntax.Parse(refToken.ReplaceAllLiteralString(pattern, "(?:)"), syntax.Perl); err != nil {
		return fmt.Errorf("invalid regular expression: %w", err)
	}
	return nil
}

// checkName reports why name cannot name a pattern.
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name must not be empty")
	case !nameSyntax.MatchString(name):
		return fmt.Errorf("the name %q may only contain letters, digits and underscores, as %%{NAME} references must", name)
	}
	return nil
}
