package win

import (
	"errors"
	"image"
	"reflect"
	"testing"

	"tandem/devices/desktop"
	"tandem/engine/action"
	"tandem/engine/device"
)

// Wine shows one monitor at 96 DPI; these are the layouts only a real
// Windows has: a monitor left of and above the primary (negative origins),
// and scaled monitors. Coordinates are physical pixels (the process is
// per-monitor DPI aware), so the scale names the display and never moves a
// point.
func TestMultiMonitorMapping(t *testing.T) {
	left := monitor{Bounds: image.Rect(-2560, -200, 0, 1240), DPI: 144, Name: `\\.\DISPLAY2`}
	primary := monitor{Bounds: image.Rect(0, 0, 1920, 1080), DPI: 96, Primary: true, Name: `\\.\DISPLAY1`}
	laptop := monitor{Bounds: image.Rect(1920, 0, 1920+2880, 1800), DPI: 192, Name: `\\.\DISPLAY3`}
	tests := []struct {
		name  string
		m     monitor
		x, y  int
		want  image.Point
		scale float64
		label string
	}{
		{"primary origin", primary, 0, 0, image.Pt(0, 0), 1, "Display 1 (DISPLAY1, primary)"},
		{"primary corner", primary, 1919, 1079, image.Pt(1919, 1079), 1, "Display 1 (DISPLAY1, primary)"},
		{"left of primary", left, 0, 0, image.Pt(-2560, -200), 1.5, "Display 1 (DISPLAY2, at -2560,-200, 150%)"},
		{"left, last pixel", left, 2559, 1439, image.Pt(-1, 1239), 1.5, "Display 1 (DISPLAY2, at -2560,-200, 150%)"},
		{"200 % laptop right", laptop, 1440, 900, image.Pt(3360, 900), 2, "Display 1 (DISPLAY3, at 1920,0, 200%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := infoFor(0, tt.m)
			if got := desktop.ToScreen(tt.m.Bounds, in.Screen, tt.x, tt.y); got != tt.want {
				t.Errorf("ToScreen(%d,%d) = %v, want %v", tt.x, tt.y, got, tt.want)
			}
			if in.Scale != tt.scale || in.Name != tt.label {
				t.Errorf("info = %q scale %g, want %q scale %g", in.Name, in.Scale, tt.label, tt.scale)
			}
			if in.Screen != (action.Size{W: tt.m.Bounds.Dx(), H: tt.m.Bounds.Dy()}) || in.ID != "desktop:0" {
				t.Errorf("info = %+v", in)
			}
		})
	}
}

func TestScaleOf(t *testing.T) {
	for dpi, want := range map[int]float64{0: 1, 96: 1, 120: 1.25, 144: 1.5, 168: 1.75, 192: 2, 288: 3} {
		if got := scaleOf(dpi); got != want {
			t.Errorf("scaleOf(%d) = %g, want %g", dpi, got, want)
		}
	}
}

func TestHotkeyOf(t *testing.T) {
	tests := []struct {
		chord    string
		mods, vk uint32
		err      error
	}{
		{DefaultStopHotkey, modControl | modAlt | modNoRepeat, 0x1B, nil},
		{"ctrl+shift+escape", modControl | modShift | modNoRepeat, 0x1B, nil},
		{"Win+Shift+S", modWin | modShift | modNoRepeat, 'S', nil},
		{"ctrl+alt+F12", modControl | modAlt | modNoRepeat, 0x7B, nil},
		{"alt+7", modAlt | modNoRepeat, '7', nil},
		{"ctrl+PageDown", modControl | modNoRepeat, 0x22, nil},
		{"ctrl+volumeup", 0, 0, device.ErrUnsupported},
		{"ctrl+,", 0, 0, device.ErrUnsupported},
	}
	for _, tt := range tests {
		c, err := desktop.ParseChord([]string{tt.chord})
		if err != nil {
			t.Fatalf("%s: %v", tt.chord, err)
		}
		mods, vk, err := hotkeyOf(c)
		if !errors.Is(err, tt.err) || (tt.err == nil && (mods != tt.mods || vk != tt.vk)) {
			t.Errorf("hotkeyOf(%s) = %#x, %#x, %v; want %#x, %#x, %v", tt.chord, mods, vk, err, tt.mods, tt.vk, tt.err)
		}
	}
}

func TestUTF16Units(t *testing.T) {
	tests := map[rune][]uint16{'a': {0x61}, '世': {0x4E16}, '😀': {0xD83D, 0xDE00}, 0x10FFFF: {0xDBFF, 0xDFFF}}
	for r, want := range tests {
		got := utf16Units(r)
		if len(got) != len(want) || got[0] != want[0] || (len(got) == 2 && got[1] != want[1]) {
			t.Errorf("utf16Units(%U) = %#x, want %#x", r, got, want)
		}
	}
}

func TestPersonInput(t *testing.T) {
	mouse := []struct {
		name  string
		flags uint32
		move  bool
		want  bool
	}{
		{"agent's click (injected)", llmhfInjected, false, false},
		{"agent's move (injected)", llmhfInjected, true, false},
		{"a move no hand made", 0, true, false},
		{"hand clicked", 0, false, true},
	}
	for _, tt := range mouse {
		if got := personMouse(tt.flags, tt.move); got != tt.want {
			t.Errorf("mouse, %s: %v", tt.name, got)
		}
	}
	var ring warpRing
	for i := 0; i < 100; i++ {
		ring.add(image.Pt(i, 2*i))
	}
	if !ring.has(image.Pt(99, 198)) || !ring.has(image.Pt(36, 72)) || ring.has(image.Pt(35, 70)) || ring.has(image.Pt(1, 1)) {
		t.Error("the ring keeps the last 64 points")
	}
	agent := image.Pt(99, 198)
	for _, tt := range []struct {
		p    image.Point
		want bool
	}{{agent, false}, {image.Pt(40, 80), false}, {image.Pt(100, 198), true}, {image.Pt(1, 2), true}} {
		if got := pointerMoved(tt.p, agent, &ring); got != tt.want {
			t.Errorf("pointerMoved(%v) = %v", tt.p, got)
		}
	}
	c, _ := desktop.ParseChord([]string{DefaultStopHotkey})
	_, vk, _ := hotkeyOf(c)
	stop := chordKeys(c, vk)
	keys := []struct {
		name      string
		flags, vk uint32
		want      bool
	}{
		{"agent's key (injected)", llkhfInjected, 'A', false},
		{"hand typed a", 0, 'A', true},
		{"left ctrl of the stop chord", 0, 0xA2, false},
		{"right alt of the stop chord", 0, 0xA5, false},
		{"escape of the stop chord", 0, 0x1B, false},
		{"shift is not in the chord", 0, 0xA0, true},
	}
	for _, tt := range keys {
		if got := personKey(tt.flags, tt.vk, stop); got != tt.want {
			t.Errorf("key, %s: %v", tt.name, got)
		}
	}
}

// SendInput's normalized coordinates come back to the exact pixel on every
// layout, the negative origins of a monitor left of the primary included.
func TestAbsoluteRoundTrips(t *testing.T) {
	for _, v := range []image.Rectangle{image.Rect(0, 0, 1280, 800), image.Rect(0, 0, 1920, 1080),
		image.Rect(-2560, -200, 4800, 1800), image.Rect(0, 0, 7680, 4320), image.Rect(-1, 0, 3, 3)} {
		for x := v.Min.X; x < v.Max.X; x++ {
			p := image.Pt(x, v.Min.Y+(x-v.Min.X)%v.Dy())
			nx, ny := absolute(p, v)
			back := image.Pt(v.Min.X+int(int64(nx)*int64(v.Dx())>>16), v.Min.Y+int(int64(ny)*int64(v.Dy())>>16))
			if back != p || nx < 0 || nx > 65535 || ny < 0 || ny > 65535 {
				t.Fatalf("%v on %v: normalized %d,%d comes back as %v", p, v, nx, ny, back)
			}
		}
	}
}

// The hooks' events, as the person's HandEvents.
func TestHookEventsAsHandEvents(t *testing.T) {
	p := image.Pt(10, 20)
	for _, c := range []struct {
		msg  uintptr
		data uint32
		want desktop.HandEvent
		ok   bool
	}{
		{wmLButtonDown, 0, desktop.HandEvent{Kind: desktop.HandDown, Button: "left", P: p, Ms: 7}, true},
		{wmRButtonUp, 0, desktop.HandEvent{Kind: desktop.HandUp, Button: "right", P: p, Ms: 7}, true},
		{wmMouseWheel, 120 << 16, desktop.HandEvent{Kind: desktop.HandWheel, Wheel: "up", P: p, Ms: 7}, true},
		{wmMouseWheel, uint32(0xFF88) << 16, desktop.HandEvent{Kind: desktop.HandWheel, Wheel: "down", P: p, Ms: 7}, true},
		{wmMouseHWheel, 120 << 16, desktop.HandEvent{Kind: desktop.HandWheel, Wheel: "right", P: p, Ms: 7}, true},
		{0x020B /* X button */, 0, desktop.HandEvent{P: p, Ms: 7}, false},
	} {
		got, ok := mouseHand(c.msg, p, c.data, 7)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("mouse %#x: %+v %v, want %+v", c.msg, got, ok, c.want)
		}
	}
	for vk, want := range map[uint32]string{0x0D: "enter", 0x08: "backspace", 'A': "a", '7': "7", 0x71: "f2",
		0xA2: "ctrl", 0x5B: "cmd", 0x63: "3", 0xBA: ";", 0x07: ""} {
		oem := rune(0)
		if vk == 0xBA {
			oem = ';'
		}
		if got := vkName(vk, oem); got != want {
			t.Errorf("vkName(%#x) = %q, want %q", vk, got, want)
		}
	}
	if e := keyHand(true, "q", "@", []string{"ctrl", "alt"}, p, 1); e.Text != "@" || len(e.Mods) != 0 {
		t.Errorf("AltGr+Q is text, not a hotkey: %+v", e)
	}
	if e := keyHand(true, "a", "\x01", []string{"ctrl"}, p, 1); e.Text != "" || e.Kind != desktop.HandKey {
		t.Errorf("ctrl+A types no text: %+v", e)
	}
	if e := keyHand(true, "enter", "\r", nil, p, 1); e.Text != "" || e.Key != "enter" {
		t.Errorf("Enter is a named key: %+v", e)
	}
}
