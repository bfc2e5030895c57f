package engine

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The chart's picture in docs/develop.md is drawn from the chart: a row
// added, moved or dropped fails here until the picture is drawn again
// (`go test ./engine -run ChartPicture -update`).
func TestChartPicture(t *testing.T) {
	const begin, end = "<!-- chart:begin (go test ./engine -run ChartPicture -update) -->\n", "<!-- chart:end -->\n"
	path := filepath.Join("..", "docs", "develop.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no chart markers", path)
	}
	want := "```mermaid\n" + Mermaid() + "```\n"
	got := s[i+len(begin) : j]
	if *update {
		s = s[:i+len(begin)] + want + s[j:]
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("the chart in %s is not the chart's picture; run go test ./engine -run ChartPicture -update and review it", path)
	}
}

// Every row is drawn: its trigger appears on an arrow from its state.
func TestChartPictureDrawsEveryRow(t *testing.T) {
	pic := Mermaid()
	c := newChart()
	for _, r := range chartRows() {
		on := r.on.String()
		if !strings.Contains(pic, "    "+c.id(r.from)+" --> ") || !strings.Contains(pic, ": "+on) {
			t.Errorf("row %s/%s is not drawn", c.id(r.from), on)
		}
	}
}

// The chart's shape: every state but the root has a known parent, every
// State has exactly one node, and every substate is of its parent's State.
func TestChartNodes(t *testing.T) {
	c := newChart()
	for n, spec := range c.nodes {
		if n == nRun {
			continue
		}
		p, ok := c.nodes[spec.parent]
		if !ok {
			t.Errorf("%s has no parent", spec.name)
			continue
		}
		if !p.plain && !spec.plain && p.state != spec.state {
			t.Errorf("%s is a substate of %s but is State %s", spec.name, p.name, spec.state)
		}
	}
	for _, s := range States {
		if _, ok := c.of[s]; !ok {
			t.Errorf("State %s has no node", s)
		}
	}
}

// A trigger is resolved from the innermost state outwards: a substate's
// row overrides its parent's, a parent's row serves its substates, and a
// guard that refuses says why.
func TestChartResolve(t *testing.T) {
	c := newChart()
	l := newCore(coreEnv{}, "goal")
	cases := []struct {
		name string
		leaf node
		m    msg
		from node // the row's state; 0: none
		why  string
	}{
		{"a hand back with nothing on its way", nManualIdle, msgHandBack{}, nManualIdle, ""},
		{"a hand back waits for the input", nManualInFlight, msgHandBack{}, nManual, ""},
		{"stop from the root of the live states", nExecPauseAsked, msgStop{}, nLive, ""},
		{"the device back to a person's pause", nPausedByPerson, msgDeviceBack{}, 0, ""},
		{"the device back to a device's pause", nDeviceAway, msgDeviceBack{}, nDeviceAway, ""},
		{"confirm with nothing to confirm", nWaitingForUser, msgConfirm{}, 0, "nothing waits for confirmation"},
		{"everything while ending", nEnding, msgPause{}, nEnding, ""},
		{"a person's input after the end", nDone, msgManualDone{}, nRun, ""},
		{"pause while idle", nIdle, msgPause{}, 0, ""},
	}
	for _, tc := range cases {
		r, why := c.resolve(l, tc.leaf, tc.m)
		switch {
		case tc.from == 0 && r != nil:
			t.Errorf("%s: row of %s taken", tc.name, c.id(r.from))
		case tc.from != 0 && (r == nil || r.from != tc.from):
			t.Errorf("%s: row %+v, want one of %s", tc.name, r, c.id(tc.from))
		case why != tc.why:
			t.Errorf("%s: why %q, want %q", tc.name, why, tc.why)
		}
	}
}

// A command the chart refuses by a guard is an *IllegalError that says why.
func TestChartGuardRefusal(t *testing.T) {
	l := newCore(coreEnv{}, "goal")
	l.state = WaitingForUser
	l.request = &Request{Kind: AskQuestion, Message: "which?"}
	err := l.turn(message{on: OnConfirm})
	var ill *IllegalError
	if !errors.As(err, &ill) || ill.Why != "nothing waits for confirmation" || l.state != WaitingForUser {
		t.Fatalf("confirm of a question: %v, state %s", err, l.state)
	}
	if err := l.turn(message{on: OnResume}); !errors.As(err, &ill) || !strings.Contains(ill.Why, "not for resume") {
		t.Fatalf("resume of a question: %v", err)
	}
}

// A move's work runs in the chart's order: the exit of the state left,
// then the change, then the entry of the state entered; a move from a
// state to itself is internal.
func TestChartTransitOrder(t *testing.T) {
	l := newCore(coreEnv{}, "goal")
	l.state, l.inPause.how = Paused, pausedDeviceAway
	l.inv.work, l.gen = nDeviceAway, l.newID() // its watch runs
	l.on = OnTakeOver
	w := make(chan error, 1)
	l.inExec.takeOvers = []chan error{w}
	l.transit(Manual, "the person took over", nil)
	var kinds []string
	for _, fx := range l.take() {
		switch f := fx.(type) {
		case fxUnwatch:
			kinds = append(kinds, "exit Paused")
		case fxEmit:
			if f.e.Kind == KindState {
				kinds = append(kinds, "state "+f.e.State.State.String())
			}
		case fxReply:
			kinds = append(kinds, "entry Manual")
		}
	}
	if got := strings.Join(kinds, ", "); got != "exit Paused, state Manual, entry Manual" {
		t.Errorf("order: %s", got)
	}
	if l.inPause.how != pausedByPerson || l.inv.work != 0 {
		t.Errorf("Paused's substate outlived it: %v %v", l.inPause.how, l.inv.work)
	}
	l.state, l.inExec.how = Executing, execPauseAsked
	l.transit(Executing, "goal edited", nil)
	if l.inExec.how != execPauseAsked {
		t.Error("a move from Executing to itself left it")
	}
}

// Each row's work takes its trigger's event type (with asserts it): a row
// given a do for another event fails here, not in a run.
func TestChartRowsTakeTheirEventType(t *testing.T) {
	for _, r := range chartRows() {
		e := message{on: r.on}.typed()
		if e == nil || e.trigger() != r.on {
			t.Errorf("trigger %s has no event type", r.on)
			continue
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					var te *runtime.TypeAssertionError
					if err, ok := p.(error); ok && errors.As(err, &te) {
						t.Errorf("row %d/%s: its work takes another event: %v", r.from, r.on, p)
					}
				}
			}()
			l := newCore(coreEnv{clock: wallClock{}}, "goal")
			l.state = Manual
			_ = r.do(l, e)
		}()
	}
}

// Only the interpreter writes the run's state (transit, in chart_run.go),
// enters Ending (finish) and runs what states invoke (chart_invoke.go: the
// invocations and their ids): a handler asks for a move (to, toFor, end)
// and the chart checks it. The core's files are read as Go, not as text.
func TestOnlyTheInterpreterWritesTheState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	owned := map[string]bool{"state": true, "ending": true, "gen": true, "inv": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "chart_run.go" || name == "chart_invoke.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		check := func(at token.Pos, lhs ast.Expr) {
			for {
				sel, ok := lhs.(*ast.SelectorExpr)
				if !ok {
					return
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "l" && owned[sel.Sel.Name] {
					t.Errorf("%s: l.%s is written outside the interpreter", fset.Position(at), sel.Sel.Name)
				}
				lhs = sel.X // l.inv.work: inv is written too
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					check(n.Pos(), lhs)
				}
			case *ast.IncDecStmt:
				check(n.Pos(), n.X)
			}
			return true
		})
	}
}
