package app

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"tandem/eval"
	"testing"

	"tandem/backend"
	"tandem/devices"
	"tandem/engine"
	"tandem/internal/tsgen"
	"tandem/mirror"
	"tandem/popout"
)

var updateTS = flag.Bool("update-ts", false, "rewrite frontend/src/lib/gen/types.ts")

// The Go structs the UI receives (the engine's events and what the bound
// methods return), written as TypeScript. The UI's own types are checked
// against this file at compile time (frontend/src/lib/gen/check.ts); this
// test fails when the file no longer matches the Go structs.
func TestTypeScriptTypesMatchGo(t *testing.T) {
	got, err := tsgen.Generate("// Code generated from the Go structs the UI receives by\n"+
		"// `go test ./app -run TypeScriptTypes -update-ts`. DO NOT EDIT.\n",
		engine.Event{}, engine.Region{},
		backend.Info{}, backend.LoadedSettings{}, backend.WelcomeStatus{}, backend.DeviceEntry{}, backend.PresetInfo{}, backend.TestResult{}, backend.ScrcpyServer{}, backend.RunDetail{}, backend.GroupResult{}, popout.Config{}, MCPAccess{}, mirror.Press{})
	if err != nil {
		t.Fatal(err)
	}
	got += boundMethodsTS()
	goldenTS(t, filepath.Join("..", "frontend", "src", "lib", "gen", "types.ts"), got)
}

// The Evaluate view's structs, in a file of their own (the types file
// keeps to the house's size).
func TestTypeScriptEvalTypesMatchGo(t *testing.T) {
	got, err := tsgen.Generate("// Code generated from the Go structs the Evaluate view receives by\n"+
		"// `go test ./app -run TypeScript -update-ts`. DO NOT EDIT.\n",
		eval.Evaluation{}, eval.EvalSummary{}, eval.Progress{})
	if err != nil {
		t.Fatal(err)
	}
	goldenTS(t, filepath.Join("..", "frontend", "src", "lib", "gen", "eval.ts"), got)
}

// The Chores view's structs, in a file of their own; the run a chore
// starts is the Snapshot of types.ts.
func TestTypeScriptChoreTypesMatchGo(t *testing.T) {
	got, err := tsgen.Generate("// Code generated from the Go structs the Chores view receives by\n"+
		"// `go test ./app -run TypeScript -update-ts`. DO NOT EDIT.\n",
		tsgen.Import{From: "./types", Types: []any{engine.Snapshot{}}},
		backend.Chore{}, backend.ChoreDraft{}, backend.ChoreStart{}, backend.ChoresNews{})
	if err != nil {
		t.Fatal(err)
	}
	goldenTS(t, filepath.Join("..", "frontend", "src", "lib", "gen", "chores.ts"), got)
}

// goldenTS compares a generated file with its copy in the tree, writing it
// with -update-ts.
func goldenTS(t *testing.T, path, got string) {
	t.Helper()
	if *updateTS {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./app -run TypeScriptTypes -update-ts)", err)
	}
	if got != string(want) {
		t.Errorf("%s no longer matches the Go structs; run go test ./app -run TypeScriptTypes -update-ts, then fix the UI's types that frontend/src/lib/gen/check.ts names", path)
	}
}

// boundMethodsTS names every method Wails binds, by service (app/api.go):
// the page routes each call to its service by this list, and its Bound
// interface (frontend/src/lib/backend.ts) must list exactly these methods
// (gen/check.ts).
func boundMethodsTS() string {
	var b strings.Builder
	b.WriteString("\n/** The methods Wails binds, by service (app/api.go): window.go.app.<service>.<method>. */\n")
	b.WriteString("export const boundServices = {\n")
	for _, svc := range newServices(&App{}).bound() {
		t := reflect.TypeOf(svc)
		var names []string
		for i := range t.NumMethod() {
			names = append(names, "'"+t.Method(i).Name+"'")
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "  %s: [%s],\n", t.Elem().Name(), strings.Join(names, ", "))
	}
	b.WriteString("} as const\n\n/** Every bound method's name. */\n")
	b.WriteString("export type BoundMethod = (typeof boundServices)[keyof typeof boundServices][number]\n")
	return b.String()
}

// The page can call every exported method of a bound service; the App
// itself binds nothing, so its lifecycle (starting the mirror server,
// stopping every run) cannot be called, and no method is on two services
// (the page routes a call by its name).
func TestOnlyTheServicesAreBound(t *testing.T) {
	if n := reflect.TypeFor[*App]().NumMethod(); n != 0 {
		t.Errorf("App has %d exported methods: every service embeds it, so Wails would bind them on each", n)
	}
	seen := map[string]string{}
	total := 0
	for _, svc := range newServices(&App{}).bound() {
		typ := reflect.TypeOf(svc)
		for i := range typ.NumMethod() {
			name := typ.Method(i).Name
			if other, ok := seen[name]; ok {
				t.Errorf("%s is on %s and %s", name, other, typ.Elem().Name())
			}
			seen[name] = typ.Elem().Name()
			total++
		}
		for _, name := range []string{"Start", "Shutdown", "Startup", "Close", "Begin"} {
			if _, ok := typ.MethodByName(name); ok {
				t.Errorf("%s.%s is exported, so the page could call it", typ.Elem().Name(), name)
			}
		}
	}
	if total < 40 {
		t.Fatalf("only %d bound methods: the reflection is looking at the wrong types", total)
	}
}

// A device another Tandem drives, with its run read from the record
// (backend/elsewhere.go), in a file of its own; its run is the Snapshot,
// its holder the Holder of types.ts.
func TestTypeScriptElsewhereTypesMatchGo(t *testing.T) {
	got, err := tsgen.Generate("// Code generated from the Go structs of a device another Tandem drives by\n"+
		"// `go test ./app -run TypeScript -update-ts`. DO NOT EDIT.\n",
		tsgen.Import{From: "./types", Types: []any{engine.Snapshot{}, devices.Holder{}}},
		backend.ElsewhereRun{})
	if err != nil {
		t.Fatal(err)
	}
	goldenTS(t, filepath.Join("..", "frontend", "src", "lib", "gen", "elsewhere.ts"), got)
}
