package desktop

import (
	"context"
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/kbinani/screenshot"

	"tandem/engine/action"
	"tandem/engine/device"
)

func TestParseID(t *testing.T) {
	for _, c := range []struct {
		id   string
		n    int
		fail bool
	}{{"desktop:0", 0, false}, {"desktop:3", 3, false}, {"desktop:", 0, true}, {"desktop:-1", 0, true},
		{"emulator-5554", 0, true}, {"desktop:x", 0, true}} {
		n, err := ParseID(c.id)
		if (err != nil) != c.fail || n != c.n {
			t.Errorf("ParseID(%q) = %d, %v", c.id, n, err)
		}
		if err != nil && !errors.Is(err, ErrNoDisplay) {
			t.Errorf("ParseID(%q) error %v is not ErrNoDisplay", c.id, err)
		}
	}
}

func TestToScreen(t *testing.T) {
	for _, c := range []struct {
		b    image.Rectangle
		shot action.Size
		x, y int
		want image.Point
	}{
		{image.Rect(0, 0, 1920, 1080), action.Size{W: 1920, H: 1080}, 0, 0, image.Pt(0, 0)},
		{image.Rect(1920, 0, 4480, 1440), action.Size{W: 2560, H: 1440}, 2559, 1439, image.Pt(4479, 1439)},
		{image.Rect(-1280, 200, 0, 1224), action.Size{W: 1280, H: 1024}, 10, 20, image.Pt(-1270, 220)},
		// a half-size shot of a 2x display: each shot pixel covers two
		{image.Rect(0, 0, 3840, 2160), action.Size{W: 1920, H: 1080}, 100, 50, image.Pt(200, 100)},
		{image.Rect(0, 0, 3840, 2160), action.Size{W: 1920, H: 1080}, 1919, 1079, image.Pt(3838, 2158)},
	} {
		if got := toScreen(c.b, c.shot, c.x, c.y); got != c.want {
			t.Errorf("toScreen(%v, %v, %d, %d) = %v, want %v", c.b, c.shot, c.x, c.y, got, c.want)
		}
	}
}

func TestScaleFromResources(t *testing.T) {
	for db, want := range map[string]float64{
		"":                                    1,
		"Xft.dpi:\t96\n":                      1,
		"Xcursor.size: 48\nXft.dpi:\t192\n":   2,
		"Xft.dpi: 144":                        1.5,
		"Xft.dpi: banana":                     1,
		"Xft.antialias: 1\nXft.dpi:\t120\n":   1.25,
		"*customization: -color\nXft.dpi: -5": 1,
	} {
		if got := scaleFromResources(db); got != want {
			t.Errorf("scaleFromResources(%q) = %v, want %v", db, got, want)
		}
	}
}

// Two monitors side by side (xrandr --setmonitor): both are listed with their
// origin, and an action on the second lands offset by its origin; its
// screenshot is its half of the screen. Xft.dpi gives the scale.
func TestMultiMonitorAndScale(t *testing.T) {
	p := page(t)
	run(t, "xrandr", "--setmonitor", "tandem-left", "960/254x1080/286+0+0", "none")
	run(t, "xrandr", "--setmonitor", "tandem-right", "960/254x1080/286+960+0", "none")
	t.Cleanup(func() {
		execIn("xrandr", "--delmonitor", "tandem-left").Run()
		execIn("xrandr", "--delmonitor", "tandem-right").Run()
	})
	xrdb := execIn("xrdb", "-merge")
	xrdb.Stdin = stringsReader("Xft.dpi: 192\n")
	if out, err := xrdb.CombinedOutput(); err != nil {
		t.Fatalf("xrdb: %v %s", err, out)
	}
	t.Cleanup(func() { execIn("xrdb", "-remove").Run() })

	ctx := context.Background()
	infos, err := Displays(ctx)
	if err != nil {
		t.Fatal(err)
	}
	right := -1
	for i, in := range infos {
		t.Logf("%s: %s %v scale %v", in.ID, in.Name, in.Screen, in.Scale)
		if in.Kind != device.Desktop || in.Scale != 2 {
			t.Errorf("%+v", in)
		}
		if in.Screen == (action.Size{W: 960, H: 1080}) && containsAll(in.Name, "tandem-right", "at 960,0") {
			right = i
		}
	}
	if right < 0 {
		t.Fatalf("the right monitor is not listed: %+v", infos)
	}
	d, err := Open(ctx, infos[right].ID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if b := d.Bounds(); b != image.Rect(960, 0, 1920, 1080) {
		t.Fatalf("bounds %v", b)
	}
	p.reset()
	do(t, d, action.Action{Type: action.Tap, X: 100, Y: 37})
	p.waitFor(t, "click on the right monitor", func(evs []pageEvent) bool {
		es := ofType(evs, "click")
		return len(es) == 1 && at(es[0], 1060, 37)
	})
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 960, 1080) {
		t.Fatalf("screenshot %v", img.Bounds())
	}
	// The page's pink marker is at screen 1000..1100 x 40..140: 40..140 here.
	if c := color.RGBAModel.Convert(img.At(90, 90)); c != (color.RGBA{255, 0, 128, 255}) {
		t.Errorf("marker pixel %v", c)
	}
	if c := color.RGBAModel.Convert(img.At(39, 90)); c == (color.RGBA{255, 0, 128, 255}) {
		t.Errorf("marker starts a pixel early")
	}
	if _, err := Open(ctx, "desktop:9", Options{}); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("desktop:9: %v", err)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !contains(s, p) {
			return false
		}
	}
	return true
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// The reusing capturer gives exactly kbinani/screenshot's pixels.
func TestScreenshotMatchesKbinani(t *testing.T) {
	page(t)
	d := open(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for _, r := range []image.Rectangle{d.Bounds(), image.Rect(950, 20, 1350, 200), image.Rect(1800, 1000, 2000, 1200)} {
		mine, err := d.cap.capture(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := screenshot.CaptureRect(r)
		if err != nil {
			t.Fatal(err)
		}
		if mine.Bounds() != theirs.Bounds() {
			t.Fatalf("%v: bounds %v vs %v", r, mine.Bounds(), theirs.Bounds())
		}
		for i := range mine.Pix {
			if mine.Pix[i] != theirs.Pix[i] {
				t.Fatalf("%v: byte %d differs: %d vs %d", r, i, mine.Pix[i], theirs.Pix[i])
			}
		}
	}
	// Without MIT-SHM the capturer hands over to kbinani/screenshot.
	slow := &capturer{c: d.cap.c, root: d.cap.root, full: d.cap.full}
	if img, err := slow.capture(ctx, image.Rect(1200, 40, 1300, 140)); err != nil || img.RGBAAt(50, 50) != (color.RGBA{0, 200, 50, 255}) {
		t.Errorf("fallback capture: %v", err)
	}
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reused := image.NewRGBA(image.Rect(0, 0, screenW, screenH))
	again, err := d.ScreenshotInto(ctx, reused)
	if err != nil || again != reused || again.RGBAAt(1250, 90) != (color.RGBA{0, 200, 50, 255}) {
		t.Errorf("ScreenshotInto did not reuse or fill the frame: %v", err)
	}
	cctx, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := d.Screenshot(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("screenshot with a cancelled context: %v", err)
	}
	if c := color.RGBAModel.Convert(img.At(1250, 90)); c != (color.RGBA{0, 200, 50, 255}) {
		t.Errorf("green marker pixel %v", c)
	}
	if !d.cap.shm {
		t.Error("Xvfb has MIT-SHM; the fast path should be in use")
	}
}

func TestNoXServer(t *testing.T) {
	ctx := context.Background()
	if _, err := DisplaysOn(ctx, ":999999"); !errors.Is(err, device.ErrGone) {
		t.Errorf("DisplaysOn a missing server: %v, want ErrGone", err)
	}
	if _, err := Open(ctx, "desktop:0", Options{Display: ":999999"}); err == nil {
		t.Error("Open on a missing server succeeded")
	}
	infos, err := Displays(ctx)
	if err != nil || len(infos) != 1 || infos[0].ID != "desktop:0" || infos[0].Screen != (action.Size{W: screenW, H: screenH}) || infos[0].Scale != 1 {
		t.Errorf("Displays = %+v, %v", infos, err)
	}
}
