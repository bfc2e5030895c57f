package mirror

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"tandem/engine/action"
)

type gestureCase struct {
	Name   string             `json:"name"`
	Screen action.Size        `json:"screen"`
	Down   struct{ X, Y int } `json:"down"`
	Up     struct{ X, Y int } `json:"up"`
	Ms     int                `json:"ms"`
	Want   action.Action      `json:"want"`
}

// The rule on its vector, straight and as the page reports a press.
func TestClassifyMatchesTheVector(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "gestures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Cases []gestureCase }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) < 5 {
		t.Fatalf("only %d cases", len(v.Cases))
	}
	for _, c := range v.Cases {
		got := Classify(c.Down.X, c.Down.Y, c.Up.X, c.Up.Y, time.Duration(c.Ms)*time.Millisecond, false, c.Screen)
		if !reflect.DeepEqual(got, c.Want) {
			t.Errorf("%s: got %+v, want %+v", c.Name, got, c.Want)
		}
		far := int(math.Hypot(float64(c.Up.X-c.Down.X), float64(c.Up.Y-c.Down.Y)))
		pressed, err := Press{X0: c.Down.X, Y0: c.Down.Y, X: c.Up.X, Y: c.Up.Y, Ms: c.Ms, Far: far, W: c.Screen.W, H: c.Screen.H}.Gesture()
		if err != nil || !reflect.DeepEqual(pressed, c.Want) {
			t.Errorf("%s as a press: got %+v %v, want %+v", c.Name, pressed, err, c.Want)
		}
	}
}

// A finger that wandered off and came back swiped (only the live route
// sees the moves in between).
func TestClassifyMovedAndBackIsASwipe(t *testing.T) {
	got := Classify(100, 100, 100, 100, 400*time.Millisecond, true, action.Size{W: 1080, H: 2400})
	if got.Type != action.Swipe || got.Ms != 400 {
		t.Errorf("got %+v", got)
	}
}

// A press that wandered beyond the tap radius and came back swiped; a press
// that names no screen is refused, not guessed.
func TestPressFarAndBad(t *testing.T) {
	back := Press{X0: 100, Y0: 100, X: 101, Y: 100, Ms: 300, Far: 200, W: 1080, H: 2400}
	if g, err := back.Gesture(); err != nil || g.Type != action.Swipe {
		t.Errorf("a drag that came back: %+v %v", g, err)
	}
	still := back
	still.Far = 5
	if g, err := still.Gesture(); err != nil || g.Type != action.Tap {
		t.Errorf("a still press: %+v %v", g, err)
	}
	for _, bad := range []Press{{X: 1, Y: 1, Ms: 10}, {X: 1, Y: 1, Ms: -1, W: 10, H: 10}} {
		if _, err := bad.Gesture(); !errors.Is(err, action.ErrInvalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
