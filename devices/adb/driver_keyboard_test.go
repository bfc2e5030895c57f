package adb

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/vphone"
)

// Chinese reaches Notes exactly through ADB Keyboard, and the user's own
// keyboard is back once the driver closes.
func TestDriverTypesChineseAndRestoresKeyboard(t *testing.T) {
	t.Parallel()
	r := startPhone(t)
	ctx := ctx10(t)
	if err := r.phone.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	text := "你好，世界！\n第二行 😀 ok"
	if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: text}); err != nil {
		t.Fatal(err)
	}
	st := r.phone.State()
	if st.Note != text {
		t.Errorf("note %q, want %q", st.Note, text)
	}
	if st.IME != vphone.IMEADB {
		t.Errorf("while typing the keyboard is %s", st.IME)
	}
	// A person takes over: their keyboard comes back, and the next Chinese
	// text switches again.
	if err := r.dev.RestoreKeyboard(ctx); err != nil || r.phone.State().IME != vphone.IMELatin {
		t.Fatalf("restore: %v, keyboard %s", err, r.phone.State().IME)
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "。"}); err != nil || r.phone.State().Note != text+"。" {
		t.Fatalf("typing after restore: %v, note %q", err, r.phone.State().Note)
	}
	if err := r.dev.Close(); err != nil {
		t.Fatal(err)
	}
	if ime := r.phone.State().IME; ime != vphone.IMELatin {
		t.Errorf("after Close the keyboard is %s, want %s", ime, vphone.IMELatin)
	}
	if entries := files(t, r.state); len(entries) != 0 {
		t.Errorf("state left behind: %v", entries)
	}
}

// A Tandem that died with ADB Keyboard active: the next driver on that phone
// puts the user's keyboard back as it opens.
func TestDriverRestoresKeyboardAfterCrash(t *testing.T) {
	t.Parallel()
	r := startPhone(t)
	ctx := ctx10(t)
	if err := r.phone.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "崩溃前", Submit: true}); err != nil {
		t.Fatal(err)
	}
	if ime := r.phone.State().IME; ime != vphone.IMEADB {
		t.Fatalf("keyboard %s", ime)
	}
	if len(files(t, r.state)) != 1 {
		t.Fatal("the original keyboard was not written down before switching")
	}
	// The crash: the first driver is never closed. A new one opens.
	r.open(t)
	if ime := r.phone.State().IME; ime != vphone.IMELatin {
		t.Errorf("after reopening the keyboard is %s", ime)
	}
	if len(files(t, r.state)) != 0 {
		t.Error("state file not removed")
	}
	if n := r.phone.State().Note; n != "崩溃前\n" {
		t.Errorf("note %q", n)
	}
}

func TestDriverWithoutADBKeyboard(t *testing.T) {
	t.Parallel()
	r := startPhone(t, vphone.WithoutADBKeyboard())
	ctx := ctx10(t)
	if err := r.phone.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "你好"})
	if !errors.Is(err, device.ErrNeedsKeyboard) || !strings.Contains(err.Error(), "adb install ADBKeyboard.apk") {
		t.Fatalf("got %v", err)
	}
	if n := r.phone.State().Note; n != "" {
		t.Errorf("garbage typed: %q", n)
	}
	if err := r.dev.Do(ctx, action.Action{Type: action.TypeText, Text: "plain text", Submit: true}); err != nil {
		t.Fatal(err)
	}
	if n := r.phone.State().Note; n != "plain text\n" {
		t.Errorf("note %q", n)
	}
}

func TestDriverFailureSwitches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(p *vphone.Phone)
		call func(ctx context.Context, d *Device) error
		want error
	}{
		{"idle", func(p *vphone.Phone) { p.SetIdleError(true) },
			func(ctx context.Context, d *Device) error { _, err := d.UITree(ctx); return err }, ErrNotIdle},
		{"inject denied", func(p *vphone.Phone) { p.SetInjectDenied(true) },
			func(ctx context.Context, d *Device) error {
				return d.Do(ctx, action.Action{Type: action.Tap, X: 10, Y: 10})
			}, device.ErrPermission},
		{"secure", func(p *vphone.Phone) { p.SetSecure(true) },
			func(ctx context.Context, d *Device) error { _, err := d.Screenshot(ctx); return err }, device.ErrSecureScreen},
		{"dropped mid-screenshot", func(p *vphone.Phone) { p.SetDropMidScreencap(true) },
			func(ctx context.Context, d *Device) error { _, err := d.Screenshot(ctx); return err }, device.ErrGone},
		{"offline", func(p *vphone.Phone) { p.SetOffline(true) },
			func(ctx context.Context, d *Device) error {
				return d.Do(ctx, action.Action{Type: action.Key, Key: "back"})
			}, device.ErrGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startPhone(t, vphone.WithSize(360, 800)) // small: decoding stays cheap under -race
			tt.set(r.phone)
			// The failure is told as its own error, never as the
			// context's deadline: the call did not wait it out.
			ctx := ctx10(t)
			err := tt.call(ctx, r.dev)
			if !errors.Is(err, tt.want) || ctx.Err() != nil {
				t.Fatalf("got %v, want %v (context: %v)", err, tt.want, ctx.Err())
			}
			if errors.Is(tt.want, device.ErrPermission) && !strings.Contains(err.Error(), "USB debugging (Security settings)") {
				t.Errorf("message %q does not say what to turn on", err)
			}
		})
	}
}

func TestTrackSeesPhoneComeAndGo(t *testing.T) {
	t.Parallel()
	r := startPhone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lists := make(chan []Entry, 16)
	go r.srv.Track(ctx, func(l []Entry) { lists <- l })
	wait := func(want string) {
		t.Helper()
		for {
			select {
			case l := <-lists:
				st := ""
				for _, e := range l {
					if e.Serial == r.serial {
						st = e.State
					}
				}
				if st == want {
					return
				}
			case <-ctx.Done():
				t.Fatalf("never saw state %q", want)
			}
		}
	}
	wait("device")
	if err := r.srv.Disconnect(ctx, r.serial); err != nil {
		t.Fatal(err)
	}
	wait("")
	serial, err := r.srv.Connect(ctx, r.serial)
	if err != nil || serial != r.serial {
		t.Fatalf("reconnect: %q %v", serial, err)
	}
	wait("device")
}

// swipeEvent checks that the phone's last input was exactly this swipe.
func swipeEvent(x1, y1, x2, y2, ms int) func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
	return func(t *testing.T, r *rig, _ vphone.State, ev []vphone.Event) {
		want := []string{strconv.Itoa(x1), strconv.Itoa(y1), strconv.Itoa(x2), strconv.Itoa(y2), strconv.Itoa(ms)}
		if len(ev) != 1 || ev[0].Kind != "swipe" || !reflect.DeepEqual(ev[0].Args, want) {
			t.Errorf("events %+v, want one swipe %v", ev, want)
		}
	}
}

func files(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := osReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

func osReadDir(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}

// An old phone without shell_v2: commands go through shell v1 with the
