package vphone_test

import (
	"bytes"
	"image/png"
	"strconv"
	"strings"
	"testing"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

func TestSmoke(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	if got := env.Shell(t, "echo hi"); got != "hi\n" {
		t.Fatalf("echo: %q", got)
	}
	out, _, code := env.Run(t, "exec-out", "screencap", "-p")
	if code != 0 {
		t.Fatalf("screencap exit %d", code)
	}
	img, err := png.Decode(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 2400 {
		t.Fatalf("size %v", img.Bounds())
	}
	if err := p.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	r, ok := p.Bounds("plus")
	if !ok {
		t.Fatal("no plus button")
	}
	c := r.Min.Add(r.Max).Div(2)
	env.Shell(t, "input tap "+itoa(c.X)+" "+itoa(c.Y))
	if p.State().Counter != 1 {
		t.Fatalf("counter %d", p.State().Counter)
	}
	dump := env.Shell(t, "uiautomator dump /dev/tty")
	if !strings.Contains(dump, `text="1" resource-id="com.tandem.counter:id/counter_value"`) {
		t.Fatalf("dump: %s", dump)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
