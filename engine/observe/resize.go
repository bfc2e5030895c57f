package observe

import (
	"errors"
	"fmt"
	"math"
)

// Qwen2-VL/2.5-VL image-processor defaults, used by UI-TARS-1.5 and AutoGLM:
// 28 px per visual token side (14-px patch, 2x2 merge).
const (
	QwenFactor    = 28
	QwenMinPixels = 100 * 28 * 28
	QwenMaxPixels = 16384 * 28 * 28
	// QwenMaxRatio is the largest aspect ratio smart_resize accepts.
	QwenMaxRatio = 200
)

// ErrAspect is returned by SmartResize for images too elongated to resize.
var ErrAspect = errors.New("aspect ratio too large")

// SmartResize is Qwen's smart_resize: it returns the height and width the
// model actually sees for an h x w image — both multiples of factor, area
// within [minPixels, maxPixels], aspect ratio kept as closely as possible.
// UI-TARS-1.5 answers in pixels of this resized image, so a parser maps its
// coordinates with x·w/resizedW; getting this wrong is the most reported
// UI-TARS bug. This is the one implementation in Tandem; dialects call it.
//
// The arithmetic follows the reference (round each side to the factor; if
// the area is over the maximum, scale by sqrt(h·w/max) and floor to the
// factor; if under the minimum, scale up and ceil), in float64 as Python does.
func SmartResize(h, w, factor, minPixels, maxPixels int) (int, int, error) {
	if h <= 0 || w <= 0 || factor <= 0 {
		return 0, 0, fmt.Errorf("smart resize %dx%d factor %d: sizes must be positive", w, h, factor)
	}
	if maxPixels > 0 && minPixels > maxPixels {
		return 0, 0, fmt.Errorf("smart resize: min pixels %d above max %d", minPixels, maxPixels)
	}
	if float64(max(h, w))/float64(min(h, w)) > QwenMaxRatio {
		return 0, 0, fmt.Errorf("smart resize %dx%d: %w (over %d)", w, h, ErrAspect, QwenMaxRatio)
	}
	f := float64(factor)
	hBar := max(factor, int(roundHalfEven(float64(h)/f))*factor)
	wBar := max(factor, int(roundHalfEven(float64(w)/f))*factor)
	switch {
	case maxPixels > 0 && hBar*wBar > maxPixels:
		beta := math.Sqrt(float64(h) * float64(w) / float64(maxPixels))
		hBar = max(factor, int(math.Floor(float64(h)/beta/f))*factor)
		wBar = max(factor, int(math.Floor(float64(w)/beta/f))*factor)
	case hBar*wBar < minPixels:
		beta := math.Sqrt(float64(minPixels) / (float64(h) * float64(w)))
		hBar = int(math.Ceil(float64(h)*beta/f)) * factor
		wBar = int(math.Ceil(float64(w)*beta/f)) * factor
	}
	return hBar, wBar, nil
}

// roundHalfEven is Python 3's round(): ties go to the even neighbour.
func roundHalfEven(x float64) float64 { return math.RoundToEven(x) }
