package desktop

import (
	"image"
	"slices"
	"testing"
)

// area sums the pixels of rectangles that do not overlap.
func area(rs []image.Rectangle) int {
	n := 0
	for _, r := range rs {
		n += r.Dx() * r.Dy()
	}
	return n
}

func TestOwnAreasLeaveOutWhatLiesAbove(t *testing.T) {
	own := image.Rect(100, 100, 300, 200)
	for _, c := range []struct {
		name string
		wins []TopLevel
		in   []image.Point // masked
		out  []image.Point // not masked
		px   int
	}{
		{"alone", []TopLevel{{own, 7}}, []image.Point{{100, 100}, {299, 199}}, []image.Point{{99, 100}, {300, 150}}, 200 * 100},
		{"another process's window below", []TopLevel{{image.Rect(0, 0, 400, 400), 9}, {own, 7}}, []image.Point{{150, 150}}, []image.Point{{50, 50}}, 200 * 100},
		{"a window above covers its right half", []TopLevel{{own, 7}, {image.Rect(200, 0, 400, 400), 9}}, []image.Point{{199, 150}}, []image.Point{{200, 150}, {299, 199}}, 100 * 100},
		{"a window above inside it", []TopLevel{{own, 7}, {image.Rect(150, 120, 160, 130), 9}}, []image.Point{{149, 125}, {160, 125}, {155, 119}, {155, 130}}, []image.Point{{155, 125}}, 200*100 - 100},
		{"covered whole", []TopLevel{{own, 7}, {image.Rect(0, 0, 400, 400), 9}}, nil, []image.Point{{150, 150}}, 0},
		{"a process unknown is not ours", []TopLevel{{own, 0}}, nil, []image.Point{{150, 150}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := OwnAreas(c.wins, []int{7}, nil)
			inAny := func(p image.Point) bool {
				return slices.ContainsFunc(got, func(r image.Rectangle) bool { return p.In(r) })
			}
			for _, p := range c.in {
				if !inAny(p) {
					t.Errorf("%v is not masked: %v", p, got)
				}
			}
			for _, p := range c.out {
				if inAny(p) {
					t.Errorf("%v is masked: %v", p, got)
				}
			}
			if area(got) != c.px {
				t.Errorf("masked %d pixels, want %d: %v", area(got), c.px, got)
			}
		})
	}
	if got := OwnAreas(nil, nil, []image.Rectangle{own}); len(got) != 1 || got[0] != own {
		t.Errorf("an excluded rectangle is masked as it is: %v", got)
	}
}

func TestMaskPaintsInTheShotsPixels(t *testing.T) {
	bounds := image.Rect(1920, 0, 3840, 1080) // a second monitor
	area := []image.Rectangle{image.Rect(2020, 100, 2120, 200)}

	full := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	Mask(full, bounds, area)
	if full.RGBAAt(100, 100) != OwnColour || full.RGBAAt(199, 199) != OwnColour || full.RGBAAt(200, 150) == OwnColour || full.RGBAAt(99, 150) == OwnColour {
		t.Error("the area is not painted at its place on the monitor")
	}

	half := image.NewRGBA(image.Rect(0, 0, 960, 540)) // a shot scaled by 1/2
	Mask(half, bounds, area)
	if half.RGBAAt(50, 50) != OwnColour || half.RGBAAt(99, 99) != OwnColour || half.RGBAAt(100, 75) == OwnColour {
		t.Error("the area is not scaled with the shot")
	}

	off := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	Mask(off, bounds, []image.Rectangle{image.Rect(0, 0, 1920, 1080)}) // on the other monitor
	if off.RGBAAt(0, 0) == OwnColour {
		t.Error("an area on another monitor is painted")
	}
}
