package adb

import (
	"runtime"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/vphone"
)

// A phone that claims a 100000x100000 screen, in `wm size` and in both
// screenshot headers, through the real adb server: the driver refuses the
// size and both screenshots with words that name the phone and the claim,
// taps nothing, and never allocates for the claim (a PNG decoded for it
// asks for 40 GB: the process dies of it). Over Wi-Fi the PNG is the only
// path, so it is tried on its own too.
//
// Not parallel: the allocation bound is read on the whole process, and the
// package's parallel tests allocated past it meanwhile (82 MB beside two
// test suites and CPU burners).
func TestDriverRefusesALyingScreen(t *testing.T) {
	r := startPhone(t, vphone.WithSize(360, 800))
	ctx := ctx10(t)
	r.phone.SetClaimedScreen(100000, 100000)
	refused := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: a 100000x100000 screen was accepted", what)
		}
		if msg := err.Error(); !strings.Contains(msg, r.serial) || !strings.Contains(msg, "100000x100000") {
			t.Fatalf("%s: the error does not say which phone claimed what: %v", what, err)
		}
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	_, err := r.dev.Info(ctx)
	refused("info", err)
	_, err = r.dev.Screenshot(ctx)
	refused("raw screenshot", err)
	r.dev.pngOnly.Store(true) // as for a phone on Wi-Fi
	_, err = r.dev.Screenshot(ctx)
	refused("PNG screenshot", err)

	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// The real frame is 360x800 (1.1 MB of pixels); the claim would be 40 GB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing the lie allocated %d MB", grew>>20)
	}

	// Where a model would tap on the claimed screen: nothing reaches the phone.
	err = r.dev.Do(ctx, action.Action{Type: action.Tap, X: 70500, Y: 50000})
	refused("tap", err)
	if ev := r.phone.Events(); len(ev) != 0 {
		t.Fatalf("the phone got input: %+v", ev)
	}

	// The phone tells the truth again: everything works as before.
	r.phone.SetClaimedScreen(0, 0)
	r.dev.pngOnly.Store(false)
	info, err := r.dev.Info(ctx)
	if err != nil || info.Screen != (action.Size{W: 360, H: 800}) {
		t.Fatalf("info %+v, %v", info.Screen, err)
	}
	img, err := r.dev.Screenshot(ctx)
	if err != nil || img.Bounds().Dx() != 360 {
		t.Fatalf("screenshot: %v", err)
	}
}
