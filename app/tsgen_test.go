package app

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"tandem/engine"
	"tandem/internal/tsgen"
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
		Info{}, LoadedSettings{}, WelcomeStatus{}, DeviceEntry{}, PresetInfo{}, TestResult{}, RunDetail{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "frontend", "src", "lib", "gen", "types.ts")
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
