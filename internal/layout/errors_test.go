package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Errors carry their answer themselves, or are translated where a service
// returns them: no package tells the API at init how to answer its errors,
// as the store and the query parser once did with a classifier registry.
func TestNoInitTouchesTheAPI(t *testing.T) {
	root := moduleRoot(t)
	found := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "fixtures") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		found++
		rel, _ := filepath.Rel(root, p)
		for _, use := range initUsesOfAPI(t, p) {
			t.Errorf("%s: init uses %s: translate errors where the service returns them instead", filepath.ToSlash(rel), use)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 200 {
		t.Fatalf("read %d Go files: the walk is broken", found)
	}
}

func TestNoInitTouchesTheAPIDetects(t *testing.T) {
	src := `package store
import ("errors"; api "github.com/loggate/loggate/router/api")
var ErrNotFound = errors.New("not found")
func init() { api.RegisterClassifier(api.ClassifyAs(ErrNotFound, api.NotFound)) }`
	p := filepath.Join(t.TempDir(), "store.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := initUsesOfAPI(t, p); len(got) != 3 {
		t.Errorf("found %v, want the three uses of api", got)
	}
}

// initUsesOfAPI lists what the init functions of a file use of router/api.
func initUsesOfAPI(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == module+"router/api" {
			local = "api"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var uses []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "init" || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					uses = append(uses, local+"."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	return uses
}
