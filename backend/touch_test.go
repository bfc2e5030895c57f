package backend

import (
	"reflect"
	"testing"
	"time"

	"tandem/engine/action"
)

func TestLiveGestures(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type phase struct {
		name string
		x, y int
		ms   int
	}
	cases := []struct {
		name   string
		phases []phase
		want   action.Action
		ok     bool
	}{
		{"tap", []phase{{"down", 100, 200, 0}, {"up", 103, 198, 80}}, action.Action{Type: action.Tap, X: 100, Y: 200}, true},
		{"long press", []phase{{"down", 100, 200, 0}, {"move", 101, 200, 300}, {"up", 101, 200, 700}}, action.Action{Type: action.LongPress, X: 100, Y: 200, Ms: 700}, true},
		{"swipe", []phase{{"down", 100, 900, 0}, {"move", 100, 600, 100}, {"up", 100, 300, 250}}, action.Action{Type: action.Swipe, X: 100, Y: 900, X2: 100, Y2: 300, Ms: 250}, true},
		{"a drag that came back is still a swipe", []phase{{"down", 100, 900, 0}, {"move", 400, 900, 100}, {"up", 102, 900, 200}}, action.Action{Type: action.Swipe, X: 100, Y: 900, X2: 102, Y2: 900, Ms: 200}, true},
		{"up without down", []phase{{"up", 1, 1, 0}}, action.Action{}, false},
		{"cancelled", []phase{{"down", 1, 1, 0}, {"cancel", 1, 1, 10}, {"up", 1, 1, 20}}, action.Action{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g liveGestures
			var got action.Action
			var ok bool
			for _, p := range c.phases {
				got, ok = g.track("phone", p.name, p.x, p.y, action.Size{W: 1080, H: 2400}, t0.Add(time.Duration(p.ms)*time.Millisecond))
			}
			if ok != c.ok || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v %v, want %+v %v", got, ok, c.want, c.ok)
			}
		})
	}
}
