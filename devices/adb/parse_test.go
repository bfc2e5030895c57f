package adb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"tandem/engine/action"
	"tandem/engine/device"
)

func TestParseDevices(t *testing.T) {
	out := "127.0.0.1:15561        device product:vphone model:Tandem_Virtual_Phone device:vphone transport_id:2\n" +
		"emulator-5554          offline transport_id:1\n" +
		"0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:3\n" +
		"R58M1234 unauthorized usb:1-2 transport_id:4\n\n"
	got := parseDevices(out)
	want := []Entry{
		{Serial: "127.0.0.1:15561", State: "device", Product: "vphone", Model: "Tandem_Virtual_Phone", Device: "vphone", TransportID: "2"},
		{Serial: "emulator-5554", State: "offline", TransportID: "1"},
		{Serial: "0123456789ABCDEF", State: "no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]", TransportID: "3"},
		{Serial: "R58M1234", State: "unauthorized", TransportID: "4"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	if !got[0].Online() || got[1].Online() {
		t.Error("Online wrong")
	}
	// track-devices sends serial<TAB>state.
	if got := parseDevices("abc\tdevice\nxyz\toffline\n"); len(got) != 2 || got[1].State != "offline" {
		t.Errorf("tab form: %#v", got)
	}
}

func TestParseInfo(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want device.Info
		err  bool
	}{
		{"override wins", "Physical size: 1080x2400\nOverride size: 720x1600\nPhysical density: 440\nOverride density: 320\n" +
			markModel + "\nPixel 7\n" + markBrand + "\ngoogle\n" + markEnd + "\n      SurfaceOrientation: 0\n",
			device.Info{Name: "google Pixel 7", Kind: device.Phone, Screen: action.Size{W: 720, H: 1600}, Density: 320, Scale: 1}, false},
		{"landscape swaps", "Physical size: 1080x2400\nPhysical density: 440\n" + markModel + "\n2211133C\n" + markBrand + "\nXiaomi\n" + markEnd +
			"\n    SurfaceOrientation: 1\n    SurfaceOrientation: 1\n",
			device.Info{Name: "Xiaomi 2211133C", Kind: device.Phone, Screen: action.Size{W: 2400, H: 1080}, Density: 440, Rotation: 90, Scale: 1}, false},
		{"brand already in model, CRLF", "Physical size: 1440x3200\r\nPhysical density: 560\r\n" + markModel + "\r\nSamsung SM-S908\r\n" + markBrand + "\r\nsamsung\r\n" + markEnd + "\r\n",
			device.Info{Name: "Samsung SM-S908", Kind: device.Phone, Screen: action.Size{W: 1440, H: 3200}, Density: 560, Scale: 1}, false},
		{"no dumpsys input", "Physical size: 1080x1920\nPhysical density: 420\n" + markModel + "\n\n" + markBrand + "\n\n" + markEnd + "\nCan't find service: input\n",
			device.Info{Kind: device.Phone, Screen: action.Size{W: 1080, H: 1920}, Density: 420, Scale: 1}, false},
		{"android 14 viewport", "Physical size: 1080x2400\nPhysical density: 420\n" + markModel + "\nPixel 8\n" + markBrand + "\ngoogle\n" + markEnd +
			"\n      Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, orientation=3, logicalFrame=[0, 0, 2400, 1080], isActive=[1]\n",
			device.Info{Name: "google Pixel 8", Kind: device.Phone, Screen: action.Size{W: 2400, H: 1080}, Density: 420, Rotation: 270, Scale: 1}, false},
		{"no size", "/system/bin/sh: wm: inaccessible or not found\n", device.Info{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseInfo(tt.out)
			if (err != nil) != tt.err {
				t.Fatalf("err %v", err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseFocus(t *testing.T) {
	tests := []struct{ out, pkg, act string }{
		{"  mCurrentFocus=Window{1f2e3d u0 com.tencent.mm/com.tencent.mm.ui.LauncherUI}\n  mFocusedApp=ActivityRecord{a1 u0 com.tencent.mm/.ui.LauncherUI t12}",
			"com.tencent.mm", "com.tencent.mm.ui.LauncherUI"},
		{"  mCurrentFocus=Window{99 u0 NotificationShade}\n  mFocusedApp=ActivityRecord{a1 u0 com.android.settings/.Settings t3}",
			"com.android.settings", "com.android.settings.Settings"},
		{"  mCurrentFocus=null\n  mFocusedApp=null", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		p, a := parseFocus(tt.out)
		if p != tt.pkg || a != tt.act {
			t.Errorf("parseFocus(%q) = %q %q, want %q %q", tt.out, p, a, tt.pkg, tt.act)
		}
	}
}

func TestInputTextEscaping(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"hello", []string{"input text 'hello'"}},
		{"hello world", []string{"input text 'hello%sworld'"}},
		{`it's "$HOME" & (a|b);*`, []string{`input text 'it'\''s%s"$HOME"%s&%s(a|b);*'`}},
		{"50%sale", []string{"input text '50%'", "input text 'sale'"}},
		{"a%%sb", []string{"input text 'a%%'", "input text 'sb'"}},
		{"100% sure", []string{"input text '100%%ssure'"}},
		{"%s", []string{"input text '%'", "input text 's'"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := inputTextCmds(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("inputTextCmds(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !plainASCII("abc ~!\nxyz") || plainASCII("你好") || plainASCII("tab\there") || plainASCII("café") {
		t.Error("plainASCII wrong")
	}
}

// androidInputText is what AOSP's Input.sendText does to its argument, so
// the escaping is checked against the real rule, not against itself.
func androidInputText(s string) string {
	b := []rune(s)
	esc := false
	for i := 0; i < len(b); i++ {
		if esc {
			esc = false
			if b[i] == 's' {
				b[i] = ' '
				b = append(b[:i-1], b[i:]...)
				i--
			}
		}
		if b[i] == '%' {
			esc = true
		}
	}
	return string(b)
}

// unquote undoes shellQuote for one `input text '...'` command.
func unquote(t *testing.T, cmd string) string {
	t.Helper()
	arg, ok := strings.CutPrefix(cmd, "input text ")
	if !ok || !strings.HasPrefix(arg, "'") || !strings.HasSuffix(arg, "'") {
		t.Fatalf("not an input text command: %q", cmd)
	}
	return strings.ReplaceAll(arg[1:len(arg)-1], `'\''`, "'")
}

func FuzzInputText(f *testing.F) {
	for _, s := range []string{"hello world", "50%sale", "a%%sb", "100% sure", "%s%s", "'\"`$\\", "% s %s%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainASCII(s) || strings.Contains(s, "\n") {
			return
		}
		var typed strings.Builder
		for _, c := range inputTextCmds(s) {
			typed.WriteString(androidInputText(unquote(t, c)))
		}
		if typed.String() != s {
			t.Fatalf("typing %q gives %q", s, typed.String())
		}
	})
}

func TestKeyCode(t *testing.T) {
	for in, want := range map[string]string{"back": "4", "HOME": "3", "Enter": "66", "KEYCODE_DEL": "67",
		"recent": "187", "app_switch": "187", "volume up": "24", "Volume-Down": "25", "power": "26", "a": "29", "5": "12", "66": "66"} {
		got, err := keyCode(in)
		if err != nil || got != want {
			t.Errorf("keyCode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := keyCode("hyper"); !errors.Is(err, device.ErrUnsupported) {
		t.Errorf("unknown key: %v", err)
	}
}

func TestScrollSwipe(t *testing.T) {
	s := action.Size{W: 1080, H: 2400}
	tests := []struct {
		x, y           int
		dir            string
		x1, y1, x2, y2 int
	}{
		{540, 1200, "down", 540, 1680, 540, 720}, // finger moves up to show what is below
		{540, 1200, "up", 540, 720, 540, 1680},
		{540, 1200, "right", 756, 1200, 324, 1200},
		{540, 1200, "left", 324, 1200, 756, 1200},
		{540, 100, "up", 540, 1, 540, 580}, // kept on screen
		{1070, 2390, "down", 1070, 2398, 1070, 1910},
	}
	for _, tt := range tests {
		x1, y1, x2, y2 := scrollSwipe(s, tt.x, tt.y, tt.dir)
		if x1 != tt.x1 || y1 != tt.y1 || x2 != tt.x2 || y2 != tt.y2 {
			t.Errorf("scroll %s at %d,%d: %d,%d -> %d,%d; want %d,%d -> %d,%d", tt.dir, tt.x, tt.y, x1, y1, x2, y2, tt.x1, tt.y1, tt.x2, tt.y2)
		}
	}
}

func TestAppNames(t *testing.T) {
	d := &Device{}
	for pkg, want := range map[string][]string{
		"com.eg.android.AlipayGphone": {"支付宝", "alipay", "zhifubao", "com.eg.android.AlipayGphone", "eg", "android", "AlipayGphone"},
		"com.tandem.shop":             {"com.tandem.shop", "tandem", "shop"},
		"me.ele":                      {"饿了么", "eleme", "me.ele", "ele"},
		"":                            nil,
	} {
		if got := d.AppNames(pkg); !reflect.DeepEqual(got, want) {
			t.Errorf("AppNames(%q) = %q, want %q", pkg, got, want)
		}
		// The engine names the app in front by the first (one dumpsys a
		// step, not two): it must be what CurrentApp says.
		if got := d.AppNames(pkg); pkg != "" && got[0] != AppLabel(pkg) {
			t.Errorf("AppNames(%q)[0] = %q, AppLabel says %q", pkg, got[0], AppLabel(pkg))
		}
	}
}

func TestResolveApp(t *testing.T) {
	installed := []string{"com.android.settings", "com.tencent.mm", "com.eg.android.AlipayGphone", "com.android.chrome",
		"com.google.android.youtube", "com.miui.notes", "com.tandem.counter", "com.tandem.notes", "com.example.shop.checkout",
		"tv.danmaku.bili", "com.xingin.xhs"}
	tests := []struct {
		name, want string
		err        error
	}{
		{"微信", "com.tencent.mm", nil},
		{"WeChat", "com.tencent.mm", nil},
		{"支付宝", "com.eg.android.AlipayGphone", nil},
		{"设置", "com.android.settings", nil},
		{"Settings", "com.android.settings", nil},
		{"Chrome", "com.android.chrome", nil},
		{"You Tube", "com.google.android.youtube", nil},
		{"哔哩哔哩", "tv.danmaku.bili", nil},
		{"B站", "tv.danmaku.bili", nil},
		{"小红书", "com.xingin.xhs", nil},
		{"备忘录", "com.miui.notes", nil},
		{"com.tandem.counter", "com.tandem.counter", nil},
		{"Counter", "com.tandem.counter", nil},
		{"checkout", "com.example.shop.checkout", nil},
		{"淘宝", "", ErrAppNotFound},
		{"Frobnicator", "", ErrAppNotFound},
		{"  ", "", ErrAppNotFound},
	}
	for _, tt := range tests {
		got, err := resolveApp(tt.name, installed)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("resolveApp(%q) = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
	// "notes" is in the table (com.miui.notes here) and beats fuzzy matches.
	if got, _ := resolveApp("notes", installed); got != "com.miui.notes" {
		t.Errorf("notes -> %q", got)
	}
	if got, _ := resolveApp("notes", installed[:6:6]); got != "com.miui.notes" {
		t.Errorf("notes -> %q", got)
	}
	if got, _ := resolveApp("notes", []string{"com.tandem.notes", "com.other.notesync"}); got != "com.tandem.notes" {
		t.Errorf("fuzzy notes -> %q", got)
	}
}

func TestAllBlack(t *testing.T) {
	black := image.NewNRGBA(image.Rect(0, 0, 64, 128))
	for i := 3; i < len(black.Pix); i += 4 {
		black.Pix[i] = 0xff
	}
	if !allBlack(black) {
		t.Error("black NRGBA not black")
	}
	lit := image.NewRGBA(image.Rect(0, 0, 64, 128))
	copy(lit.Pix, black.Pix)
	lit.Set(63, 127, color.RGBA{200, 200, 200, 255}) // one lit pixel in the last corner
	if allBlack(lit) {
		t.Error("RGBA with a lit pixel is black")
	}
	pal := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.Black, color.White})
	if !allBlack(pal) {
		t.Error("paletted all index 0 not black")
	}
	pal.SetColorIndex(7, 7, 1)
	if allBlack(pal) {
		t.Error("paletted with white is black")
	}
	gray := image.NewGray(image.Rect(0, 0, 8, 8))
	if !allBlack(gray) {
		t.Error("gray black not black")
	}
	gray.Pix[10] = 0x80
	if allBlack(gray) {
		t.Error("gray lit is black")
	}
}

// TestReadRaw: the raw reader gets every byte of each shape screencap's
// output takes, however the stream is cut into reads, and reads past a
// frame's end only to hand the extra bytes to decodeRaw.
func TestReadRaw(t *testing.T) {
	frame := func(head int, w, h uint32) []byte {
		b := make([]byte, head+int(w*h*4))
		binary.LittleEndian.PutUint32(b, w)
		binary.LittleEndian.PutUint32(b[4:], h)
		binary.LittleEndian.PutUint32(b[8:], 1)
		for i := head; i < len(b); i++ {
			b[i] = byte(i)
		}
		return b
	}
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"Android 9+ (16-byte header)", frame(16, 7, 5)},
		{"Android 8 (12-byte header)", frame(12, 7, 5)},
		{"cut mid-frame", frame(16, 7, 5)[:60]},
		{"words", []byte("/system/bin/sh: screencap: inaccessible or not found\n")},
		{"nothing", nil},
		{"a few bytes", []byte{1, 2, 3}},
		{"more than a frame", append(frame(16, 7, 5), 9, 9, 9)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readRaw(iotest.OneByteReader(bytes.NewReader(c.in)), 1<<20)
			if err != nil || !bytes.Equal(got, c.in) {
				t.Fatalf("got %d bytes (%v), want %d", len(got), err, len(c.in))
			}
		})
	}
	// A header no screen fits is refused before anything more is read:
	// its 12 bytes, and not one of the endless bytes a lying phone sends.
	absurd := []byte{0x20, 0x4e, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0} // 20000 wide
	endless := &counting{r: io.MultiReader(bytes.NewReader(absurd), zeros{})}
	if got, err := readRaw(endless, 1<<20); err != nil || !bytes.Equal(got, absurd) || endless.n > 64 {
		t.Errorf("an absurd header: got %d bytes (%v), read %d", len(got), err, endless.n)
	}
	if _, err := decodeRaw(absurd); !errors.Is(err, ErrScreenTooLarge) {
		t.Errorf("an absurd header alone: %v", err)
	}
	// The limit holds for output that is not a frame.
	unknown := append([]byte{7, 0, 0, 0, 5, 0, 0, 0, 99, 0, 0, 0}, make([]byte, 5000)...) // a pixel format it does not read
	if got, _ := readRaw(bytes.NewReader(unknown), 1000); len(got) != 1000 {
		t.Errorf("read %d bytes past a 1000-byte limit", len(got))
	}
}

// counting counts what is read through it.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
