package compat_test

import (
	"os"
	"strings"
	"testing"

	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/internal/golden"
)

const changelogMarker = "<!-- generated from compat/: one line per version change; a test fails when it is out of date -->\n"

// TestChangelogIsCurrent keeps CHANGELOG.md's API compatibility section equal
// to the descriptions of the version changes (go test ./compat -update
// rewrites it).
func TestChangelogIsCurrent(t *testing.T) {
	const path = "../CHANGELOG.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	head, tail, ok := strings.Cut(doc, changelogMarker)
	if !ok {
		t.Fatalf("CHANGELOG.md lacks the marker %q", changelogMarker)
	}
	// The section runs to the next heading or the end.
	rest := ""
	if i := strings.Index(tail, "\n## "); i >= 0 {
		tail, rest = tail[:i+1], tail[i+1:]
	}
	want := compat.Changelog(compat.All(compat.Deps{}))
	if golden.Update() {
		if err := os.WriteFile(path, []byte(head+changelogMarker+want+rest), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if tail != want {
		t.Errorf("CHANGELOG.md's API compatibility section is out of date (go test ./compat -update):\n--- have\n%s--- want\n%s", tail, want)
	}
}
