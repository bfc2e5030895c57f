package vphone_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image/png"
	"strconv"
	"strings"
	"testing"

	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// center returns the centre of a node by resource id, failing if absent.
func center(t *testing.T, p *vphone.Phone, id string) (int, int) {
	t.Helper()
	r, ok := p.Bounds(id)
	if !ok {
		t.Fatalf("no node %q on screen %s", id, p.State().Foreground)
	}
	c := r.Min.Add(r.Max).Div(2)
	return c.X, c.Y
}

func tap(t *testing.T, p *vphone.Phone, env vphonetest.Env, id string) {
	t.Helper()
	x, y := center(t, p, id)
	env.Shell(t, "input tap "+strconv.Itoa(x)+" "+strconv.Itoa(y))
}

func TestShellCommands(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t)
	tests := []struct {
		name, cmd      string
		stdout, stderr string // exact unless prefixed with "~" (contains)
		code           int
	}{
		{"echo", "echo hello world", "hello world\n", "", 0},
		{"quotes", `echo 'a  b' "c \"d\"" e\ f`, "a  b c \"d\" e f\n", "", 0},
		{"and", "true && echo yes", "yes\n", "", 0},
		{"and skipped", "false && echo yes", "", "", 1},
		{"or", "false || echo no", "no\n", "", 0},
		{"semicolon", "echo a; echo b", "a\nb\n", "", 0},
		{"status var", "false; echo $?", "1\n", "", 0},
		{"unknown", "nosuchcmd -x", "", "/system/bin/sh: nosuchcmd: inaccessible or not found\n", 127},
		{"getprop", "getprop ro.product.model", "Tandem Virtual Phone\n", "", 0},
		{"getprop sdk", "getprop ro.build.version.sdk", "34\n", "", 0},
		{"getprop missing", "getprop no.such.prop", "\n", "", 0},
		{"wm size", "wm size", "Physical size: 1080x2400\n", "", 0},
		{"wm density", "wm density", "Physical density: 420\n", "", 0},
		{"pm grep", "pm list packages | grep adbkeyboard", "package:com.android.adbkeyboard\n", "", 0},
		{"pm filter", "pm list packages tandem.counter", "package:com.tandem.counter\n", "", 0},
		{"grep -E -o", "dumpsys window | grep -E -o 'mCurrentFocus=[^ ]+ u0 [^}]+'", "mCurrentFocus=Window{7d0c9a1 u0 com.android.launcher3/com.android.launcher3.Launcher\n", "", 0},
		{"grep no match", "echo abc | grep -i XYZ", "", "", 1},
		{"grep -c", "pm list packages | grep -c tandem", "15\n", "", 0},
		{"focused app", "dumpsys window | grep mFocusedApp", "  mFocusedApp=ActivityRecord{5e6f7a8 u0 com.android.launcher3/.Launcher t12}\n", "", 0},
		{"orientation", "dumpsys input | grep SurfaceOrientation", "      SurfaceOrientation: 0\n", "", 0},
		{"settings ime", "settings get secure default_input_method", "com.android.inputmethod.latin/.LatinIME\n", "", 0},
		{"settings null", "settings get system no_such_key", "null\n", "", 0},
		{"ime list", "ime list -s", "com.android.inputmethod.latin/.LatinIME\n", "", 0},
		{"ime list all", "ime list -a -s", "com.android.adbkeyboard/.AdbIME\ncom.android.inputmethod.latin/.LatinIME\n", "", 0},
		{"ime set disabled", "ime set com.android.adbkeyboard/.AdbIME", "", "Unknown input method com.android.adbkeyboard/.AdbIME cannot be selected for user #0\n", 255},
		{"input text non-ascii", "input text 你好", "", "~java.lang.NullPointerException: Attempt to get length of null array", 255},
		{"input bad number", "input tap x 1", "", "~java.lang.NumberFormatException: For input string: \"x\"", 255},
		{"am start bad", "am start -n com.tandem.counter/.Nope", "Starting: Intent { cmp=com.tandem.counter/.Nope }\n", "Error type 3\nError: Activity class {com.tandem.counter/com.tandem.counter.Nope} does not exist.\n", 1},
		{"monkey unknown", "monkey -p com.no.such -c android.intent.category.LAUNCHER 1", "  bash arg: -p\n  bash arg: com.no.such\n  bash arg: -c\n  bash arg: android.intent.category.LAUNCHER\n  bash arg: 1\n** No activities found to run, monkey aborted.\n", "", 252},
		{"redirect and cat", "echo saved > /sdcard/x.txt && cat /sdcard/x.txt && rm /sdcard/x.txt", "saved\n", "", 0},
		{"cat missing", "cat /sdcard/none", "", "cat: /sdcard/none: No such file or directory\n", 1},
		{"stderr to null", "nosuch 2>/dev/null || echo failed", "failed\n", "", 0},
		{"syntax", "echo a |", "", "~syntax error", 1},
		{"head", "getprop | head -n 2", "[persist.sys.locale]: [zh-CN]\n[persist.sys.timezone]: [Asia/Shanghai]\n", "", 0},
		{"broadcast", "am broadcast -a ADB_INPUT_TEXT --es msg hi", "Broadcasting: Intent { act=ADB_INPUT_TEXT flg=0x400000 (has extras) }\nBroadcast completed: result=0\n", "", 0},
		{"uiautomator file", "uiautomator dump && cat /sdcard/window_dump.xml | grep -c hierarchy", "UI hierchary dumped to: /sdcard/window_dump.xml\n1\n", "", 0},
		{"sleep", "sleep 0.01 && echo slept", "slept\n", "", 0},
		{"touchscreen source", "input touchscreen tap 1 1 && echo ok", "ok\n", "", 0},
		{"grep -E alternation", "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'", "  mCurrentFocus=Window{7d0c9a1 u0 com.android.launcher3/com.android.launcher3.Launcher}\n  mFocusedApp=ActivityRecord{5e6f7a8 u0 com.android.launcher3/.Launcher t12}\n", "", 0},
		{"grep BRE literal pipe", "echo 'a|b' | grep 'a|b'", "a|b\n", "", 0},
		{"pm path", "pm path com.tandem.notes", "package:/data/app/~~vphone==/com.tandem.notes-1/base.apk\n", "", 0},
		// toybox's cksum: POSIX by default (as GNU cksum's),
		// zlib's CRC-32 with -LPN (Python's zlib.crc32(b"hello\n")).
		{"cksum", "echo hello | cksum", "3015617425 6\n", "", 0},
		{"cksum zlib", "echo hello | cksum -LPN", "909783072\n", "", 0},
		{"cksum hex", "echo hello | cksum -H -L -P -N", "363a3020\n", "", 0},
		{"cksum file", "echo hi > /sdcard/h && cksum /sdcard/h", "1479881546 3 /sdcard/h\n", "", 0},
		{"cksum bad flag", "cksum -x", "", "cksum: Unknown option 'x'\n", 1},
		{"am start -W", "am start -W -n com.tandem.notes/.MainActivity | grep Status", "Status: ok\n", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := env.Run(t, "shell", tc.cmd)
			check := func(what, got, want string) {
				t.Helper()
				if rest, ok := strings.CutPrefix(want, "~"); ok {
					if !strings.Contains(got, rest) {
						t.Errorf("%s of %q = %q, want it to contain %q", what, tc.cmd, got, rest)
					}
				} else if got != want {
					t.Errorf("%s of %q = %q, want %q", what, tc.cmd, got, want)
				}
			}
			check("stdout", out, tc.stdout)
			check("stderr", errOut, tc.stderr)
			if code != tc.code {
				t.Errorf("exit of %q = %d, want %d", tc.cmd, code, tc.code)
			}
		})
	}
}

// Without shell_v2 adb uses `shell:` (v1): stderr is mixed in and the exit
// status is always 0, as with old phones.
func TestShellV1(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t, vphone.WithFeatures())
	out, _, code := env.Run(t, "shell", "nosuchcmd; echo after")
	if want := "/system/bin/sh: nosuchcmd: inaccessible or not found\nafter\n"; out != want || code != 0 {
		t.Fatalf("v1 shell = %q exit %d, want %q exit 0", out, code, want)
	}
	out, _, _ = env.Run(t, "devices", "-l")
	if !strings.Contains(out, "product:tandem_vphone model:Tandem_Virtual_Phone device:vphone") {
		t.Fatalf("devices -l: %q", out)
	}
}

func TestScreencapFormats(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t, vphone.WithSize(720, 1600))
	out, _, _ := env.Run(t, "exec-out", "screencap", "-p")
	img, err := png.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatalf("png: %v", err)
	}
	if img.Bounds().Dx() != 720 || img.Bounds().Dy() != 1600 {
		t.Fatalf("png size %v", img.Bounds())
	}
	raw, _, _ := env.Run(t, "exec-out", "screencap")
	if len(raw) != 16+720*1600*4 {
		t.Fatalf("raw screencap is %d bytes", len(raw))
	}
	hdr := []byte(raw[:16])
	w, h, f := binary.LittleEndian.Uint32(hdr), binary.LittleEndian.Uint32(hdr[4:]), binary.LittleEndian.Uint32(hdr[8:])
	if w != 720 || h != 1600 || f != 1 {
		t.Fatalf("raw header %d %d %d", w, h, f)
	}
	want := p.Screenshot().Pix
	if !bytes.Equal([]byte(raw[16:]), want) {
		t.Fatal("raw pixels differ from the phone's picture")
	}
	env.Shell(t, "screencap -p /sdcard/s.png")
	out, _, _ = env.Run(t, "exec-out", "cat", "/sdcard/s.png")
	if _, err := png.Decode(strings.NewReader(out)); err != nil {
		t.Fatalf("screencap to file: %v", err)
	}
}

func TestTapsChangeStateAndDump(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t, vphone.WithCaptcha("K7PX2"))
	counterTaps(t, p, env)
	dialog(t, p, env)
	settingsToggle(t, p, env)
	shopPays(t, p, env)
	loginNeedsTheCaptcha(t, p, env)
	formFields(t, p, env)
	home(t, p, env)
}

// counterTaps: the launcher's icon opens the counter; its taps change the
// picture, the state and the dump, and are recorded as events.
func counterTaps(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	before := p.Screenshot()
	beforePix := append([]byte(nil), before.Pix...)
	// Launcher icon -> Counter.
	r, ok := p.BoundsOfText("Counter")
	if !ok {
		t.Fatal("no Counter icon")
	}
	c := r.Min.Add(r.Max).Div(2)
	env.Shell(t, "input tap "+strconv.Itoa(c.X)+" "+strconv.Itoa(c.Y))
	if got := p.State().Foreground; got != vphone.PkgCounter {
		t.Fatalf("foreground %s", got)
	}
	tap(t, p, env, "plus")
	tap(t, p, env, "plus")
	tap(t, p, env, "minus")
	tap(t, p, env, "plus")
	if got := p.State().Counter; got != 2 {
		t.Fatalf("counter %d", got)
	}
	if bytes.Equal(p.Screenshot().Pix, beforePix) {
		t.Fatal("picture did not change")
	}
	dump := env.Shell(t, "uiautomator dump /dev/tty")
	if !strings.Contains(dump, `text="2" resource-id="com.tandem.counter:id/counter_value"`) ||
		!strings.HasSuffix(dump, "</hierarchy>UI hierchary dumped to: /dev/tty\n") {
		t.Fatalf("dump: %s", dump)
	}
	ev := p.Events()
	last := ev[len(ev)-1]
	pr, _ := p.Bounds("plus")
	if last.Kind != "tap" || last.X < pr.Min.X || last.X >= pr.Max.X || last.Y < pr.Min.Y || last.Y >= pr.Max.Y || last.At.IsZero() {
		t.Fatalf("last event %+v not a tap inside %v", last, pr)
	}
}

// dialog: the dialog opens on launch, BACK closes it, the dump is the dialog window.
func dialog(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	env.Shell(t, "am start -n com.tandem.dialog/.MainActivity")
	if !p.State().DialogOpen {
		t.Fatal("dialog not open")
	}
	if d := env.Shell(t, "uiautomator dump /dev/tty"); !strings.Contains(d, "Rate Tandem?") || strings.Contains(d, "Show dialog") {
		t.Fatalf("dialog dump: %s", d)
	}
	env.Shell(t, "input keyevent KEYCODE_BACK")
	if p.State().DialogOpen || p.State().Foreground != vphone.PkgDialog {
		t.Fatalf("BACK: %+v", p.State())
	}
	env.Shell(t, "input keyevent 4")
	if p.State().Foreground != vphone.PkgLauncher {
		t.Fatalf("second BACK: %s", p.State().Foreground)
	}
}

// settingsToggle: the settings switch turns Wi-Fi off.
func settingsToggle(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	env.Shell(t, "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
	tap(t, p, env, "wifi_switch")
	if p.State().WiFi {
		t.Fatal("Wi-Fi still on")
	}
	if d := env.Shell(t, "uiautomator dump /dev/tty"); !strings.Contains(d, `resource-id="com.android.settings:id/wifi_switch" class="android.widget.Switch" package="com.android.settings" content-desc="Wi-Fi" checkable="true" checked="false"`) {
		t.Fatalf("switch dump: %s", d)
	}
}

// shopPays: the shop's Pay button pays.
func shopPays(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	env.Shell(t, "am start -n com.tandem.shop/.CheckoutActivity")
	if out := env.Shell(t, "dumpsys window | grep mCurrentFocus"); out != "  mCurrentFocus=Window{7d0c9a1 u0 com.tandem.shop/com.tandem.shop.CheckoutActivity}\n" {
		t.Fatalf("focus: %q", out)
	}
	tap(t, p, env, "pay_button")
	if !p.State().Paid {
		t.Fatal("not paid")
	}
}

// loginNeedsTheCaptcha: the login code is only in the picture.
func loginNeedsTheCaptcha(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	env.Shell(t, "am start -n com.tandem.login/.LoginActivity")
	if d := env.Shell(t, "uiautomator dump /dev/tty"); strings.Contains(d, "K7PX2") {
		t.Fatal("the dump gives the captcha away")
	}
	tap(t, p, env, "captcha_input")
	env.Shell(t, "input text WRONG")
	tap(t, p, env, "login_button")
	if p.State().LoggedIn {
		t.Fatal("logged in with a wrong code")
	}
	env.Shell(t, "input keyevent KEYCODE_DEL KEYCODE_DEL KEYCODE_DEL KEYCODE_DEL KEYCODE_DEL && input text k7px2")
	tap(t, p, env, "login_button")
	if !p.State().LoggedIn {
		t.Fatal("not logged in with the right code")
	}
}

// formFields: ENTER moves to the next field of the form.
func formFields(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	env.Shell(t, "am start -n com.tandem.form/.MainActivity")
	tap(t, p, env, "name")
	env.Shell(t, "input text Ann%sLee && input keyevent 66 && input text 555-1234 && input keyevent ENTER && input text Paris")
	tap(t, p, env, "submit")
	if f := p.State().Form; f != (vphone.FormState{Name: "Ann Lee", Phone: "555-1234", City: "Paris", Submitted: true}) {
		t.Fatalf("form %+v", f)
	}
}

// home: HOME goes home.
func home(t *testing.T, p *vphone.Phone, env vphonetest.Env) {
	env.Shell(t, "input keyevent KEYCODE_HOME")
	if p.State().Foreground != vphone.PkgLauncher {
		t.Fatal("HOME did not go home")
	}
}

func TestSwipeScrollsList(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	env.Shell(t, "am start -n com.tandem.list/.MainActivity")
	d0 := env.Shell(t, "uiautomator dump /dev/tty")
	env.Shell(t, "input swipe 540 1800 540 800 50")
	s := p.State()
	if s.ListScroll != 1000 {
		t.Fatalf("scroll %d, want 1000", s.ListScroll)
	}
	d1 := env.Shell(t, "uiautomator dump /dev/tty")
	if d0 == d1 || strings.Contains(d1, `text="Item 1"`) || !strings.Contains(d1, `text="Item 10"`) {
		t.Fatalf("dump after scroll: %s", d1)
	}
	if !strings.Contains(d1, `class="androidx.recyclerview.widget.RecyclerView" package="com.tandem.list" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true"`) {
		t.Fatal("list is not scrollable in the dump")
	}
	env.Shell(t, "input swipe 540 800 540 100000 10")
	if p.State().ListScroll != 0 {
		t.Fatalf("scroll back %d", p.State().ListScroll)
	}
}

func TestChineseThroughADBKeyboard(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	env.Shell(t, "am start -n com.tandem.notes/.MainActivity")
	msg := base64.StdEncoding.EncodeToString([]byte("你好，世界"))
	// Not the current IME: the broadcast reaches nobody.
	env.Shell(t, "am broadcast -a ADB_INPUT_B64 --es msg "+msg)
	if p.State().Note != "" {
		t.Fatalf("typed without ADB Keyboard: %q", p.State().Note)
	}
	out := env.Shell(t, "ime enable com.android.adbkeyboard/.AdbIME && ime set com.android.adbkeyboard/.AdbIME")
	if out != "Input method com.android.adbkeyboard/.AdbIME: now enabled\nInput method com.android.adbkeyboard/.AdbIME selected for user #0\n" {
		t.Fatalf("ime: %q", out)
	}
	if got := env.Shell(t, "settings get secure default_input_method"); got != "com.android.adbkeyboard/.AdbIME\n" {
		t.Fatalf("current ime %q", got)
	}
	env.Shell(t, "am broadcast -a ADB_INPUT_B64 --es msg "+msg)
	env.Shell(t, "input keyevent 66 && am broadcast -a ADB_INPUT_TEXT --es msg ok && input keyevent 67")
	if got := p.State().Note; got != "你好，世界\no" {
		t.Fatalf("note %q", got)
	}
	if d := env.Shell(t, "uiautomator dump /dev/tty"); !strings.Contains(d, `text="你好，世界&#10;o"`) {
		t.Fatalf("dump: %s", d)
	}
	env.Shell(t, "am broadcast -a ADB_CLEAR_TEXT")
	if p.State().Note != "" {
		t.Fatal("not cleared")
	}
	env.Shell(t, "ime set com.android.inputmethod.latin/.LatinIME")
	if p.State().IME != vphone.IMELatin {
		t.Fatal("not restored")
	}
}

func TestNoADBKeyboard(t *testing.T) {
	t.Parallel()
	_, env := vphonetest.Start(t, vphone.WithoutADBKeyboard())
	out, errOut, code := env.Run(t, "shell", "ime list -a -s; pm list packages | grep adbkeyboard")
	if out != "com.android.inputmethod.latin/.LatinIME\n" || code != 1 {
		t.Fatalf("%q %q %d", out, errOut, code)
	}
}

func TestAppSwitchChatAndEvents(t *testing.T) {
	t.Parallel()
	p, env := vphonetest.Start(t)
	env.Shell(t, "monkey -p com.tandem.counter -c android.intent.category.LAUNCHER 1")
	env.Shell(t, "am start -n com.tencent.mm/.ui.LauncherUI")
	out := env.Shell(t, "am start -n com.tencent.mm/.ui.LauncherUI")
	if !strings.Contains(out, "Warning: Activity not started, intent has been delivered to currently running top-most instance.") {
		t.Fatalf("second start: %q", out)
	}
	env.Shell(t, "input keyevent KEYCODE_APP_SWITCH")
	if !p.State().Recents {
		t.Fatal("recents not shown")
	}
	r, ok := p.BoundsOfText("Counter")
	if !ok {
		t.Fatalf("no Counter card: %s", p.UIDump())
	}
	c := r.Min.Add(r.Max).Div(2)
	env.Shell(t, "input tap "+strconv.Itoa(c.X)+" "+strconv.Itoa(c.Y))
	if s := p.State(); s.Recents || s.Foreground != vphone.PkgCounter {
		t.Fatalf("after recents tap: %+v", s)
	}
	env.Shell(t, "am force-stop com.tandem.counter")
	if p.State().Foreground != vphone.PkgLauncher {
		t.Fatal("force-stop left the app in front")
	}

	// The Chinese chat: open 张伟, type through ADB Keyboard, send.
	env.Shell(t, "am start -n com.tencent.mm/.ui.LauncherUI")
	r, ok = p.BoundsOfText("张伟")
	if !ok {
		t.Fatal("no chat 张伟")
	}
	c = r.Min.Add(r.Max).Div(2)
	env.Shell(t, "input tap "+strconv.Itoa(c.X)+" "+strconv.Itoa(c.Y))
	env.Shell(t, "ime enable com.android.adbkeyboard/.AdbIME; ime set com.android.adbkeyboard/.AdbIME")
	env.Shell(t, "am broadcast -a ADB_INPUT_B64 --es msg "+base64.StdEncoding.EncodeToString([]byte("收到，三点见")))
	tap(t, p, env, "send")
	if got := p.State().ChatSent; len(got) != 1 || got[0] != "收到，三点见" {
		t.Fatalf("sent %q", got)
	}

	// A long press arrives as a swipe that stays in place.
	env.Shell(t, "input swipe 100 100 100 100 500")
	ev := p.Events()
	last := ev[len(ev)-1]
	if last.Kind != "swipe" || strings.Join(last.Args, " ") != "100 100 100 100 500" || last.X != 100 || last.Y != 100 {
		t.Fatalf("last event %+v", last)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].At.Before(ev[i-1].At) {
			t.Fatal("events out of order")
		}
	}
}
