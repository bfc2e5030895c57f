package observe

import (
	"errors"
	"testing"
)

func TestSmartResize(t *testing.T) {
	// Expected values computed with the reference Python smart_resize
	// (UI-TARS codes/ui_tars/action_parser.py), factor 28.
	tests := []struct {
		h, w, minP, maxP int
		wantH, wantW     int
	}{
		{2400, 1080, QwenMinPixels, QwenMaxPixels, 2408, 1092}, // perf-anchors row 39
		{1920, 1080, QwenMinPixels, QwenMaxPixels, 1932, 1092},
		{3120, 1440, QwenMinPixels, QwenMaxPixels, 3108, 1428}, // over no cap: rounding only
		{2400, 1080, QwenMinPixels, 2700 * 28 * 28, 2156, 952}, // UI-TARS-desktop v1.0 cap
		{1608, 720, QwenMinPixels, QwenMaxPixels, 1596, 728},
		{100, 100, QwenMinPixels, QwenMaxPixels, 280, 280}, // below the minimum: scaled up
		{14, 14, 0, 0, 28, 28},                             // never below one factor
		{1264, 2780, QwenMinPixels, 1280 * 28 * 28, 672, 1484},
	}
	for _, tt := range tests {
		h, w, err := SmartResize(tt.h, tt.w, QwenFactor, tt.minP, tt.maxP)
		if err != nil || h != tt.wantH || w != tt.wantW {
			t.Errorf("SmartResize(%d,%d) = %d,%d,%v want %d,%d", tt.h, tt.w, h, w, err, tt.wantH, tt.wantW)
		}
		if h%QwenFactor != 0 || w%QwenFactor != 0 || (tt.maxP > 0 && h*w > tt.maxP) || h*w < tt.minP {
			t.Errorf("SmartResize(%d,%d) = %d,%d breaks its contract", tt.h, tt.w, h, w)
		}
	}
	if _, _, err := SmartResize(10, 5000, 28, 0, 0); !errors.Is(err, ErrAspect) {
		t.Errorf("elongated: %v", err)
	}
	for _, bad := range [][3]int{{0, 10, 28}, {10, -1, 28}, {10, 10, 0}} {
		if _, _, err := SmartResize(bad[0], bad[1], bad[2], 0, 0); err == nil {
			t.Errorf("SmartResize%v: no error", bad)
		}
	}
}
