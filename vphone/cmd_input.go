package vphone

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"tandem/vphone/shell"
)

// The input command: key events, taps, swipes and text, as Android's
// `input` runs them.

// keyCodes maps KeyEvent names (without KEYCODE_) to codes.
func keyCodes() map[string]int {
	k := map[string]int{
		"UNKNOWN": 0, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "DPAD_UP": 19, "DPAD_DOWN": 20,
		"DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25,
		"POWER": 26, "CAMERA": 27, "CLEAR": 28, "COMMA": 55, "PERIOD": 56, "TAB": 61, "SPACE": 62,
		"ENTER": 66, "DEL": 67, "MINUS": 69, "EQUALS": 70, "SLASH": 76, "AT": 77, "MENU": 82,
		"SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111,
		"FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123, "VOLUME_MUTE": 164, "APP_SWITCH": 187,
		"SLEEP": 223, "WAKEUP": 224, "PASTE": 279, "COPY": 278, "CUT": 277,
	}
	for i := 0; i < 10; i++ {
		k[strconv.Itoa(i)] = 7 + i
	}
	for ch := 'A'; ch <= 'Z'; ch++ {
		k[string(ch)] = 29 + int(ch-'A')
	}
	return k
}

// parseKey reads a key code given as a number or a name with or without
// the KEYCODE_ prefix; unknown names are KEYCODE_UNKNOWN, as on Android.
func parseKey(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return keyCodes()[strings.TrimPrefix(strings.ToUpper(s), "KEYCODE_")]
}

// key applies a key press to the model (p.mu held).
func (p *Phone) key(code int) {
	m := p.m
	switch {
	case code == 3:
		m.Home()
	case code == 4 || code == 111:
		m.Back()
	case code == 66 || code == 23 || code == 160:
		m.Enter()
	case code == 67:
		m.DeleteBack()
	case code == 187:
		m.AppSwitch()
	case code == 62:
		m.TypeText(" ")
	case code >= 7 && code <= 16:
		m.TypeText(string(rune('0' + code - 7)))
	case code >= 29 && code <= 54:
		m.TypeText(string(rune('a' + code - 29)))
	case code == 55:
		m.TypeText(",")
	case code == 56:
		m.TypeText(".")
	case code == 69:
		m.TypeText("-")
	case code == 70:
		m.TypeText("=")
	case code == 76:
		m.TypeText("/")
	case code == 77:
		m.TypeText("@")
	case code == 61:
		m.Tab()
	}
}

// inputSources are the optional first words of `input`.
func inputSources() map[string]bool {
	return map[string]bool{"keyboard": true, "mouse": true, "joystick": true, "touchpad": true, "touchnavigation": true,
		"dpad": true, "gamepad": true, "stylus": true, "trackball": true, "touchscreen": true, "rotaryencoder": true}
}

const inputUsage = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
`

// javaException prints what `input` prints when a command throws.
func javaException(c *shell.IO, cmd, exc string) int {
	fmt.Fprintf(c.Err, "Exception occurred while executing '%s':\n%s\n", cmd, exc)
	return 255
}

func cmdInput(p *Phone, c *shell.IO, args []string) int {
	if len(args) > 0 && inputSources()[args[0]] {
		args = args[1:]
	}
	if len(args) >= 2 && args[0] == "-d" {
		args = args[2:]
	}
	if len(args) == 0 {
		io.WriteString(c.Err, inputUsage)
		return 1
	}
	in := inputCmd{p: p, c: c, verb: args[0], rest: args[1:]}
	switch in.verb {
	case "tap", "swipe", "draganddrop", "text", "keyevent", "press", "roll", "motionevent":
	default:
		fmt.Fprintf(c.Err, "Error: Unknown command: %s\n%s", in.verb, inputUsage)
		return 1
	}
	if p.faultsNow().injectDenied {
		return javaException(c, in.verb, "java.lang.SecurityException: Injecting to another application requires INJECT_EVENTS permission\n"+
			"\tat com.android.server.input.InputManagerService.injectInputEventInternal(InputManagerService.java:1141)\n"+
			"\tat com.android.server.input.InputManagerService.injectInputEventToTarget(InputManagerService.java:1112)")
	}
	switch in.verb {
	case "tap":
		return in.tap()
	case "swipe", "draganddrop":
		return in.swipe()
	case "text":
		return in.text()
	case "keyevent":
		return in.keyevent()
	case "motionevent":
		return in.motionevent()
	default: // press, roll: recorded, nothing moves
		p.mu.Lock()
		p.record(in.verb, in.rest, 0, 0)
		p.mu.Unlock()
	}
	return 0
}

// inputCmd is one `input VERB ARGS...` being run.
type inputCmd struct {
	p    *Phone
	c    *shell.IO
	verb string
	rest []string
}

// nums reads n numbers (and up to opt more) as Android does, rounding;
// on a bad argument it writes Android's error and returns its exit code.
func (in inputCmd) nums(n, opt int) ([]int, int, bool) {
	if len(in.rest) < n || len(in.rest) > n+opt {
		fmt.Fprintf(in.c.Err, "Error: Invalid arguments for command: %s\n%s", in.verb, inputUsage)
		return nil, 1, false
	}
	out := make([]int, len(in.rest))
	for i, s := range in.rest {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, javaException(in.c, in.verb, fmt.Sprintf("java.lang.NumberFormatException: For input string: \"%s\"", s)), false
		}
		out[i] = int(math.Round(f))
	}
	return out, 0, true
}

func (in inputCmd) tap() int {
	v, code, ok := in.nums(2, 0)
	if !ok {
		return code
	}
	p := in.p
	p.mu.Lock()
	p.record("tap", in.rest, v[0], v[1])
	x, y := p.toModel(v[0], v[1])
	p.m.Tap(x, y)
	p.mu.Unlock()
	return 0
}

// swipe takes its duration; the state changes at its end. A short one is
// a tap, or a long press when it lasts.
func (in inputCmd) swipe() int {
	v, code, ok := in.nums(4, 1)
	if !ok {
		return code
	}
	dur := 300
	if len(v) == 5 {
		dur = max(v[4], 0)
	}
	t := time.NewTimer(time.Duration(dur) * time.Millisecond)
	select {
	case <-t.C:
	case <-in.c.Ctx.Done():
		t.Stop()
		return 130
	}
	p := in.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record(in.verb, in.rest, v[0], v[1])
	dist := math.Hypot(float64(v[2]-v[0]), float64(v[3]-v[1]))
	x1, y1 := p.toModel(v[0], v[1])
	x2, y2 := p.toModel(v[2], v[3])
	switch {
	case dist < 16*p.m.Scale() && dur >= 500:
		p.m.LongPress(x1, y1)
	case dist < 16*p.m.Scale():
		p.m.Tap(x1, y1)
	default:
		p.m.Swipe(x1, y1, x2, y2)
	}
	return 0
}

// text types ASCII as Android's `input text` does (%s is a space); other
// characters crash it as they crash Android's.
func (in inputCmd) text() int {
	if len(in.rest) == 0 {
		fmt.Fprintf(in.c.Err, "Error: Invalid arguments for command: text\n%s", inputUsage)
		return 1
	}
	s := in.rest[0]
	for _, r := range s {
		if r > 0x7e || r < 0x20 && r != '\n' && r != '\t' {
			return javaException(in.c, "text", "java.lang.NullPointerException: Attempt to get length of null array\n"+
				"\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:297)\n"+
				"\tat com.android.server.input.InputShellCommand.runText(InputShellCommand.java:282)")
		}
	}
	s = strings.ReplaceAll(s, "%s", " ")
	p := in.p
	p.mu.Lock()
	p.record("text", in.rest[:1], 0, 0)
	p.m.TypeText(p.m.DropChars(s))
	p.mu.Unlock()
	return 0
}

func (in inputCmd) keyevent() int {
	var codes []int
	for _, a := range in.rest {
		if a == "--longpress" || a == "--doubletap" || a == "--delay" {
			continue
		}
		codes = append(codes, parseKey(a))
	}
	if len(codes) == 0 {
		fmt.Fprintf(in.c.Err, "Error: Invalid arguments for command: keyevent\n%s", inputUsage)
		return 1
	}
	p := in.p
	p.mu.Lock()
	for _, code := range codes {
		p.record("key", []string{strconv.Itoa(code)}, 0, 0)
		p.key(code)
	}
	p.mu.Unlock()
	return 0
}

func (in inputCmd) motionevent() int {
	if len(in.rest) != 3 {
		fmt.Fprintf(in.c.Err, "Error: Invalid arguments for command: motionevent\n%s", inputUsage)
		return 1
	}
	action := strings.ToUpper(in.rest[0])
	in.rest = in.rest[1:]
	v, code, ok := in.nums(2, 0)
	if !ok {
		return code
	}
	p := in.p
	p.mu.Lock()
	p.record("motion_"+strings.ToLower(action), in.rest, v[0], v[1])
	x, y := p.toModel(v[0], v[1])
	p.motion(action, x, y)
	p.mu.Unlock()
	return 0
}

// motion turns DOWN/MOVE/UP into a tap or a swipe (p.mu held). Once the
// pointer has moved beyond the tap slop, each MOVE scrolls by its own step,
// so content follows the finger live (scrcpy drags) and the whole gesture
// adds up to the same swipe as `input swipe` from DOWN to UP.
func (p *Phone) motion(action string, x, y int) {
	slop := 16 * p.m.Scale()
	switch action {
	case "DOWN":
		p.down, p.last, p.downAt, p.isDown, p.dragging = [2]int{x, y}, [2]int{x, y}, p.now(), true, false
	case "MOVE":
		if !p.isDown {
			return
		}
		if !p.dragging && math.Hypot(float64(x-p.down[0]), float64(y-p.down[1])) >= slop {
			p.dragging = true
		}
		if p.dragging {
			p.m.Swipe(p.last[0], p.last[1], x, y)
			p.last = [2]int{x, y}
		}
	case "UP":
		if !p.isDown {
			return
		}
		p.isDown = false
		d := math.Hypot(float64(x-p.down[0]), float64(y-p.down[1]))
		switch {
		case p.dragging:
			p.m.Swipe(p.last[0], p.last[1], x, y)
		case d < slop && p.now().Sub(p.downAt) >= 500*time.Millisecond:
			p.m.LongPress(x, y)
		case d < slop:
			p.m.Tap(x, y)
		default:
			p.m.Swipe(p.down[0], p.down[1], x, y)
		}
		p.dragging = false
	case "CANCEL":
		p.isDown, p.dragging = false, false
	}
}
