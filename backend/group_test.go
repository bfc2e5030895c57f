package backend

import (
	"context"
	"reflect"
	"testing"

	"tandem/engine/action"
	"tandem/mirror"
)

func TestRescaleKeepsThePlaceOnTheGrid(t *testing.T) {
	from, to := action.Size{W: 1080, H: 2400}, action.Size{W: 720, H: 1280}
	cases := []struct{ in, want action.Action }{
		{action.Action{Type: action.Tap, X: 540, Y: 1200}, action.Action{Type: action.Tap, X: 360, Y: 640}},
		{action.Action{Type: action.Swipe, X: 540, Y: 2000, X2: 540, Y2: 400}, action.Action{Type: action.Swipe, X: 360, Y: 1067, X2: 360, Y2: 213}},
		{action.Action{Type: action.Tap, X: 1079, Y: 2399}, action.Action{Type: action.Tap, X: 719, Y: 1279}},
		{action.Action{Type: action.Key, Key: "back"}, action.Action{Type: action.Key, Key: "back"}},
	}
	for _, tc := range cases {
		if got := Rescale(tc.in, from, to); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Rescale(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// A press on one picked tile lands on both phones, at the same place of
// screens of different resolutions (the same place of the 0–1000 grid):
// each phone's own +1 is pressed once.
func TestGroupPressLandsOnEveryPickedPhone(t *testing.T) {
	b, phones, serials := twoCounters(t, [2]int{360, 800}, [2]int{720, 1600})
	for i, id := range serials { // the tiles watch their phones
		if _, err := b.Watch(context.Background(), "tile-"+id, id); err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
	}
	box, _ := phones[0].Bounds("plus")
	c := box.Min.Add(box.Max).Div(2)
	p := mirror.Press{X0: c.X, Y0: c.Y, X: c.X, Y: c.Y, Ms: 60, W: 360, H: 800}
	got, err := b.HandGroup(context.Background(), serials[0], []string{serials[1], serials[0]}, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("results %+v", got)
	}
	for _, r := range got {
		if r.Error != "" || r.Outcome != Done {
			t.Fatalf("%s: %+v", r.Device, r)
		}
	}
	for i, ph := range phones {
		if n := ph.State().Counter; n != 1 {
			t.Errorf("phone %d counts %d after one group press", i, n)
		}
	}
}
