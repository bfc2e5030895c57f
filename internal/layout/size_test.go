package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house's size limits (issue 15): a file a newcomer can read at once,
// a function that fits on a screen.
const (
	maxFileLines = 600
	maxFuncLines = 80
)

// exempt lists what may exceed the limits and why: table data (one row per
// case, nothing to follow between rows) or generated code. Anything else
// over a limit fails the test; an entry that no longer exceeds it fails
// too, so the list only shrinks.
var exempt = map[string]string{
	"frontend/src/lib/i18n.svelte.ts": "table data: the UI's strings, one per line, in two languages",
}

// sources lists the module's hand-written source files, relative to the
// module root: Go, TypeScript and Svelte (generated bindings and
// dependencies left out).
func sources(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "dist", "wailsjs", "testdata", "build":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".ts", ".svelte":
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func lines(b []byte) int { return strings.Count(string(b), "\n") }

func TestFilesFitOnAFewScreens(t *testing.T) {
	root := moduleRoot(t)
	over := map[string]bool{}
	for _, f := range sources(t, root) {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if n := lines(b); n > maxFileLines {
			over[f] = true
			if _, ok := exempt[f]; !ok {
				t.Errorf("%s has %d lines (limit %d): split it by what its parts are about", f, n, maxFileLines)
			}
		}
	}
	for f, why := range exempt {
		if strings.HasPrefix(f, "func ") {
			continue
		}
		if !over[f] {
			t.Errorf("%s is exempt (%s) but within the limit now: remove it from exempt", f, why)
		}
	}
}

func TestFunctionsFitOnAScreen(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	over := map[string]bool{}
	for _, f := range sources(t, root) {
		if !strings.HasSuffix(f, ".go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if ast.IsGenerated(file) {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			fd, ok := n.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				return true
			}
			n0 := fset.Position(fd.Pos()).Line
			n1 := fset.Position(fd.End()).Line
			if l := n1 - n0 + 1; l > maxFuncLines {
				key := "func " + f + " " + fd.Name.Name
				over[key] = true
				if _, ok := exempt[key]; !ok {
					t.Errorf("%s:%d: %s has %d lines (limit %d): give its steps names", f, n0, fd.Name.Name, l, maxFuncLines)
				}
			}
			return false
		})
	}
	for k, why := range exempt {
		if strings.HasPrefix(k, "func ") && !over[k] {
			t.Errorf("%s is exempt (%s) but within the limit now: remove it from exempt", k, why)
		}
	}
}
