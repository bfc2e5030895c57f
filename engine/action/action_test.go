package action

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	screen := Size{W: 1080, H: 2400}
	yes := true
	tests := []struct {
		name string
		a    Action
		ok   bool
	}{
		{"tap", Action{Type: Tap, X: 540, Y: 1200}, true},
		{"tap off screen", Action{Type: Tap, X: 1080, Y: 10}, false},
		{"tap negative", Action{Type: Tap, X: -1, Y: 10}, false},
		{"swipe", Action{Type: Swipe, X: 500, Y: 2000, X2: 500, Y2: 400, Ms: 300}, true},
		{"swipe nowhere", Action{Type: Swipe, X: 5, Y: 5, X2: 5, Y2: 5}, false},
		{"scroll bad direction", Action{Type: Scroll, X: 5, Y: 5, Direction: "sideways"}, false},
		{"type chinese", Action{Type: TypeText, Text: "你好"}, true},
		{"type empty", Action{Type: TypeText}, false},
		{"key", Action{Type: Key, Key: "back"}, true},
		{"hotkey empty", Action{Type: Hotkey}, false},
		{"launch", Action{Type: Launch, App: "微信"}, true},
		{"finish needs summary", Action{Type: Finish, Success: &yes}, false},
		{"finish", Action{Type: Finish, Summary: "done", Success: &yes}, true},
		{"fail needs reason", Action{Type: Fail}, false},
		{"ask", Action{Type: AskUser, Question: "which one?"}, true},
		{"unknown", Action{Type: "teleport"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.a.Validate(screen)
			if tt.ok && err != nil {
				t.Fatalf("want ok, got %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalid) {
				t.Fatalf("want ErrInvalid, got %v", err)
			}
		})
	}
}

func TestJSONShape(t *testing.T) {
	el := 3
	a := Action{Type: Tap, X: 540, Y: 1200, Element: &el, Sensitive: "pays"}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"type":"tap","x":540,"y":1200,"sensitive":"pays","element":3}`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestParseSize(t *testing.T) {
	s, err := ParseSize("1080x2400")
	if err != nil || s != (Size{1080, 2400}) {
		t.Fatalf("got %v %v", s, err)
	}
	for _, bad := range []string{"", "1080", "0x5", "axb", "-1x5"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}
