// Package dialect holds Tandem's four model dialects: prompt builders and
// reply parsers for OpenAI-style tool calls (tools), AutoGLM-Phone's
// do()/finish() (autoglm), UI-TARS's Thought/Action text (uitars) and a
// one-step JSON for small local models (json).
//
// Why a package of its own: the parsers are the most input-exposed code in
// Tandem (whatever a model emits lands here), so they are pure functions over
// strings, golden-tested on real replies and fuzzed, with no I/O and no
// state. The rules they share:
//
//   - A reply that cannot be read is a *model.ParseError whose Reason is fit
//     to feed back to the model. Nothing is ever turned into a finish.
//   - Malformed but complete replies (an unclosed tag, a missing label) are
//     read only when nothing is lost, and Parsed.Salvaged says what was fixed.
//   - Coordinates leave a parser in device pixels; a point off the screen is
//     rejected (action.Validate), never clamped.
package dialect

import (
	"fmt"
	"image"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
)

// Names lists the dialects in the order settings show them.
var Names = []string{"tools", "autoglm", "uitars", "json"}

// Variants lists each dialect's variants; the first is the default.
var Variants = map[string][]string{
	"tools":   {"rel1000", "rel999", "abs"},
	"autoglm": {"rel1000"},
	"uitars":  {"1.5", "1.0", "doubao"},
	"json":    {"abs", "rel1000", "rel999"},
}

// UnknownError is a dialect or variant name that does not exist.
type UnknownError struct{ Dialect, Variant string }

func (e *UnknownError) Error() string {
	if e.Variant == "" {
		return fmt.Sprintf("unknown dialect %q (want one of %s)", e.Dialect, strings.Join(Names, ", "))
	}
	return fmt.Sprintf("dialect %s has no variant %q (want one of %s)", e.Dialect, e.Variant,
		strings.Join(Variants[e.Dialect], ", "))
}

// Resolve returns the variant a dialect runs with: the given one when the
// dialect has it, the default for "", else an *UnknownError. Settings
// validate a profile with it, so the app and the engine agree.
func Resolve(name, variant string) (string, error) {
	vs, ok := Variants[name]
	if !ok {
		return "", &UnknownError{Dialect: name}
	}
	if variant == "" {
		return vs[0], nil
	}
	if !slices.Contains(vs, variant) {
		return "", &UnknownError{Dialect: name, Variant: variant}
	}
	return variant, nil
}

// New returns the named dialect; an empty variant picks the default.
func New(name, variant string) (model.Dialect, error) {
	variant, err := Resolve(name, variant)
	if err != nil {
		return nil, err
	}
	switch name {
	case "tools":
		return Tools{Coords: Space(variant), cursor: &cursor{}}, nil
	case "autoglm":
		return AutoGLM{}, nil
	case "uitars":
		return UITARS{Variant: variant}, nil
	default:
		return JSON{Coords: Space(variant)}, nil
	}
}

// Space is a model coordinate space.
type Space string

// The coordinate spaces models answer in.
const (
	Rel1000 Space = "rel1000" // 0–1000 (or 0–999) relative, device = v/1000·size
	Rel999  Space = "rel999"  // 0–999 relative, device = round(v/999·size) (Qwen3-VL)
	Abs     Space = "abs"     // pixels of the image the model saw
)

// mapper maps model coordinates to device pixels.
type mapper struct {
	screen  action.Size
	sx, sy  float64 // device pixels per model unit
	trunc   bool    // truncate (AutoGLM's reference client) instead of round
	limitX  float64 // model-space range, for error messages (exclusive)
	limitY  float64
	unitStr string
}

func newMapper(s Space, g model.Geometry) mapper {
	m := mapper{screen: g.Screen}
	switch s {
	case Rel999:
		m.sx, m.sy = float64(g.Screen.W)/999, float64(g.Screen.H)/999
		m.limitX, m.limitY, m.unitStr = 999, 999, "the 0–999 grid"
	case Abs:
		img := g.Image
		if img.W <= 0 || img.H <= 0 {
			img = g.Screen
		}
		m.sx, m.sy = float64(g.Screen.W)/float64(img.W), float64(g.Screen.H)/float64(img.H)
		// The image's far edge (x = width) is read as its last pixel, the
		// rule every grid follows (UI-TARS's parser clamps the same way).
		m.limitX, m.limitY, m.unitStr = float64(img.W), float64(img.H), "the "+img.String()+" image"
	case Rel1000:
		fallthrough
	default: // not a space (a dialect made without New): as rel1000
		m.sx, m.sy = float64(g.Screen.W)/1000, float64(g.Screen.H)/1000
		m.limitX, m.limitY, m.unitStr = 1000, 1000, "the 0–1000 grid"
	}
	return m
}

// pixelMapper maps the pixels of an image of size img (UI-TARS-1.5's
// smart-resized image) to the screen.
func pixelMapper(img action.Size, g model.Geometry) mapper {
	return newMapper(Abs, model.Geometry{Screen: g.Screen, Image: img})
}

// point maps one model point, rejecting points outside the model's space.
func (m mapper) point(x, y float64) (int, int, error) {
	if math.IsNaN(x) || math.IsNaN(y) || x < 0 || y < 0 || x > m.limitX || y > m.limitY {
		return 0, 0, fmt.Errorf("point (%s,%s) is outside %s", num(x), num(y), m.unitStr)
	}
	conv := func(v, s float64, size int) int {
		p := v * s
		var r int
		if m.trunc {
			r = int(p)
		} else {
			r = int(math.Round(p))
		}
		return min(r, size-1) // the far edge of a relative grid is the last pixel
	}
	return conv(x, m.sx, m.screen.W), conv(y, m.sy, m.screen.H), nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Default durations for gestures the models give no duration for.
const (
	longPressMs = 800
	swipeMs     = 500
	dragMs      = 800
	waitMs      = 2000
)

// fenceLine is a line holding only a Markdown code fence (```, ```json).
var fenceLine = regexp.MustCompile("(?m)^[ \t]*```[A-Za-z0-9_-]*[ \t]*$\n?")

// unfence removes Markdown code-fence lines, reporting whether it did:
// models often wrap the whole reply in one.
func unfence(s string) (string, bool) {
	out := fenceLine.ReplaceAllString(s, "")
	return out, out != s
}

// fail builds the ParseError every parser returns.
func fail(raw, format string, args ...any) error {
	return &model.ParseError{Reason: fmt.Sprintf(format, args...), Raw: raw}
}

// finishUp validates the actions on the screen and drops anything after the
// first terminal action (the engine ends the run there).
func finishUp(raw string, p model.Parsed, screen action.Size) (model.Parsed, error) {
	if len(p.Actions) == 0 {
		return model.Parsed{}, fail(raw, "the reply holds no action")
	}
	for i, a := range p.Actions {
		if err := a.Validate(screen); err != nil {
			return model.Parsed{}, fail(raw, "%v", err)
		}
		if a.Type.Terminal() {
			p.Actions = p.Actions[:i+1]
			break
		}
	}
	p.Thought = strings.TrimSpace(p.Thought)
	return p, nil
}

// center is the centre of a rectangle.
func center(r image.Rectangle) (int, int) { return (r.Min.X + r.Max.X) / 2, (r.Min.Y + r.Max.Y) / 2 }

// boxTokens are the special tokens Qwen- and GLM-family models wrap
// coordinates or answers in; they carry no meaning for us.
var boxTokens = strings.NewReplacer("<|box_start|>", "", "<|box_end|>", "",
	"<|begin_of_box|>", "", "<|end_of_box|>", "", "<|im_end|>", "", "<|endoftext|>", "",
	"<|user|>", "")

var numRe = regexp.MustCompile(`-?\d+(?:\.\d+)?`)

// numbers reads every number in s.
func numbers(s string) []float64 {
	var out []float64
	for _, m := range numRe.FindAllString(s, 8) {
		v, err := strconv.ParseFloat(m, 64)
		if err == nil {
			out = append(out, v)
		}
	}
	return out
}

// keyName normalizes a key name to the canonical spelling.
func keyName(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	switch k {
	case "return":
		return "enter"
	case "esc":
		return "escape"
	case "backspace", "del":
		return "delete"
	case "control":
		return "ctrl"
	case "cmd", "command", "win", "meta", "super":
		return "meta"
	}
	return k
}

// seconds reads a duration such as "2", "2s", "2 seconds", "2秒", "1.5" in
// seconds; ok is false when s holds no number.
func seconds(s string) (int, bool) {
	ns := numbers(s)
	if len(ns) != 1 || ns[0] < 0 || ns[0] > 3600 {
		return 0, false
	}
	ms := ns[0] * 1000
	if strings.Contains(strings.ToLower(s), "ms") || strings.Contains(s, "毫秒") {
		ms = ns[0]
	}
	return int(ms), true
}
