package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/mirror"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// The phone mirror over scrcpy through the feed: the path is chosen and
// announced, live touches make one gesture, and text of any script arrives
// without ADB Keyboard (clipboard paste).
func TestPhoneMirrorOverScrcpyTakesThePersonsInputLive(t *testing.T) {
	needFFmpeg(t)
	p, env := vphonetest.Start(t, vphone.WithSize(720, 1600), vphone.WithoutADBKeyboard())
	hub := mirror.NewHub()
	devices := NewDevices("127.0.0.1:"+strconv.Itoa(env.Port), t.TempDir())
	f := newDesks(devices, hub, func(string) bool { return false })
	f.scrcpyJar = filepath.Join(t.TempDir(), "scrcpy-server")
	if err := os.WriteFile(f.scrcpyJar, []byte("PK\x03\x04 stand-in jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.stopAll)
	if err := p.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := f.Watch(ctx, "test", env.Serial); err != nil {
		t.Fatal(err)
	}
	for {
		changed := hub.Changed(env.Serial) // before the check: no change is missed
		if hub.PathOf(env.Serial).Path == "scrcpy" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("path %+v", hub.PathOf(env.Serial))
		case <-changed:
		}
	}
	r, _ := p.Bounds("note_editor")
	c := r.Min.Add(r.Max).Div(2)
	for _, ph := range []string{"down", "up"} {
		if err := f.Touch(ctx, env.Serial, ph, c.X, c.Y); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Touch(ctx, env.Serial, "wiggle", 1, 1); err == nil {
		t.Fatal("an unknown phase was taken")
	}
	if err := f.Do(ctx, env.Serial, action.Action{Type: action.TypeText, Text: "你好，世界"}); err != nil {
		t.Fatal(err)
	}
	for p.State().Note != "你好，世界" {
		select {
		case <-ctx.Done():
			t.Fatalf("note %q, events %+v", p.State().Note, p.Events())
		case <-time.After(10 * time.Millisecond):
		}
	}
	var kinds []string
	for _, e := range p.Events() {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, ","); !strings.Contains(got, "touch_down,touch_up") || !strings.Contains(got, "paste") {
		t.Fatalf("events %s", got)
	}
}

func TestLiveTouchesNeedScrcpy(t *testing.T) {
	hub := mirror.NewHub()
	f := newDesks(NewDevices("127.0.0.1:1", t.TempDir()), hub, func(string) bool { return false })
	if err := f.Touch(context.Background(), "x", "down", 1, 1); !errors.Is(err, ErrNoLiveInput) {
		t.Fatalf("err %v", err)
	}
}
