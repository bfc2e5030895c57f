package screens

import (
	"image"
	"image/color"
)

// look says how the renderer draws a node.
type look int

const (
	lookNone   look = iota // layout only
	lookText               // text on its background
	lookButton             // filled rounded button, centred text
	lookEdit               // text field with an underline
	lookIcon               // launcher icon: coloured tile with a glyph
	lookSwitch             // on/off switch
	lookRow                // list row with a divider
	lookCard               // rounded card (dialogs, recents)
	lookBar                // app bar
	lookCustom             // drawn by paint
)

// node is one view: what uiautomator dumps and what the renderer draws.
// A screen is a tree of nodes built from the phone's state, so the picture
// and the dump can never disagree.
type node struct {
	class, text, id, desc string
	bounds                image.Rectangle

	clickable, longClickable, scrollable bool
	checkable, checked, focusable        bool
	focused, password, selected          bool
	disabled                             bool

	children []*node

	// Drawing.
	look   look
	bg, fg color.RGBA
	size   int // text size in design pixels
	center bool
	hint   string // shown greyed when an edit is empty
	multi  bool   // multi-line edit
	paint  func(c *canvas, n *node)
	glyph  string
	accent color.RGBA

	// Behaviour.
	onTap   func(m *Model, x, y int)
	value   func(m *Model) *string // editable text of an EditText
	onEnter func(m *Model)
}

func (n *node) add(children ...*node) *node {
	n.children = append(n.children, children...)
	return n
}

// walk visits n and its descendants in drawing order (parents first).
func (n *node) walk(fn func(*node)) {
	fn(n)
	for _, c := range n.children {
		c.walk(fn)
	}
}

// hit returns the topmost node at (x, y) that reacts to a tap.
func (n *node) hit(x, y int) *node {
	p := image.Pt(x, y)
	if !p.In(n.bounds) {
		return nil
	}
	for i := len(n.children) - 1; i >= 0; i-- {
		if h := n.children[i].hit(x, y); h != nil {
			return h
		}
	}
	if n.onTap != nil && !n.disabled {
		return n
	}
	return nil
}

// find returns the first node with the resource id.
func (n *node) find(id string) *node {
	if n.id == id {
		return n
	}
	for _, c := range n.children {
		if f := c.find(id); f != nil {
			return f
		}
	}
	return nil
}
