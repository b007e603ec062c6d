package compat

import (
	"strings"
)

// All returns every version change loggate applies, oldest release first.
func All(users Users) []*Change {
	return NewChain("", OutputIDs(), CSRFHeader(), TokenIDs(), UsersByID(users)).Changes()
}

// Changelog renders the changes as the lines of CHANGELOG.md's API
// compatibility section, newest release first.
func Changelog(changes []*Change) string {
	var b strings.Builder
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		b.WriteString("- **" + c.Release.String() + "** — " + c.Description + "\n")
	}
	return b.String()
}
