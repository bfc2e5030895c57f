package model

import (
	"testing"

	"tandem/engine/observe"
)

// dialect.go carries its own SmartResize; observe.SmartResize is the one the
// planner resizes screenshots with. If they ever disagree, UI-TARS-1.5 taps
// land in the wrong place, so pin them together until there is one.
func TestSmartResizeAgreesWithObserve(t *testing.T) {
	caps := []int{observe.QwenMaxPixels, 2700 * 28 * 28, 5120 * 28 * 28, 1280 * 28 * 28, 12288 * 28 * 28}
	for _, maxP := range caps {
		for w := 200; w <= 3200; w += 37 {
			for _, h := range []int{w / 3, w / 2, w, w * 2, w*2 + 13, w * 3} {
				if h <= 0 {
					continue
				}
				h1, w1, err1 := SmartResize(h, w, 28, observe.QwenMinPixels, maxP)
				h2, w2, err2 := observe.SmartResize(h, w, 28, observe.QwenMinPixels, maxP)
				if h1 != h2 || w1 != w2 || (err1 == nil) != (err2 == nil) {
					t.Fatalf("%dx%d cap %d: model %dx%d %v, observe %dx%d %v", w, h, maxP, w1, h1, err1, w2, h2, err2)
				}
			}
		}
	}
}
