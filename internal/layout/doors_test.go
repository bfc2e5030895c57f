package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The doors (the window, the command line) start, resume and read runs,
// and make model clients, only through the backend: the imports rule lets
// them name the engine's types, so this names the calls that would make a
// second Tandem beside the backend's.
var backendOnly = map[string][]string{
	"engine": {"New", "Resume", "ReadRecord", "ReadRecordAll"},
	"model":  {"NewClient", "NewPlanner"},
}

// doorCalls lists the calls in dir's production files that only the
// backend may make, as "file: pkg.Func".
func doorCalls(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			for _, fn := range backendOnly[pkg.Name] {
				if sel.Sel.Name == fn {
					found = append(found, filepath.Base(f)+": "+pkg.Name+"."+fn)
				}
			}
			return true
		})
	}
	return found
}

func TestDoorsGoThroughTheBackend(t *testing.T) {
	root := moduleRoot(t)
	for _, door := range []string{"app", "cli", "mcpserver", "."} {
		for _, c := range doorCalls(t, filepath.Join(root, door)) {
			t.Errorf("%s/%s: a door calls what only the backend may (start runs and model clients through tandem/backend)", door, c)
		}
	}
}

// The check finds such a call where there is one: in the backend.
func TestDoorCallsAreFound(t *testing.T) {
	got := strings.Join(doorCalls(t, filepath.Join(moduleRoot(t), "backend")), "|")
	for _, want := range []string{"engine.New", "engine.Resume", "model.NewClient", "model.NewPlanner"} {
		if !strings.Contains(got, want) {
			t.Errorf("the check does not see %s in the backend (found %q)", want, got)
		}
	}
}
