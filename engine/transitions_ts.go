package engine

import (
	"fmt"
	"strings"
)

// TypeScript renders the chart's rows for the UI: every state, and for
// each the person's commands it accepts with the states each may lead to.
// The UI derives its buttons from it (frontend/src/lib/controls.ts), so the
// table stays the one authority. The output is the checked-in file
// frontend/src/lib/gen/transitions.ts; a test fails when the two differ
// (`go test ./engine -run TypeScript -update` rewrites it).
func TypeScript() string {
	var b strings.Builder
	b.WriteString("// Code generated from the engine's statechart (engine/chart.go)\n")
	b.WriteString("// by `go test ./engine -run TypeScript -update`. DO NOT EDIT.\n\n")
	b.WriteString("export const states = [")
	for i, s := range States {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "'%s'", s)
	}
	b.WriteString("] as const\n\nexport type RunState = (typeof states)[number]\n\n")
	b.WriteString("/** States a run never leaves. */\nexport const terminal: readonly RunState[] = [")
	first := true
	for _, s := range States {
		if s.Terminal() {
			if !first {
				b.WriteString(", ")
			}
			first = false
			fmt.Fprintf(&b, "'%s'", s)
		}
	}
	b.WriteString("]\n\n/** The person's commands. */\nexport type Command =")
	for t := OnStart; t.IsCommand(); t++ {
		if _, ok := triggerNames[t]; ok {
			fmt.Fprintf(&b, "\n  | '%s'", t)
		}
	}
	b.WriteString("\n\n/** The commands each state accepts, and the states each may lead to; any other command is refused. */\n")
	b.WriteString("export const accepts: Record<RunState, Partial<Record<Command, readonly RunState[]>>> = {\n")
	c := theChart()
	for _, s := range States {
		fmt.Fprintf(&b, "  %s: {", s)
		n := 0
		for t := OnStart; t.IsCommand(); t++ {
			to, ok := c.lookup(s, t)
			if !ok {
				continue
			}
			if n > 0 {
				b.WriteString(",")
			}
			n++
			fmt.Fprintf(&b, " %s: [", t)
			for i, st := range to {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "'%s'", st)
			}
			b.WriteString("]")
		}
		if n > 0 {
			b.WriteString(" ")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return b.String()
}
