package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The window is painted by WebKitGTK in software (gpuPolicy: never through
// GL). There a blurred shadow is drawn again on every repaint of what it
// surrounds: with a 14 px blur (and a 2 px one) on every panel, each state
// change (Pause, Resume) cost the page 120–200 ms of a core, and under load
// the new state reached the screen 0.4–1.5 s after the engine's event
// (BenchmarkWindowPause's web-cpu-ms and event-to-pixel, issue 30). A
// hard-edged shadow (no blur) costs next to nothing, so the page draws only
// those.

var (
	shadowDecl = regexp.MustCompile(`(box-shadow|text-shadow|--[\w-]*shadow[\w-]*)\s*:\s*([^;}]+)`)
	blurFilter = regexp.MustCompile(`(^|[^\w-])(backdrop-)?filter\s*:[^;}]*blur\(`)
	cssCall    = regexp.MustCompile(`[\w-]+\([^()]*\)`)
	cssLength  = regexp.MustCompile(`^-?(\d*\.)?\d+(px|em|rem)?$`)
)

// shadowLayers splits a shadow value at its top-level commas.
func shadowLayers(v string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range v {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(v[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(v[start:]))
}

// shadowBlur is a shadow layer's blur radius (0 when it has none).
func shadowBlur(layer string) float64 {
	for prev := ""; prev != layer; { // colours and references are not lengths
		prev, layer = layer, cssCall.ReplaceAllString(layer, " ")
	}
	var lengths []string
	for _, t := range strings.Fields(layer) {
		if cssLength.MatchString(t) {
			lengths = append(lengths, t)
		}
	}
	if len(lengths) < 3 {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.TrimRight(lengths[2], "pxrem"), 64)
	return f
}

// pageSources reads every stylesheet and component of the page.
func pageSources(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "frontend", "src")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".svelte") || strings.HasSuffix(p, ".css")) {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestThePageDrawsNoBlur(t *testing.T) {
	for _, c := range []struct {
		layer string
		blur  float64
	}{
		{"0 4px 14px rgba(20, 24, 40, 0.07)", 14},
		{"0 0 0 2px color-mix(in srgb, var(--warn) 55%, transparent)", 0},
		{"inset 0 1px 3px #000", 3},
		{"none", 0},
	} {
		if got := shadowBlur(c.layer); got != c.blur {
			t.Fatalf("blur of %q: %v, want %v", c.layer, got, c.blur)
		}
	}
	src := pageSources(t)
	seen := false
	for file, text := range src {
		for _, m := range shadowDecl.FindAllStringSubmatch(text, -1) {
			seen = seen || file == "app.css" && m[1] == "--shadow"
			for _, l := range shadowLayers(m[2]) {
				if b := shadowBlur(l); b != 0 {
					t.Errorf("%s: %s: %s has a %v px blur: WebKit paints it in software on every repaint", file, m[1], l, b)
				}
			}
		}
		if blurFilter.MatchString(text) {
			t.Errorf("%s: a blur filter: WebKit paints it in software on every repaint", file)
		}
	}
	if len(src) < 20 || !seen {
		t.Fatalf("read %d sources, the panels' --shadow found: %v", len(src), seen)
	}
}
