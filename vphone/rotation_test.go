package vphone_test

import (
	"bytes"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func TestARotatedDisplayTurnsScreenshotsDumpsAndInput(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t, vphone.WithSize(720, 1600))
	if err := p.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	// Auto-rotate on: user_rotation alone does nothing.
	env.Shell(t, "settings put system user_rotation 1")
	if p.Rotation() != 0 {
		t.Fatal("turned with auto-rotate on")
	}
	env.Shell(t, "settings put system accelerometer_rotation 0")
	if p.Rotation() != 1 {
		t.Fatalf("rotation %d", p.Rotation())
	}
	out, _, _ := env.Run(t, "exec-out", "screencap", "-p")
	img, err := png.Decode(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1600 || b.Dy() != 720 {
		t.Fatalf("screenshot %v, want 1600x720", b)
	}
	if got := env.Shell(t, "dumpsys input | grep SurfaceOrientation"); !strings.Contains(got, "SurfaceOrientation: 1") {
		t.Fatalf("dumpsys input: %q", got)
	}
	if got := env.Shell(t, "wm size"); !strings.Contains(got, "720x1600") {
		t.Fatalf("wm size reports the physical size: %q", got)
	}
	dump := env.Shell(t, "uiautomator dump /dev/tty")
	if !strings.Contains(dump, `<hierarchy rotation="1">`) {
		t.Fatal("dump without rotation 1")
	}
	m := regexp.MustCompile(`resource-id="com.tandem.counter:id/plus"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`).FindStringSubmatch(dump)
	if m == nil {
		t.Fatalf("no plus button in %s", dump)
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	x, y := (n(m[1])+n(m[3]))/2, (n(m[2])+n(m[4]))/2
	if x >= 1600 || y >= 720 {
		t.Fatalf("bounds %v outside the landscape display", m[1:])
	}
	// The picture at the button's display centre is the button, and a tap
	// there presses it.
	rotated := img.At(x, y)
	env.Shell(t, "input tap "+strconv.Itoa(x)+" "+strconv.Itoa(y))
	if c := p.State().Counter; c != 1 {
		t.Fatalf("counter %d after a tap at the rotated button", c)
	}
	p.SetRotation(0)
	portrait := p.Screenshot()
	if portrait.Bounds().Dx() != 720 {
		t.Fatal("not back to portrait")
	}
	r, _ := p.Bounds("plus")
	c := r.Min.Add(r.Max).Div(2)
	if portrait.At(c.X, c.Y) != rotated {
		t.Fatalf("rotated pixel %v, portrait button pixel %v", rotated, portrait.At(c.X, c.Y))
	}
}
