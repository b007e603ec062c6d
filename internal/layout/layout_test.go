package layout

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/loggate/loggate/"

// rule forbids packages under from to import packages under any of deny,
// except the packages listed in allow.
type rule struct {
	why   string
	from  []string
	deny  []string
	allow []string
}

var rules = []rule{
	{
		why:  "compat knows no storage: it reaches resources only through the interfaces it declares",
		from: []string{"compat"},
		deny: []string{"backend", "legacy"},
	},
	{
		why:  "auth states its own contracts (Directory, Tokens, Sessions, ErrNotFound); resources implement them",
		from: []string{"auth"},
		deny: []string{"backend", "legacy"},
	},
	{
		why:   "the backend knows no old release: only the upstream gateway, which forwards what the chain converted, sees compat",
		from:  []string{"backend"},
		deny:  []string{"compat", "legacy"},
		allow: []string{"backend/upstream"},
	},
	{
		why:  "the shared handler contract depends on nothing it serves",
		from: []string{"router/api"},
		deny: []string{"backend", "legacy", "compat", "router"},
	},
}

func TestImportBoundaries(t *testing.T) {
	root := moduleRoot(t)
	pkgs := packages(t, root)
	if len(pkgs) < 50 {
		t.Fatalf("found %d packages under %s: the walk is broken", len(pkgs), root)
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// The rules catch what they are meant to: a synthetic tree that breaks
// each of them once.
func TestImportBoundariesDetect(t *testing.T) {
	pkgs := map[string][]string{
		"compat":                {module + "backend/store"},
		"auth":                  {module + "backend/access/users", module + "auth/permission"},
		"backend/logs/streams":  {module + "compat"},
		"backend/upstream":      {module + "compat"},
		"router/api":            {module + "router"},
		"backend/access/tokens": {module + "auth", module + "router/api"},
		"legacy/views":          {module + "compat", module + "backend/analysis/views"},
	}
	got := violations(pkgs)
	if len(got) != 4 {
		t.Fatalf("got %d violations, want 4 (compat, auth, streams, router/api):\n%s", len(got), strings.Join(got, "\n"))
	}
}

func violations(pkgs map[string][]string) []string {
	var out []string
	for _, r := range rules {
		for path, imports := range pkgs {
			if !under(path, r.from) || under(path, r.allow) {
				continue
			}
			for _, imp := range imports {
				rel, ok := strings.CutPrefix(imp, module)
				if !ok || under(rel, []string{path}) {
					continue
				}
				if under(rel, r.deny) {
					out = append(out, path+" imports "+rel+": "+r.why)
				}
			}
		}
	}
	return out
}

// under reports whether path is one of dirs or inside one of them.
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// packages maps each package directory of the module (relative, slash
// separated) to its non-test imports.
func packages(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "fixtures") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(p, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = pkg.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
