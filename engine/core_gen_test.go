package engine

import (
	"image"
	"image/color"

	"tandem/engine/action"
)

// What the core's rig makes up: the actions a model or the person sends,
// the frames and the trees the device reports.

// randomAction is one action a model or the person might send.
func (c *coreRig) randomAction() action.Action {
	pt := func(r image.Rectangle) (int, int) {
		return r.Min.X + c.rng.IntN(r.Dx()), r.Min.Y + c.rng.IntN(r.Dy())
	}
	switch c.rng.IntN(9) {
	case 0, 1:
		x, y := pt(payBounds)
		return action.Action{Type: action.Tap, X: x, Y: y}
	case 2, 3:
		x, y := pt(addBounds)
		return action.Action{Type: action.Tap, X: x, Y: y}
	case 4:
		return action.Action{Type: action.TypeText, Text: "你好"}
	case 5:
		return action.Action{Type: action.Swipe, X: 500, Y: 1500, X2: 500, Y2: 500}
	case 6:
		return action.Action{Type: action.Finish, Summary: "done"}
	case 7:
		return action.Action{Type: action.AskUser, Question: "which one?"}
	default:
		return action.Action{Type: action.Wait, Ms: 100}
	}
}

func (c *coreRig) frame() image.Image {
	img := image.NewGray(image.Rect(0, 0, 16, 32))
	v := uint8(c.rng.IntN(256))
	for i := range img.Pix {
		img.Pix[i] = v
	}
	img.Set(c.rng.IntN(16), c.rng.IntN(32), color.Gray{Y: v ^ 0xff})
	return img
}

// look is what the device reports now: a tree (or none, a failed dump) and
// the app in front (or "", it could not say).
func (c *coreRig) look() ([]byte, string) {
	var tree []byte
	if c.rng.IntN(4) > 0 {
		tree = coreTree
	}
	c.app = []string{shopPkg, otherPkg, otherPkg, ""}[c.rng.IntN(4)]
	return tree, c.app
}
