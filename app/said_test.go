package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tandem/backend"
	"tandem/engine"
	"tandem/engine/device"
)

// Every bound method that can fail hands its error to toUI first, so the
// page always receives a code it can word in the person's language.
func TestBoundErrorsAreSaid(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	services := map[string]bool{}
	for _, svc := range newServices(&App{}).bound() {
		services[reflect.TypeOf(svc).Elem().Name()] = true
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() || fd.Type.Results == nil {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); !ok || !services[fmt.Sprint(star.X)] {
				continue
			}
			res := fd.Type.Results.List
			if id, ok := res[len(res)-1].Type.(*ast.Ident); !ok || id.Name != "error" {
				continue
			}
			checked++
			if !startsWithToUI(fd) {
				t.Errorf("%s: %s.%s returns an error but does not start with `defer toUI(&err)`", fset.Position(fd.Pos()), fmt.Sprint(fd.Recv.List[0].Type.(*ast.StarExpr).X), fd.Name.Name)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d bound methods that return errors found: the check looks in the wrong place", checked)
	}
}

func startsWithToUI(fd *ast.FuncDecl) bool {
	if len(fd.Body.List) == 0 {
		return false
	}
	def, ok := fd.Body.List[0].(*ast.DeferStmt)
	if !ok {
		return false
	}
	fn, ok := def.Call.Fun.(*ast.Ident)
	return ok && fn.Name == "toUI"
}

func TestSayErrorNamesTheCase(t *testing.T) {
	for _, c := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("start: %w", backend.ErrDeviceBusy), "device_busy"},
		{&engine.IllegalError{State: engine.Done, Trigger: engine.OnPause}, "illegal"},
		{&backend.FieldError{Field: "base_url", Msg: "bad"}, "field"},
		{fmt.Errorf("open: %w", device.ErrGone), "device_gone"},
		{errors.New("something else"), "error"},
	} {
		var err error = c.err
		toUI(&err)
		var s backend.Said
		if json.Unmarshal([]byte(err.Error()), &s) != nil || s.Code != c.code || s.Text != c.err.Error() {
			t.Errorf("%v: said %s, want code %s with the text", c.err, err.Error(), c.code)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%v: the Said no longer wraps the error", c.err)
		}
		before := err.Error()
		toUI(&err)
		if err.Error() != before {
			t.Errorf("%v: said twice", c.err)
		}
	}
	var none error
	toUI(&none)
	if none != nil {
		t.Error("no error stays no error")
	}
}
