package model

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"

	"tandem/engine/action"
)

// Dialect is one prompt-and-parser pair: how a family of models is asked for
// the next step and how its reply becomes canonical actions. Dialects are
// pure: Build and Parse do no I/O, so they are tested on real replies alone.
// Implementations live in tandem/engine/model/dialect.
type Dialect interface {
	// Name is the dialect's name as the CLI and settings spell it
	// ("tools", "autoglm", "uitars", "json").
	Name() string
	// ImageBudget says how the screenshot must be prepared for this dialect;
	// the observe package applies it.
	ImageBudget() ImageBudget
	// Build makes the prompt for one step. shots are the prepared
	// screenshots to send, oldest first, the last being the current screen
	// (empty when no screenshot is sent this step); for k >= 1,
	// shots[len(shots)-1-k] is the screen on which
	// in.History[len(in.History)-k] was decided; it is an empty placeholder
	// (no Data), to be skipped, when the person took that step. compact is the compressed
	// UI state (JSON, possibly empty).
	Build(in Input, shots []EncodedImage, compact string) Prompt
	// Parse turns one reply into canonical actions in device pixels. It never
	// turns a failure into a finish: an unusable reply is a *ParseError.
	Parse(r Reply, g Geometry) (Parsed, error)
	// StreamDone reports whether partial streamed content already holds a
	// complete reply, so the client may stop reading early. False when unsure.
	StreamDone(partial string) bool
}

// Geometry is what a parser needs to map model coordinates to device pixels.
type Geometry struct {
	// Screen is the device screen: the space of action coordinates.
	Screen action.Size
	// Image is the size of the screenshot the model saw (after resizing);
	// zero means the same as Screen.
	Image action.Size
	// Elements maps a compact-state index to its bounds in device pixels,
	// for dialects that refer to elements by index (json). Nil when none.
	Elements map[int]image.Rectangle
}

// Reply is what came back from one chat-completions call.
type Reply struct {
	Content   string
	Reasoning string // reasoning_content, when the server splits it out
	ToolCalls []ToolCall
}

// Parsed is a reply turned into canonical actions.
type Parsed struct {
	Thought string
	// Actions in order, in device pixels, each valid on the screen.
	Actions []action.Action
	// Salvaged is non-empty when the reply was malformed but could be read
	// without losing anything (for example an unclosed tag); it says what was
	// repaired, for the run record.
	Salvaged string
}

// Prompt is what a dialect builds for one call.
type Prompt struct {
	Messages   []Message
	Tools      []Tool
	ToolChoice string // "" (the server's default), "auto" or "required"
}

// EncodedImage is a screenshot prepared for the model.
type EncodedImage struct {
	Data []byte
	MIME string      // "image/png" or "image/jpeg"
	Size action.Size // pixel size of Data (what the model sees)
}

// ModelBudgeter is a Dialect whose image budget depends on the model it
// talks to (tools/abs: Qwen2.5-VL models get their processor's bounds).
type ModelBudgeter interface {
	ImageBudgetFor(model string) ImageBudget
}

// BudgetFor is d's image budget for the named model.
func BudgetFor(d Dialect, model string) ImageBudget {
	if mb, ok := d.(ModelBudgeter); ok {
		return mb.ImageBudgetFor(model)
	}
	return d.ImageBudget()
}

// ImageBudget says how screenshots are prepared for a dialect.
type ImageBudget struct {
	// MaxPixels and MinPixels bound the image area; zero means no bound.
	MaxPixels, MinPixels int
	// Factor, when non-zero, makes both sides multiples of it with Qwen's
	// smart_resize (SmartResize); the image is then sent at exactly that size.
	Factor int
	// Format is "jpeg" or "png".
	Format string
	// KeepLast is how many of the most recent screenshots to send (>= 1).
	KeepLast int
	// Always is true for vision models: send a screenshot every step. False
	// lets the observer decide (text-only when the compact state is rich).
	Always bool
}

// Fit returns the size to which a screenshot of size s is resized under the
// budget. It never enlarges except to satisfy MinPixels or Factor rounding.
func (b ImageBudget) Fit(s action.Size) action.Size {
	if s.W <= 0 || s.H <= 0 {
		return s
	}
	if b.Factor > 0 {
		maxP, minP := b.MaxPixels, b.MinPixels
		if maxP <= 0 {
			maxP = math.MaxInt32
		}
		h, w, err := SmartResize(s.H, s.W, b.Factor, minP, maxP)
		if err != nil {
			return s
		}
		return action.Size{W: w, H: h}
	}
	area := s.W * s.H
	if b.MaxPixels > 0 && area > b.MaxPixels {
		scale := math.Sqrt(float64(b.MaxPixels) / float64(area))
		return action.Size{W: max(1, int(float64(s.W)*scale)), H: max(1, int(float64(s.H)*scale))}
	}
	return s
}

// MaxAspectRatio is smart_resize's limit on the ratio of the long side to the
// short side.
const MaxAspectRatio = 200

// SmartResize is Qwen2.5-VL's smart_resize (qwen_vl_utils): the height and
// width a Qwen-VL-family model sees an image at. Both are multiples of
// factor, the area lies within [minPixels, maxPixels], and the aspect ratio is
// kept as closely as possible. Rounding matches Python's round (half to even).
// UI-TARS-1.5 answers in pixels of this resized image.
func SmartResize(height, width, factor, minPixels, maxPixels int) (h, w int, err error) {
	if height <= 0 || width <= 0 || factor <= 0 {
		return 0, 0, &ResizeError{height, width, "sides and factor must be positive"}
	}
	if float64(max(height, width))/float64(min(height, width)) > MaxAspectRatio {
		return 0, 0, &ResizeError{height, width, "aspect ratio above 200"}
	}
	f := float64(factor)
	roundBy := func(v float64) int { return int(math.RoundToEven(v/f)) * factor }
	floorBy := func(v float64) int { return int(math.Floor(v/f)) * factor }
	ceilBy := func(v float64) int { return int(math.Ceil(v/f)) * factor }
	h = max(factor, roundBy(float64(height)))
	w = max(factor, roundBy(float64(width)))
	switch {
	case h*w > maxPixels:
		beta := math.Sqrt(float64(height) * float64(width) / float64(maxPixels))
		h = max(factor, floorBy(float64(height)/beta))
		w = max(factor, floorBy(float64(width)/beta))
	case h*w < minPixels:
		beta := math.Sqrt(float64(minPixels) / (float64(height) * float64(width)))
		h = ceilBy(float64(height) * beta)
		w = ceilBy(float64(width) * beta)
	}
	return h, w, nil
}

// ResizeError is an image SmartResize cannot handle.
type ResizeError struct {
	Height, Width int
	Reason        string
}

func (e *ResizeError) Error() string {
	return "smart_resize " + strconv.Itoa(e.Width) + "x" + strconv.Itoa(e.Height) + ": " + e.Reason
}

// UnsupportedError is an action the device cannot do; Reason is fit to feed
// back to the model.
type UnsupportedError struct {
	Action action.Type
	Reason string
}

func (e *UnsupportedError) Error() string { return e.Reason }

// CheckSupported rejects the first action whose type the device cannot do.
// finish, fail, ask_user, take_over and wait are handled by the engine and
// are always supported.
func CheckSupported(actions []action.Action, supported []action.Type) error {
	for _, a := range actions {
		switch a.Type {
		case action.Finish, action.Fail, action.AskUser, action.TakeOver, action.Wait:
			continue
		case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
			action.TypeText, action.Key, action.Hotkey, action.Launch:
			// the device's: checked below
		}
		ok := false
		for _, t := range supported {
			ok = ok || t == a.Type
		}
		if !ok {
			names := make([]string, len(supported))
			for i, t := range supported {
				names[i] = string(t)
			}
			return &UnsupportedError{a.Type, fmt.Sprintf("this device cannot do %s; it can do: %s",
				a.Type, strings.Join(names, ", "))}
		}
	}
	return nil
}
