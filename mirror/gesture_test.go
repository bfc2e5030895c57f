package mirror

import (
	"encoding/json"
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

// The rule on the vector the page's classifier is tested on too.
func TestClassifyMatchesTheSharedVector(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "frontend", "src", "lib", "testdata", "gestures.json"))
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
