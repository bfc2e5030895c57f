package engine

// The elements of a uiautomator dump as the policy and the record read
// them, for code above the engine that must agree with them: a replay
// finds a recorded step's target (its Target words, which are an
// element's Shown) on the screen as it is now.

// ElementAt is the element a pointed action at (x, y) hits on tree: the
// smallest labelled node whose bounds hold the point, as the record's
// Target and the policy see it.
func ElementAt(tree []byte, x, y int) (Element, bool) { return elementAt(tree, x, y) }

// Elements lists tree's labelled nodes in the dump's order.
func Elements(tree []byte) []Element {
	var out []Element
	eachNode(tree, func(attrs string, r Region) {
		if e := elementOf(attrs, r); e.Label != "" {
			out = append(out, e)
		}
	})
	return out
}

// FocusedNode is the node of tree that has the focus (where typed text
// goes), labelled or not.
func FocusedNode(tree []byte) (Element, bool) {
	var found *Element
	eachNode(tree, func(attrs string, r Region) {
		if found == nil && attr(attrs, "focused") == "true" {
			e := elementOf(attrs, r)
			found = &e
		}
	})
	if found == nil {
		return Element{}, false
	}
	return *found, true
}
