package observe

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strconv"
	"strings"
)

// Element is one thing on the screen a person could act on or read, as the
// compact state lists it. The JSON shape is design.md's (`tandem compress`).
type Element struct {
	I    int    `json:"i"`
	Text string `json:"text"`
	Type string `json:"type"`
	// Bounds are [left, top, right, bottom] in device pixels, clipped to
	// the screen.
	Bounds [4]int `json:"bounds"`
	// Actions the element accepts: tap, long_press, type, scroll. Empty for
	// text that is only there to be read.
	Actions []string `json:"actions"`
}

// Rect returns the bounds as a rectangle.
func (e Element) Rect() image.Rectangle {
	return image.Rect(e.Bounds[0], e.Bounds[1], e.Bounds[2], e.Bounds[3])
}

// Compact is a compressed uiautomator dump.
type Compact struct {
	Screen   [2]int    `json:"screen"`
	Elements []Element `json:"elements"`
	// Tokens is the o200k token count of the compact JSON (screen and
	// elements); RawTokens that of the dump it came from.
	Tokens    int `json:"tokens"`
	RawTokens int `json:"raw_tokens"`
	// Rotation is the dump's rotation attribute (0–3). Bounds are reported
	// as the dump gives them; some emulators keep portrait bounds while
	// saying rotation 1, so nothing here rotates coordinates.
	Rotation int `json:"-"`
	// Packages are the apps whose nodes appear, in order of appearance.
	Packages []string `json:"-"`
}

// Rects maps each element's index to its bounds (for model.Geometry).
func (c *Compact) Rects() map[int]image.Rectangle {
	m := make(map[int]image.Rectangle, len(c.Elements))
	for _, e := range c.Elements {
		m[e.I] = e.Rect()
	}
	return m
}

// CompressOptions tune Compress.
type CompressOptions struct {
	// Screen is the device screen size when known. Zero infers it from the
	// largest right and bottom edges in the dump — which under-reports when
	// only a dialog's window was dumped (its root is not full-screen).
	Screen image.Point
	// MaxTokens, when positive, bounds Tokens: labels are shortened first,
	// then read-only text dropped from the end, then actionable elements
	// from the end.
	MaxTokens int
	// MaxLabel caps each label's length in runes (default 80).
	MaxLabel int
}

// ErrNotDump is wrapped by Compress errors for input that is not a
// uiautomator dump, or one past the compressor's bounds.
var ErrNotDump = errors.New("not a uiautomator dump")

// The compressor's bounds. Real dumps are under 100 KB, about 30 levels
// deep and a few hundred nodes; past these the input is refused at once
// with an error naming the bound, so a hostile or broken dump costs
// neither seconds nor hundreds of MB (the walk recurses once per level).
const (
	MaxDumpBytes = 8 << 20
	MaxDepth     = 256
	maxNodes     = 100000
)

// The compressor keeps what a person could act on, following seed 003:
//
//   - clickable, long-clickable, editable (EditText or editable="true") and
//     scrollable nodes of nonzero on-screen area each become one element;
//   - a tappable node without its own label takes the labels of its
//     non-actionable descendants (a list row whose text lives in child
//     TextViews) — this is also how a list item's pieces merge into one
//     element. Only rows smaller than 40 % of the screen pull labels up, so
//     a full-screen clickable container does not swallow the whole screen;
//   - an actionable node with the same bounds as the element it sits in is
//     merged into that element (actions united);
//   - labelled nodes no row took become read-only "text" elements;
//   - everything else (layouts, unlabelled images, zero-area nodes) is
//     decoration and dropped.
//
// Text is normalized: U+00A0 and other spaces become one space, line breaks
// fold, control characters go.

type node struct {
	text, desc, rid, class, pkg, hint string
	clickable, longClickable          bool
	scrollable, editable              bool
	checkable, checked, enabled       bool
	password                          bool
	bounds                            image.Rectangle
	hasBounds                         bool
	children                          []int
}

// Compress reads a uiautomator dump and returns its compact state. tokens
// may be nil; then Tokens and RawTokens are zero.
func Compress(dump []byte, tokens *Tokens, opt CompressOptions) (*Compact, error) {
	nodes, roots, rotation, err := parseDump(dump)
	if err != nil {
		return nil, err
	}
	if opt.MaxLabel <= 0 {
		opt.MaxLabel = 80
	}
	screen := opt.Screen
	if screen.X <= 0 || screen.Y <= 0 {
		for _, n := range nodes {
			screen.X = max(screen.X, n.bounds.Max.X)
			screen.Y = max(screen.Y, n.bounds.Max.Y)
		}
	}
	b := builder{nodes: nodes, screen: image.Rect(0, 0, max(screen.X, 0), max(screen.Y, 0)), maxLabel: opt.MaxLabel}
	seen := map[string]bool{}
	c := &Compact{Screen: [2]int{b.screen.Dx(), b.screen.Dy()}, Rotation: rotation}
	for _, n := range nodes {
		if n.pkg != "" && !seen[n.pkg] {
			seen[n.pkg] = true
			c.Packages = append(c.Packages, n.pkg)
		}
	}
	for _, r := range roots {
		b.walk(r, -1, -1)
	}
	for i := range b.els {
		e := &b.els[i].Element
		e.Text = clipRunes(strings.Join(b.els[i].labels, " | "), opt.MaxLabel)
		if e.Text == "" && len(e.Actions) > 0 {
			e.Text = idHint(b.els[i].rid)
		}
	}
	byText := map[string][]int{}
	for i, e := range b.els {
		if len(e.Actions) == 0 && b.repeats(i, byText) {
			continue // a text inside a text saying the same
		}
		e.I = len(c.Elements)
		c.Elements = append(c.Elements, e.Element)
	}
	if c.Elements == nil {
		c.Elements = []Element{}
	}
	if tokens != nil {
		c.RawTokens = tokens.Count(string(dump))
		c.Tokens = tokens.Count(c.jsonBody())
		if opt.MaxTokens > 0 && c.Tokens > opt.MaxTokens {
			c.fit(tokens, opt.MaxTokens)
		}
	}
	return c, nil
}

// JSON is the compact state as sent in prompts: screen and elements,
// without the token counts.
func (c *Compact) JSON() string { return c.jsonBody() }

// jsonBody is the compact JSON without the token counts: what is measured.
func (c *Compact) jsonBody() string {
	b, _ := json.Marshal(struct {
		Screen   [2]int    `json:"screen"`
		Elements []Element `json:"elements"`
	}{c.Screen, c.Elements})
	return string(b)
}

// fit shrinks the state under limit tokens. Element indices are renumbered
// so they stay dense.
func (c *Compact) fit(tokens *Tokens, limit int) {
	measure := func() int { return tokens.Count(c.jsonBody()) }
	for _, n := range []int{40, 20} {
		for i := range c.Elements {
			c.Elements[i].Text = clipRunes(c.Elements[i].Text, n)
		}
		if c.Tokens = measure(); c.Tokens <= limit {
			return
		}
	}
	per := float64(c.Tokens) / float64(max(1, len(c.Elements)))
	drop := func(readOnly bool) {
		for i := len(c.Elements) - 1; i >= 0 && c.Tokens > limit; i-- {
			if (len(c.Elements[i].Actions) == 0) != readOnly {
				continue
			}
			c.Elements = append(c.Elements[:i], c.Elements[i+1:]...)
			c.Tokens -= int(per)
			if c.Tokens <= limit {
				c.Tokens = measure()
			}
		}
	}
	drop(true)
	drop(false)
	for i := range c.Elements {
		c.Elements[i].I = i
	}
	c.Tokens = measure()
}

type el struct {
	Element
	labels []string
	pulls  bool
	rid    string
}

// idHint names an unlabelled control by its resource id ("id:toolbar_back")
// when the id looks written by a person: obfuscated ids (WeCom's "ni8")
// say nothing and are left out.
func idHint(rid string) string {
	_, name, ok := strings.Cut(rid, ":id/")
	if !ok {
		name = rid
	}
	name = clean(name)
	if len(name) < 5 && !strings.Contains(name, "_") {
		return ""
	}
	return "id:" + clipRunes(name, 40)
}

type builder struct {
	nodes    []node
	screen   image.Rectangle
	maxLabel int
	els      []el
}

// walk visits node i. puller is the element collecting labels for this
// subtree (-1: none); owner the nearest enclosing actionable element.
func (b *builder) walk(i, puller, owner int) {
	n := &b.nodes[i]
	r := n.bounds.Intersect(b.screen)
	visible := n.hasBounds && !r.Empty()
	label := n.label()
	acts := n.actions()
	if visible && len(acts) > 0 {
		cur := -1
		if owner >= 0 && b.els[owner].Rect() == r {
			cur = owner // same box as its parent element: one element
			if b.els[cur].rid == "" {
				b.els[cur].rid = n.rid
			}
			b.els[cur].Actions = union(b.els[cur].Actions, acts)
			if t := n.kind(); b.els[cur].Type == "item" && t != "item" {
				b.els[cur].Type = t
			}
		} else {
			b.els = append(b.els, el{Element: Element{Type: n.kind(), Actions: acts,
				Bounds: [4]int{r.Min.X, r.Min.Y, r.Max.X, r.Max.Y}}, rid: n.rid})
			cur = len(b.els) - 1
			area, screenArea := r.Dx()*r.Dy(), b.screen.Dx()*b.screen.Dy()
			b.els[cur].pulls = !n.scrollable && (n.clickable || n.longClickable) && area*10 <= screenArea*4
		}
		b.addLabel(cur, label)
		next := -1
		if b.els[cur].pulls {
			next = cur
		}
		for _, c := range n.children {
			b.walk(c, next, cur)
		}
		return
	}
	if label != "" && visible {
		if puller >= 0 {
			b.addLabel(puller, label)
		} else {
			b.els = append(b.els, el{Element: Element{Type: n.kind(), Actions: []string{},
				Bounds: [4]int{r.Min.X, r.Min.Y, r.Max.X, r.Max.Y}}, labels: []string{label}})
		}
	}
	for _, c := range n.children {
		b.walk(c, puller, owner)
	}
}

// repeats reports whether read-only element i says what an earlier
// read-only element around it already says. byText indexes the earlier
// read-only elements by text.
func (b *builder) repeats(i int, byText map[string][]int) bool {
	t := b.els[i].Text
	for _, j := range byText[t] {
		if b.els[i].Rect().In(b.els[j].Rect()) {
			return true
		}
	}
	byText[t] = append(byText[t], i)
	return false
}

func (b *builder) addLabel(e int, label string) {
	if label == "" {
		return
	}
	for _, l := range b.els[e].labels {
		if l == label || strings.Contains(l, label) {
			return
		}
	}
	total := 0
	for _, l := range b.els[e].labels {
		total += len(l)
	}
	if total > 4*b.maxLabel { // enough to identify the row
		return
	}
	b.els[e].labels = append(b.els[e].labels, label)
}

func union(a, b []string) []string {
	for _, x := range b {
		found := false
		for _, y := range a {
			found = found || x == y
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}

// label is the node's own text, content description or hint.
func (n *node) label() string {
	if n.password {
		return clean(n.desc)
	}
	if t := clean(n.text); t != "" {
		if d := clean(n.desc); d != "" && d != t && !strings.Contains(t, d) {
			return t + " (" + d + ")"
		}
		return t
	}
	if d := clean(n.desc); d != "" {
		return d
	}
	return clean(n.hint)
}

func (n *node) actions() []string {
	var a []string
	if !n.enabled {
		return nil
	}
	if n.clickable {
		a = append(a, "tap")
	}
	if n.longClickable {
		a = append(a, "long_press")
	}
	if n.editable {
		a = append(a, "type")
		if !n.clickable {
			a = append([]string{"tap"}, a...)
		}
	}
	if n.scrollable {
		a = append(a, "scroll")
	}
	return a
}

// kind names the element's type from its class and role.
func (n *node) kind() string {
	cls := n.class
	if i := strings.LastIndexByte(cls, '.'); i >= 0 {
		cls = cls[i+1:]
	}
	l := strings.ToLower(cls)
	switch {
	case n.editable || strings.Contains(l, "edittext"):
		return "input"
	case strings.Contains(l, "checkbox"):
		return "checkbox"
	case strings.Contains(l, "switch") || strings.Contains(l, "toggle"):
		return "switch"
	case strings.Contains(l, "radiobutton"):
		return "radio"
	case strings.Contains(l, "seekbar") || strings.Contains(l, "slider"):
		return "slider"
	case strings.Contains(l, "spinner"):
		return "dropdown"
	case strings.Contains(l, "button"):
		return "button"
	case strings.Contains(l, "webview"):
		return "web"
	case n.scrollable || strings.Contains(l, "recyclerview") || strings.Contains(l, "listview") || strings.Contains(l, "scrollview") || strings.Contains(l, "viewpager"):
		return "list"
	case strings.Contains(l, "image"):
		if n.clickable || n.longClickable {
			return "button"
		}
		return "image"
	case strings.Contains(l, "textview") || l == "text":
		if n.clickable || n.longClickable {
			return "button"
		}
		return "text"
	case n.checkable:
		return "checkbox"
	case n.clickable || n.longClickable:
		return "item"
	}
	return "text"
}

// Text renders the compact state for a prompt, one element a line:
//
//	[3] button "发送" [600,1500,700,1580] tap
//
// Indices are what the json dialect's replies refer to.
func (c *Compact) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "screen %dx%d, %d elements\n", c.Screen[0], c.Screen[1], len(c.Elements))
	for _, e := range c.Elements {
		fmt.Fprintf(&b, "[%d] %s %s [%d,%d,%d,%d]", e.I, e.Type, strconv.Quote(e.Text), e.Bounds[0], e.Bounds[1], e.Bounds[2], e.Bounds[3])
		if len(e.Actions) > 0 {
			b.WriteByte(' ')
			b.WriteString(strings.Join(e.Actions, ","))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Labelled counts elements with a non-empty text: how much the state says
// without a screenshot.
func (c *Compact) Labelled() int {
	n := 0
	for _, e := range c.Elements {
		if e.Text != "" {
			n++
		}
	}
	return n
}
