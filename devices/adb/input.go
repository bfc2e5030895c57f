package adb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
)

// Default durations when an action leaves Ms at zero.
const (
	longPressMs = 800
	swipeMs     = 300
	dragMs      = 1000
	scrollMs    = 400
)

// Do performs one action with `input` (and am/monkey for launch).
func (d *Device) Do(ctx context.Context, a action.Action) error {
	var screen action.Size
	if a.Type.Pointed() {
		var err error
		if screen, err = d.screen(ctx); err != nil {
			return err
		}
	}
	if err := a.Validate(screen); err != nil {
		return err
	}
	switch a.Type {
	case action.Tap:
		return d.input(ctx, fmt.Sprintf("input tap %d %d", a.X, a.Y))
	case action.DoubleTap:
		// One round trip; the two taps are as close as `input` allows.
		return d.input(ctx, fmt.Sprintf("input tap %d %d; input tap %d %d", a.X, a.Y, a.X, a.Y))
	case action.LongPress:
		return d.input(ctx, fmt.Sprintf("input swipe %d %d %d %d %d", a.X, a.Y, a.X, a.Y, orDefault(a.Ms, longPressMs)))
	case action.Swipe:
		return d.input(ctx, fmt.Sprintf("input swipe %d %d %d %d %d", a.X, a.Y, a.X2, a.Y2, orDefault(a.Ms, swipeMs)))
	case action.Drag:
		// A slow swipe: launchers and lists treat a long touch-and-move as a drag.
		return d.input(ctx, fmt.Sprintf("input swipe %d %d %d %d %d", a.X, a.Y, a.X2, a.Y2, orDefault(a.Ms, dragMs)))
	case action.Scroll:
		x1, y1, x2, y2 := scrollSwipe(screen, a.X, a.Y, a.Direction)
		return d.input(ctx, fmt.Sprintf("input swipe %d %d %d %d %d", x1, y1, x2, y2, orDefault(a.Ms, scrollMs)))
	case action.Key:
		code, err := keyCode(a.Key)
		if err != nil {
			return err
		}
		return d.input(ctx, "input keyevent "+code)
	case action.TypeText:
		if a.Clear {
			if err := d.clearField(ctx, a.Text); err != nil {
				return err
			}
		}
		return d.typeText(ctx, a.Text, a.Submit)
	case action.Launch:
		return d.Launch(ctx, a.App)
	case action.Wait:
		t := time.NewTimer(time.Duration(a.Ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	case action.RightClick, action.Hotkey:
		return fmt.Errorf("%w: a phone has no %s", device.ErrUnsupported, a.Type)
	case action.Finish, action.Fail, action.AskUser, action.TakeOver:
		return fmt.Errorf("%w: %s is not a device action", device.ErrUnsupported, a.Type)
	}
	return fmt.Errorf("%w: %s is not a device action", device.ErrUnsupported, a.Type)
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// input runs an input command; `input` prints its exceptions and exits 0 on
// some Android versions, so sh's text check matters as much as the exit code.
func (d *Device) input(ctx context.Context, cmd string) error {
	_, err := d.run(ctx, cmd)
	return err
}

// scrollSwipe turns a scroll at (x, y) into a finger swipe through that point.
// "down" shows what is below, so the finger moves up. The swipe covers 40%
// of the screen's extent and is kept on screen.
func scrollSwipe(screen action.Size, x, y int, dir string) (x1, y1, x2, y2 int) {
	clamp := func(v, hi int) int { return max(1, min(v, hi-2)) }
	x1, y1, x2, y2 = x, y, x, y
	dy, dx := screen.H*2/10, screen.W*2/10
	switch dir {
	case "down":
		y1, y2 = y+dy, y-dy
	case "up":
		y1, y2 = y-dy, y+dy
	case "right":
		x1, x2 = x+dx, x-dx
	case "left":
		x1, x2 = x-dx, x+dx
	}
	if screen.W > 0 {
		x1, x2, y1, y2 = clamp(x1, screen.W), clamp(x2, screen.W), clamp(y1, screen.H), clamp(y2, screen.H)
	}
	return x1, y1, x2, y2
}

// keys maps the canonical key names (and common synonyms models use) to
// Android key codes.
var keys = map[string]int{
	"back": 4, "home": 3, "enter": 66, "return": 66, "delete": 67, "backspace": 67, "del": 67,
	"forward_delete": 112, "recent": 187, "recents": 187, "app_switch": 187, "menu": 82,
	"volume_up": 24, "volume_down": 25, "volume_mute": 164, "mute": 164, "power": 26,
	"wakeup": 224, "sleep": 223, "camera": 27, "search": 84, "tab": 61, "space": 62,
	"escape": 111, "esc": 111, "up": 19, "down": 20, "left": 21, "right": 22, "dpad_center": 23,
	"page_up": 92, "page_down": 93, "move_home": 122, "move_end": 123, "notification": 83,
	"media_play_pause": 85, "media_next": 87, "media_previous": 88, "brightness_up": 221,
	"brightness_down": 220, "copy": 278, "paste": 279, "cut": 277,
}

// keyCode resolves a key name ("back", "KEYCODE_BACK", "Volume Up") or a number.
func keyCode(name string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "keycode_")
	n = strings.NewReplacer(" ", "_", "-", "_").Replace(n)
	if c, ok := keys[n]; ok {
		return strconv.Itoa(c), nil
	}
	// A single character is that key; a longer number is a raw key code.
	if len(n) == 1 && (n[0] >= 'a' && n[0] <= 'z') {
		return strconv.Itoa(29 + int(n[0]-'a')), nil // KEYCODE_A = 29
	}
	if len(n) == 1 && (n[0] >= '0' && n[0] <= '9') {
		return strconv.Itoa(7 + int(n[0]-'0')), nil // KEYCODE_0 = 7
	}
	if c, err := strconv.Atoi(n); err == nil && c > 0 && c < 400 {
		return strconv.Itoa(c), nil
	}
	return "", fmt.Errorf("%w: unknown key %q", device.ErrUnsupported, name)
}
