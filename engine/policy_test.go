package engine

import (
	"os"
	"testing"

	"tandem/engine/action"
)

func TestElementAtOnARealDump(t *testing.T) {
	// A real WeWork invite dialog (SOURCES in observe/testdata/ui_dumps).
	dump, err := os.ReadFile("observe/testdata/ui_dumps/05_wework_invite_dialog.xml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		x, y       int
		label      string
		bounds     Region
		wantAbsent bool
	}{
		{"the invite button", 556, 950, "邀请 com.tencent.wework:id/dbo", Region{496, 915, 616, 987}, false},
		{"the cancel button's corner", 346, 915, "取消 com.tencent.wework:id/dbl", Region{346, 915, 466, 987}, false},
		{"off the screen", -5, 99999, "", Region{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, ok := elementAt(dump, c.x, c.y)
			if ok == c.wantAbsent || e.Label != c.label || e.Bounds != c.bounds {
				t.Fatalf("elementAt(%d,%d) = %+v %v", c.x, c.y, e, ok)
			}
		})
	}
	if _, ok := elementAt(nil, 1, 1); ok {
		t.Fatal("an element in no tree")
	}
}

func TestDescribeActionWords(t *testing.T) {
	cases := []struct {
		a    action.Action
		want string
	}{
		{action.Action{Type: action.Tap, X: 1, Y: 2}, "tapped at (1,2)"},
		{action.Action{Type: action.Swipe, X: 1, Y: 2, X2: 3, Y2: 4}, "swiped from (1,2) to (3,4)"},
		{action.Action{Type: action.Drag, X: 1, Y: 2, X2: 3, Y2: 4}, "dragged from (1,2) to (3,4)"},
		{action.Action{Type: action.LongPress, X: 5, Y: 6}, "long-pressed at (5,6)"},
		{action.Action{Type: action.TypeText, Text: "你好", Submit: true}, `typed "你好" and submitted`},
		{action.Action{Type: action.Key, Key: "back"}, "pressed the back key"},
		{action.Action{Type: action.Scroll, Direction: "down", X: 7, Y: 8}, "scrolled down at (7,8)"},
	}
	for _, c := range cases {
		if got := describeAction(c.a); got != c.want {
			t.Errorf("describeAction(%s) = %q, want %q", c.a.Type, got, c.want)
		}
	}
}
