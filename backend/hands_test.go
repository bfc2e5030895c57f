package backend

import (
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/engine"
)

var updateHands = flag.Bool("update-hands", false, "rewrite frontend/src/lib/testdata/hands.json")

// The rule as the page must show it: for the person's input and for
// another agent's act, each state's hands (and "none" for a device with no
// run), in the vector the page's own rule is tested on.
func TestHandsVectorIsTheRule(t *testing.T) {
	v := map[string]map[string]string{}
	for _, k := range []inputKind{personsInput, agentsAct} {
		row := map[string]string{"none": handsFor(k, engine.Idle, false).String()}
		for _, st := range engine.States {
			row[st.String()] = handsFor(k, st, true).String()
		}
		v[k.String()] = row
	}
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("..", "frontend", "src", "lib", "testdata", "hands.json")
	if *updateHands {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != string(got) {
		t.Fatalf("%s is not the rule (run go test ./backend -run HandsVector -update-hands): %v\n%s", path, err, got)
	}
}

// The rule of who may touch, over every state a run can be in: the device
// is the person's only when no task runs on it; a run the person drives
// takes their input; every other live run takes over or takes nothing —
// never the device behind the run's back. And it agrees with the page's
// own reading of the same table (mirrorTakesOver in lib/controls.ts: a
// click takes over exactly where the state accepts take_over).
func TestHandsOverEveryState(t *testing.T) {
	if h := handsFor(personsInput, engine.Idle, false); h != toDevice {
		t.Fatalf("no run: %v", h)
	}
	want := map[engine.State]hands{
		engine.Idle: toNobody, engine.Planning: toTakeOver, engine.Executing: toTakeOver,
		engine.WaitingForStability: toTakeOver, engine.WaitingForUser: toTakeOver, engine.Paused: toTakeOver,
		engine.Manual: toRun, engine.Done: toDevice, engine.Failed: toDevice, engine.Stopped: toDevice,
	}
	for _, st := range engine.States {
		got := handsFor(personsInput, st, true)
		if got != want[st] {
			t.Errorf("%s: %v, want %v", st, got, want[st])
		}
		if got == toDevice && !st.Terminal() {
			t.Errorf("%s: the device is handed over while its run lives", st)
		}
		if (got == toTakeOver) != (st.Accepts(engine.OnTakeOver) && st != engine.Manual) {
			t.Errorf("%s: takes over %v, but the table says take_over is accepted: %v", st, got == toTakeOver, st.Accepts(engine.OnTakeOver))
		}
	}
}

// Another agent's act (MCP act) has its own row: it reaches a device only
// while no task runs on it, and never drives, takes over or slips past a
// live run, whatever the run's state.
func TestAnAgentsActReachesOnlyADeviceWithNoLiveRun(t *testing.T) {
	if h := handsFor(agentsAct, engine.Idle, false); h != toDevice {
		t.Fatalf("no run: %v", h)
	}
	for _, st := range engine.States {
		want := toNobody
		if st.Terminal() {
			want = toDevice
		}
		if got := handsFor(agentsAct, st, true); got != want {
			t.Errorf("%s: an agent's act goes to %v, want %v", st, got, want)
		}
	}
}

// Inside the backend too, the person's input reaches a device or a run only
// from the input manager: Hand and its live-touch half are the only
// functions that call a run's Input or InputDone or a desk's Do or Touch.
func TestOnlyTheInputManagerSendsThePersonsInput(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"Hand": true, "touch": true, "made": true}
	fset := token.NewFileSet()
	seen := map[string]bool{}
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
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				target := callName(sel)
				switch target {
				case "run.Input", "run.InputDone", "desks.Do", "desks.Touch":
					seen[target] = true
					if !allowed[fd.Name.Name] {
						t.Errorf("%s: %s calls %s: the person's input goes only through Hand", fset.Position(call.Pos()), fd.Name.Name, target)
					}
				}
				return true
			})
		}
	}
	if len(seen) != 4 {
		t.Fatalf("the check saw %v: it looks in the wrong place", seen)
	}
}

// callName names a call's receiver as "<last name>.<method>" (b.desks.Do →
// "desks.Do", run.Input → "run.Input").
func callName(sel *ast.SelectorExpr) string {
	switch x := sel.X.(type) {
	case *ast.Ident:
		return x.Name + "." + sel.Sel.Name
	case *ast.SelectorExpr:
		return x.Sel.Name + "." + sel.Sel.Name
	}
	return ""
}
