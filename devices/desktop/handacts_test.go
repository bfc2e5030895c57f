package desktop

import (
	"image"
	"reflect"
	"testing"

	"tandem/engine/action"
)

// The person's events in, their acts out, by the one gesture rule.
func TestHandActsAssemblesThePersonsActs(t *testing.T) {
	screen := action.Size{W: 1920, H: 1080}
	down, up, move, key, wheel := hDown, hUp, hMove, hKey, hWheel
	for _, c := range []struct {
		name string
		evs  []HandEvent
		want []action.Action
	}{
		{"a click is a tap, told once no second click can follow",
			[]HandEvent{down("left", 10, 20, 0), up("left", 11, 20, 80)},
			[]action.Action{{Type: action.Tap, X: 10, Y: 20}}},
		{"two quick clicks are a double tap",
			[]HandEvent{down("left", 10, 20, 0), up("left", 10, 20, 60), down("left", 11, 21, 200), up("left", 11, 21, 260)},
			[]action.Action{{Type: action.DoubleTap, X: 10, Y: 20}}},
		{"two slow clicks are two taps",
			[]HandEvent{down("left", 10, 20, 0), up("left", 10, 20, 60), down("left", 10, 20, 900), up("left", 10, 20, 960)},
			[]action.Action{{Type: action.Tap, X: 10, Y: 20}, {Type: action.Tap, X: 10, Y: 20}}},
		{"press, move and release is a drag",
			[]HandEvent{down("left", 100, 100, 0), move(300, 200, 100), move(500, 400, 200), up("left", 500, 400, 300)},
			[]action.Action{{Type: action.Drag, X: 100, Y: 100, X2: 500, Y2: 400, Ms: 300}}},
		{"a drag onto another monitor ends at the edge",
			[]HandEvent{down("left", 100, 100, 0), move(2500, 100, 100), up("left", 2500, 100, 200)},
			[]action.Action{{Type: action.Drag, X: 100, Y: 100, X2: 1919, Y2: 100, Ms: 200}}},
		{"a held press is a long press",
			[]HandEvent{down("left", 7, 8, 1000), up("left", 7, 8, 1800)},
			[]action.Action{{Type: action.LongPress, X: 7, Y: 8, Ms: 800}}},
		{"the right button is a right click",
			[]HandEvent{down("right", 30, 40, 0), up("right", 30, 40, 50)},
			[]action.Action{{Type: action.RightClick, X: 30, Y: 40}}},
		{"characters in a row are one text, a typo put right",
			[]HandEvent{key("h", "h"), key("i", "i"), key("x", "x"), key("backspace", ""), key("1", "!", "shift"), key("space", " "), key("enter", "")},
			[]action.Action{{Type: action.TypeText, Text: "hi! "}, {Type: action.Key, Key: "enter"}}},
		{"ctrl with a key is a hotkey, shift with a named key too",
			[]HandEvent{key("ctrl", "", "ctrl"), key("c", "c", "ctrl"), key("tab", "", "shift")},
			[]action.Action{{Type: action.Hotkey, Keys: []string{"ctrl", "c"}}, {Type: action.Hotkey, Keys: []string{"shift", "tab"}}}},
		{"a click ends the text; wheel notches in a row are one scroll",
			[]HandEvent{key("o", "o"), key("k", "k"), down("left", 5, 5, 0), up("left", 5, 5, 40),
				wheel("down", 50, 60), wheel("down", 50, 61), wheel("down", 50, 62), wheel("up", 50, 62)},
			[]action.Action{{Type: action.TypeText, Text: "ok"}, {Type: action.Tap, X: 5, Y: 5},
				{Type: action.Scroll, X: 50, Y: 60, Direction: "down"}, {Type: action.Scroll, X: 50, Y: 62, Direction: "up"}}},
		{"on Tandem's own window: no act, but the text before it is told",
			[]HandEvent{key("a", "a"), {Kind: HandDown, Button: "left", P: image.Pt(9, 9), Own: true}, {Kind: HandUp, Button: "left", P: image.Pt(9, 9), Own: true},
				{Kind: HandKey, Key: "h", Text: "h", Own: true}},
			[]action.Action{{Type: action.TypeText, Text: "a"}}},
		{"the logo key alone is told; as a modifier it is the hotkey's",
			[]HandEvent{key("cmd", ""), {Kind: HandKeyUp, Key: "cmd"}, key("cmd", ""), key("e", "e", "cmd"), {Kind: HandKeyUp, Key: "cmd"}},
			[]action.Action{{Type: action.Key, Key: "cmd"}, {Type: action.Hotkey, Keys: []string{"cmd", "e"}}}},
		{"a press that began off this display is no act",
			[]HandEvent{{Kind: HandDown, Button: "left", P: image.Pt(-5, 9), Off: true}, {Kind: HandUp, Button: "left", P: image.Pt(40, 9)}},
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := NewHandActs(screen)
			var got []action.Action
			for _, e := range c.evs {
				got = append(got, h.Feed(e)...)
			}
			if h.Pending() == 0 && len(h.Settle()) > 0 {
				t.Error("Pending said nothing was held back, Settle found something")
			}
			got = append(got, h.Settle()...)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("acts\n got %v\nwant %v", got, c.want)
			}
			if h.Pending() != 0 {
				t.Error("something still held back after Settle")
			}
		})
	}
}

func hDown(b string, x, y int, ms uint32) HandEvent {
	return HandEvent{Kind: HandDown, Button: b, P: image.Pt(x, y), Ms: ms}
}

func hUp(b string, x, y int, ms uint32) HandEvent {
	return HandEvent{Kind: HandUp, Button: b, P: image.Pt(x, y), Ms: ms}
}

func hMove(x, y int, ms uint32) HandEvent {
	return HandEvent{Kind: HandMove, P: image.Pt(x, y), Ms: ms}
}

func hKey(k, text string, mods ...string) HandEvent {
	return HandEvent{Kind: HandKey, Key: k, Text: text, Mods: mods}
}

func hWheel(dir string, x, y int) HandEvent {
	return HandEvent{Kind: HandWheel, Wheel: dir, P: image.Pt(x, y)}
}
