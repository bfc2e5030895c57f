package engine

import (
	"fmt"
	"sort"
	"strings"
)

// Mermaid draws the chart as a Mermaid state diagram: the states nested in
// their parents, each state's entry, exit, invoked work and timeout, and
// one arrow per row and target (a row that keeps the state is drawn as a
// loop marked internal). docs/develop.md shows it between the chart
// markers; a test fails when the two differ, so a new row fails until it
// is drawn (`go test ./engine -run ChartPicture -update` redraws it).
func Mermaid() string {
	c := newChart()
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	c.drawChildren(&b, 0, 1)
	b.WriteString("\n")
	for _, r := range chartRows() {
		c.drawRow(&b, r)
	}
	return b.String()
}

// children lists n's substates in value order.
func (c *chart) children(n node) []node {
	var out []node
	for k, spec := range c.nodes {
		if spec.parent == n {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// id is n's unique name in the picture (a substate carries its parent's).
func (c *chart) id(n node) string {
	spec := c.nodes[n]
	if p, ok := c.nodes[spec.parent]; ok && !p.plain {
		return c.id(spec.parent) + "_" + spec.name
	}
	return spec.name
}

func (c *chart) drawChildren(b *strings.Builder, n node, depth int) {
	ind := strings.Repeat("    ", depth)
	for _, k := range c.children(n) {
		spec, id := c.nodes[k], c.id(k)
		ds := describe(spec)
		switch {
		case id != spec.name:
			fmt.Fprintf(b, "%sstate \"%s\" as %s\n", ind, spec.name, id)
		case len(ds) == 0 && len(c.children(k)) == 0:
			fmt.Fprintf(b, "%s%s\n", ind, id) // declared here, so drawn in its parent
		}
		for _, d := range ds {
			fmt.Fprintf(b, "%s%s : %s\n", ind, id, d)
		}
		if len(c.children(k)) > 0 {
			fmt.Fprintf(b, "%sstate %s {\n", ind, id)
			c.drawChildren(b, k, depth+1)
			fmt.Fprintf(b, "%s}\n", ind)
		}
		if k == nRun {
			fmt.Fprintf(b, "%s[*] --> %s\n", ind, c.id(nIdle))
		}
		if spec.state.Terminal() && !spec.plain {
			fmt.Fprintf(b, "%s%s --> [*]\n", ind, id)
		}
	}
}

// describe is what a state does besides its rows, in the picture.
func describe(spec nodeSpec) []string {
	var out []string
	if spec.onEntry.do != nil {
		out = append(out, "entry: "+spec.onEntry.words)
	}
	if spec.onExit.do != nil {
		out = append(out, "exit: "+spec.onExit.words)
	}
	if spec.invoke.words != "" {
		out = append(out, "invoke: "+spec.invoke.words)
	}
	if spec.every != nil {
		out = append(out, "every trigger: what is on its way is recorded, then the end")
	}
	if spec.timeout.words != "" {
		out = append(out, "after "+spec.timeout.words)
	}
	return out
}

func (c *chart) drawRow(b *strings.Builder, r row) {
	on := r.on.String()
	if r.guard != nil {
		on += " [guarded]"
	}
	from := c.id(r.from)
	if len(r.to) == 0 {
		fmt.Fprintf(b, "    %s --> %s : %s (internal)\n", from, from, on)
		return
	}
	for _, s := range r.to {
		to := c.id(c.of[s])
		if c.nodes[r.from].state == s && !c.nodes[r.from].plain {
			how := "internal"
			if c.reenters[reentry{r.from, r.on}] {
				how = "re-enters"
			}
			fmt.Fprintf(b, "    %s --> %s : %s (%s)\n", from, from, on, how)
			continue
		}
		fmt.Fprintf(b, "    %s --> %s : %s\n", from, to, on)
	}
}
