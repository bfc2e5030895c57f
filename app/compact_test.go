package app

import (
	"testing"
)

// fakeWindow records what compact mode does to the window.
type fakeWindow struct {
	w, h, x, y int
	minW, minH int
	screenW    int
	onTop      bool
	calls      int
}

func (f *fakeWindow) Size() (int, int)       { return f.w, f.h }
func (f *fakeWindow) Position() (int, int)   { return f.x, f.y }
func (f *fakeWindow) ScreenSize() (int, int) { return f.screenW, 1080 }
func (f *fakeWindow) Pin(w, h int)           { f.w, f.h, f.minW, f.minH = w, h, w, h; f.calls++ }
func (f *fakeWindow) Unpin(w, h int)         { f.minW, f.minH = w, h; f.calls++ }
func (f *fakeWindow) SetPosition(x, y int)   { f.x, f.y = x, y; f.calls++ }
func (f *fakeWindow) SetOnTop(on bool)       { f.onTop = on; f.calls++ }

func TestCompactBarAndBack(t *testing.T) {
	a := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir()})
	if err := a.api.Runs.SetCompact(true); err == nil {
		t.Fatalf("without a window: %v", err)
	}
	f := &fakeWindow{w: 1280, h: 820, x: 100, y: 60, minW: minW, minH: minH, screenW: 1920}
	a.window = f
	if err := a.api.Runs.SetCompact(true); err != nil {
		t.Fatal(err)
	}
	if f.w != compactW || f.h != compactH || f.x != (1920-compactW)/2 || f.y != 0 || !f.onTop || f.minW > compactW || f.minH > compactH {
		t.Fatalf("compact window %+v", f)
	}
	n := f.calls
	if err := a.api.Runs.SetCompact(true); err != nil || f.calls != n {
		t.Fatalf("asking twice changed the window again: %v, %d calls", err, f.calls-n)
	}
	if err := a.api.Runs.SetCompact(false); err != nil {
		t.Fatal(err)
	}
	if f.w != 1280 || f.h != 820 || f.x != 100 || f.y != 60 || f.onTop || f.minW != minW || f.minH != minH {
		t.Fatalf("window after the bar %+v, want it as it was", f)
	}
	if err := a.api.Runs.SetCompact(false); err != nil {
		t.Fatal(err)
	}
}
