package engine

import (
	"context"
	"image"
	"strings"

	"tandem/engine/action"
	"tandem/engine/device"
)

// One judge decides what needs the person, for every door and device kind:
// a run's next action (loopState.sensitive, on the screen the run looked
// at) and another agent's single act (Judge, on the screen read now) give
// the policy the same target from the same readings — the element under a
// pointed action or, for a key that presses it, the focused one; the app
// in front and its names; on a desktop the window under the action or
// with the keyboard. A door that read less would do at once what a run
// asks about (issue 49: MCP act clicked a window titled "Checkout — Pay
// ¥99" unasked).

// scene is what the judge knows of the screen an action is aimed at; a
// field is nil or "" when it was not read or could not be. The can fields
// say what the device could tell: a reading it could give and did not is
// never taken for a harmless screen.
type scene struct {
	tree    []byte          // the UI tree
	app     string          // the package in front
	names   []string        // the other names the app in front goes by
	wins    []device.Window // a desktop's windows, bottom to top
	thought string          // the model's words for the step, where no labels can be read

	canTree, canApp, canWins bool
}

// judge is the policy's verdict on a on screen s.
func judge(p Policy, a action.Action, s scene) Why {
	t := Target{Action: a, App: s.app, Names: s.names, Words: s.thought}
	if e, ok := targetOf(s.tree, a); ok {
		t.Label = e.Label
	}
	if w := windowOf(s.wins, a); w != nil { // a desktop: the window's title and program
		t.Label = strings.TrimSpace(t.Label + "\n" + w.Title)
		t.App, t.Names = w.App, append(t.Names, w.Names...)
	}
	if why := p.Why(t); why.By != "" || p.Off {
		return why
	}
	if len(p.Words) > 0 && s.canTree && s.tree == nil && (a.Type.Pointed() || pressesFocused(a)) {
		return Why{By: "unread", What: "labels", Detail: "the screen's labels could not be read"}
	}
	if len(p.Apps) > 0 && s.canApp && s.app == "" {
		return Why{By: "unread", What: "app", Detail: "the app in front could not be read"}
	}
	if (len(p.Words) > 0 || len(p.Apps) > 0) && s.canWins && s.wins == nil {
		return Why{By: "unread", What: "windows", Detail: "the desktop's windows could not be read"}
	}
	return Why{}
}

// targetOf is the UI-tree element a aims at: the one under a pointed
// action, the focused one for a key that presses it.
func targetOf(tree []byte, a action.Action) (Element, bool) {
	switch {
	case a.Type.Pointed():
		return elementAt(tree, a.X, a.Y)
	case pressesFocused(a):
		return focusedElement(tree)
	}
	return Element{}, false
}

// pressesFocused reports whether a presses the focused element: enter (or
// the d-pad's centre, or space) on it, or text typed and submitted.
func pressesFocused(a action.Action) bool {
	switch a.Type {
	case action.Key:
		k := strings.TrimPrefix(strings.ToLower(a.Key), "keycode_")
		return k == "enter" || k == "dpad_center" || k == "numpad_enter" || k == "space"
	case action.TypeText:
		return a.Submit || strings.ContainsRune(a.Text, '\n')
	case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.Hotkey, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
	}
	return false
}

// windowOf is the desktop window a is aimed at: the topmost under its
// point, or for typing and keys the one with the keyboard; nil when there
// is none or it is not known.
func windowOf(wins []device.Window, a action.Action) *device.Window {
	for i := len(wins) - 1; i >= 0; i-- {
		w := &wins[i]
		if a.Type.Pointed() && image.Pt(a.X, a.Y).In(w.Bounds) || !a.Type.Pointed() && w.Focused {
			return w
		}
	}
	return nil
}

// currentApperNames is what Judge asks of a device for the names of the
// app in front (adb's AppLabel).
type currentApperNames interface {
	CurrentApp(ctx context.Context) (string, error)
}

// Judge is the policy's verdict on one action about to be done on dev
// outside a run (another agent's single act): it reads now what a run
// reads for its next action (the UI tree, the app in front and its names,
// a desktop's windows) and asks the one judge.
func Judge(ctx context.Context, dev device.Device, p Policy, a action.Action) Why {
	if p.Off {
		return judge(p, a, scene{})
	}
	var s scene
	if t, ok := dev.(device.UITree); ok && dev.Capabilities().UITree && len(p.Words) > 0 {
		s.canTree = true
		if a.Type.Pointed() || pressesFocused(a) {
			for range 2 { // a dump often fails while the screen still moves
				if b, err := t.UITree(ctx); err == nil {
					s.tree = b
					break
				}
			}
		}
	}
	if fg, ok := dev.(foregrounder); ok && len(p.Apps) > 0 {
		s.canApp = true
		if pkg, _, err := fg.ForegroundApp(ctx); err == nil {
			s.app = pkg
		}
		if n, ok := dev.(appNamer); ok && s.app != "" {
			s.names = n.AppNames(s.app)
		}
		if c, ok := dev.(currentApperNames); ok {
			if name, err := c.CurrentApp(ctx); err == nil && name != "" {
				s.names = append(s.names, name)
			}
		}
	}
	if w, ok := dev.(device.Windows); ok && (len(p.Words) > 0 || len(p.Apps) > 0) {
		s.canWins = true
		if wins, err := w.Windows(ctx); err == nil {
			s.wins = append([]device.Window{}, wins...) // read: a desktop with no window is not unread
		}
	}
	return judge(p, a, s)
}
