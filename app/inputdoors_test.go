package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tandem/backend"
	"tandem/engine/action"
	"tandem/mirror"
)

// inputDoors are the bound methods that take the person's input on a
// device; each hands it to the backend's input manager (backend.Hand),
// which alone decides where it goes (a group's press through
// backend.HandGroup, which hands it to Hand for each device). The pop-out's
// post is the backend's own door (postedInput), checked in the backend.
var inputDoors = []string{"MirrorAPI.MirrorGesture", "MirrorAPI.MirrorPress", "MirrorAPI.MirrorPressGroup", "MirrorAPI.MirrorTouch"}

// inputTypes are the parameter types that carry the person's input.
var inputTypes = []reflect.Type{reflect.TypeOf(action.Action{}), reflect.TypeOf(mirror.Press{}), reflect.TypeOf(backend.Input{}),
	reflect.TypeOf([]action.Action{})}

// No door decides who may touch a device: every bound method that takes an
// input (an action, a press, a touch's phase and point) is a listed door,
// and every listed door calls backend.Hand.
func TestEveryInputDoorAsksTheBackend(t *testing.T) {
	bodies := methodBodies(t)
	var found []string
	for _, svc := range newServices(&App{}).bound() {
		st := reflect.TypeOf(svc)
		for i := range st.NumMethod() {
			m := st.Method(i)
			name := st.Elem().Name() + "." + m.Name
			if !takesInput(m.Type) {
				continue
			}
			found = append(found, name)
			if !slices.Contains(inputDoors, name) && !editsAPlan(name) {
				t.Errorf("%s takes the person's input but is not a known door: send it through backend.Hand and list it in inputDoors", name)
			}
		}
	}
	for _, d := range inputDoors {
		if !slices.Contains(found, d) {
			t.Errorf("door %s is not bound (or takes no input any more): the list is stale", d)
		}
		if !strings.Contains(bodies[d], "a.b.Hand(") && !strings.Contains(bodies[d], "a.b.HandGroup(") {
			t.Errorf("%s does not hand its input to backend.Hand", d)
		}
	}
	// A door cannot call a run's own input methods: it holds a
	// backend.RunHandle, which has none (backend/handle_test.go).
}

// editsAPlan: EditPending takes actions, but they are the agent's queued
// plan the person edits, not input on the device.
func editsAPlan(name string) bool { return name == "RunsAPI.EditPending" }

// takesInput says whether a method's parameters carry an input: one of
// inputTypes, or a touch (a phase and a point: string, int, int).
func takesInput(mt reflect.Type) bool {
	var kinds []reflect.Kind
	for i := 1; i < mt.NumIn(); i++ { // 0 is the receiver
		in := mt.In(i)
		if in.Kind() == reflect.Pointer {
			in = in.Elem()
		}
		if slices.Contains(inputTypes, in) {
			return true
		}
		kinds = append(kinds, in.Kind())
	}
	for i := 0; i+2 < len(kinds); i++ {
		if kinds[i] == reflect.String && kinds[i+1] == reflect.Int && kinds[i+2] == reflect.Int {
			return true
		}
	}
	return false
}

// methodBodies maps "Service.Method" to its source, for every method of
// the app's production files.
func methodBodies(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		raw := fileText(t, f)
		for _, d := range src.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			recv := fd.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok {
				continue
			}
			out[id.Name+"."+fd.Name.Name] = raw[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
		}
	}
	return out
}
