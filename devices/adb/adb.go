// Package adb drives an Android phone through the adb server, as the
// engine's device.Device.
//
// Why our own host-protocol code next to gadb: gadb covers the simple host
// calls (connect, disconnect), but it has no exec:, no forwards to
// localabstract:, no device tracking and, above all, takes no context: its
// reads wait up to 60 s. Everything that touches a device therefore goes
// through Server (host.go), a small client of the adb server's wire protocol
// (`%04x`+request, OKAY/FAIL, host:transport:SERIAL, then the service's
// stream) whose connection is closed the moment the call's context ends.
//
// Choices, with their reasons:
//   - Screenshots use `exec:screencap -p`: exec: is binary-safe (no PTY, no
//     CRLF mangling) and PNG is a tenth of raw RGBA on the wire. An all-black
//     or failed capture is a FLAG_SECURE window and is reported as
//     device.ErrSecureScreen rather than handed to a model as a black image.
//   - Commands use shell v2 when the phone offers it (exit codes and stderr),
//     else shell v1 with an echoed exit marker, so a cut stream is detected.
//   - Any Unicode text goes through ADB Keyboard (ADB_INPUT_B64). The user's
//     own keyboard is written to a state file before it is switched, and
//     restored on Close, on RestoreKeyboard, and — after a crash — the next
//     time Open sees that phone. Without ADB Keyboard only ASCII can be typed
//     (`input text`); anything else is refused with device.ErrNeedsKeyboard
//     instead of typing garbage.
//   - A vanished device (unplugged, offline, connection dropped) is
//     device.ErrGone; MIUI's missing "USB debugging (Security settings)" is
//     device.ErrPermission; right_click and hotkey are device.ErrUnsupported.
//   - One connection to the server that breaks while the phone stays online
//     is tried once more where that is safe (again, host.go): before the
//     server took the transport, and for reads. An input whose answer was
//     lost may have landed and is never repeated; the engine looks again.
package adb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
)

// Options configure a Device.
type Options struct {
	Server Server // the adb server; zero value = 127.0.0.1:5037
	Serial string // the phone; "" = the only online phone
	// StateDir holds what must survive a crash (the user's keyboard while
	// ADB Keyboard is active). "" disables persistence.
	StateDir string
	// IdleRetries bounds retries of `uiautomator dump` when the phone says
	// "could not get idle state"; 0 = 3.
	IdleRetries int
	// Driven: another Tandem drives the phone now (it holds its lease), so
	// a keyboard note for it is that driver's, typing, not a crash's: Open
	// leaves the keyboard as it is.
	Driven bool
	// OnClose is called once Close has given the phone back (its keyboard
	// restored): the driver's lease is let go there, so the next driver
	// finds the phone as the person left it.
	OnClose func()
}

// Device is one Android phone.
type Device struct {
	srv      Server
	serial   string
	v2       bool
	stateDir string
	retries  int

	mu        sync.Mutex
	info      device.Info // last Info, for scroll lengths
	hasInfo   bool
	origIME   string // the user's keyboard while ours is active; "" when not switched
	kbActive  bool   // ADB Keyboard is the current input method
	closed    bool
	closeOnce sync.Once
	closeErr  error
	onClose   func()      // Options.OnClose
	pngOnly   atomic.Bool // the raw screencap was not understood: PNG from now on
	recovered string      // the keyboard Open gave back after an earlier crash
	frames    frames      // the last raw frame and a spare buffer
	noSum     atomic.Bool // the phone cannot checksum a capture (Unchanged)
	sumMissed atomic.Bool // its checksum said "changed" since the last capture
}

var (
	_ device.Device    = (*Device)(nil)
	_ device.UITree    = (*Device)(nil)
	_ device.Confirmer = (*Device)(nil)
)

// Open connects to a phone, checks it is online and, if an earlier Tandem
// crashed while its keyboard was switched, restores the user's keyboard.
func Open(ctx context.Context, opts Options) (*Device, error) {
	srv := opts.Server
	if err := srv.Ensure(ctx); err != nil {
		return nil, err
	}
	serial := opts.Serial
	if serial == "" {
		list, err := srv.Devices(ctx)
		if err != nil {
			return nil, err
		}
		var online []string
		for _, e := range list {
			if e.Online() {
				online = append(online, e.Serial)
			}
		}
		switch len(online) {
		case 0:
			return nil, fmt.Errorf("%w: no phone is connected to adb (%d listed, none online)", device.ErrGone, len(list))
		case 1:
			serial = online[0]
		default:
			return nil, fmt.Errorf("several phones are connected (%s); choose one by serial", strings.Join(online, ", "))
		}
	}
	st, err := srv.State(ctx, serial)
	if err != nil {
		return nil, err
	}
	if st != "device" {
		return nil, fmt.Errorf("%w: %s is %s", device.ErrGone, serial, st)
	}
	feats, err := srv.Features(ctx, serial)
	if err != nil {
		return nil, err
	}
	d := &Device{srv: srv, serial: serial, stateDir: opts.StateDir, retries: opts.IdleRetries, onClose: opts.OnClose}
	if d.retries <= 0 {
		d.retries = 3
	}
	for _, f := range feats {
		if f == "shell_v2" {
			d.v2 = true
		}
	}
	if opts.Driven {
		return d, nil
	}
	if err := d.recoverKeyboard(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// Serial returns the phone's adb serial.
func (d *Device) Serial() string { return d.serial }

// Close restores the user's keyboard. It does not take a context because it
// runs when the caller's context is often already cancelled; it gives the
// phone a few seconds.
func (d *Device) Close() error {
	d.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d.closeErr = d.RestoreKeyboard(ctx)
		d.mu.Lock()
		d.closed = true
		d.mu.Unlock()
		if d.onClose != nil {
			d.onClose()
		}
	})
	return d.closeErr
}

// sh runs a shell command and turns the phone's complaints into typed errors.
func (d *Device) sh(ctx context.Context, cmd string) (Result, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return Result{}, errors.New("adb: device is closed")
	}
	res, err := d.srv.Shell(ctx, d.serial, d.v2, cmd)
	if err != nil {
		return res, err
	}
	if err := phoneError(res); err != nil {
		return res, fmt.Errorf("%s: %w", firstWord(cmd), err)
	}
	return res, nil
}

// read is sh for a command that only reads (the screen's size, the UI
// tree, the app in front): run again once if its connection broke.
func (d *Device) read(ctx context.Context, cmd string) (Result, error) {
	return again(ctx, func() (Result, error) { return d.sh(ctx, cmd) })
}

// run is sh that also fails on a non-zero exit status.
func (d *Device) run(ctx context.Context, cmd string) (Result, error) {
	res, err := d.sh(ctx, cmd)
	if err != nil {
		return res, err
	}
	if res.Exit != 0 {
		return res, &CommandError{Cmd: cmd, Exit: res.Exit, Output: res.Output()}
	}
	return res, nil
}

// CommandError is a shell command that exited non-zero.
type CommandError struct {
	Cmd    string
	Exit   int
	Output string
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("adb shell %s: exit %d: %s", e.Cmd, e.Exit, e.Output)
}

// phoneError recognises failures the phone reports as text. Android gives
// no other signal for these, so this is where its messages are read.
func phoneError(res Result) error {
	out := res.Output()
	switch {
	case strings.Contains(out, "INJECT_EVENTS permission"):
		return fmt.Errorf("%w: the phone refused input injection (Xiaomi/MIUI: turn on "+
			"\"USB debugging (Security settings)\" in Developer options, then reconnect): %s",
			device.ErrPermission, lastLine(out))
	case strings.Contains(out, "java.lang.SecurityException"):
		return fmt.Errorf("%w: %s", device.ErrPermission, lastLine(out))
	}
	return nil
}

func firstWord(cmd string) string {
	w, _, _ := strings.Cut(cmd, " ")
	return w
}

func lastLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "Exception") {
			return strings.TrimSpace(l)
		}
	}
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Capabilities lists the phone's actions: everything but right_click and hotkey.
func (d *Device) Capabilities() device.Capabilities {
	return device.Capabilities{
		Actions: []action.Type{action.Tap, action.DoubleTap, action.LongPress, action.Swipe,
			action.Drag, action.Scroll, action.TypeText, action.Key, action.Launch, action.Wait},
		UITree: true,
	}
}

// infoCmd asks for everything Info needs in one round trip; each part is on
// its own line and recognised by its prefix.
const infoCmd = "wm size; wm density; echo " + markModel + "; getprop ro.product.model; echo " + markBrand +
	"; getprop ro.product.brand; echo " + markEnd + "; dumpsys input | grep -E 'SurfaceOrientation|Viewport INTERNAL'"

const (
	markModel = "--tandem-model--"
	markBrand = "--tandem-brand--"
	markEnd   = "--tandem-end--"
)

// Info returns the screen size (an override wins; swapped when the phone is
// in landscape, so it matches screenshots), density, rotation and model.
func (d *Device) Info(ctx context.Context) (device.Info, error) {
	res, err := d.read(ctx, infoCmd)
	if err != nil {
		return device.Info{}, err
	}
	info, err := parseInfo(string(res.Stdout))
	if errors.Is(err, ErrScreenTooLarge) {
		return device.Info{}, d.refuse("reports a screen of", err)
	}
	if err != nil {
		return device.Info{}, err
	}
	info.ID = d.serial
	if info.Name == "" {
		info.Name = d.serial
	}
	d.mu.Lock()
	d.info, d.hasInfo = info, true
	d.mu.Unlock()
	return info, nil
}

// infoLines reads the output of the info command line by line.
type infoLines struct {
	info               device.Info
	physical, override action.Size
	pDensity, oDensity int
	brand              string
	in                 string // the marker section we are in
	rotated            bool
}

func (p *infoLines) line(line string) {
	switch line {
	case markModel, markBrand, markEnd:
		p.in = line
		return
	}
	switch {
	case p.in == markModel && line != "":
		p.info.Name = line
		return
	case p.in == markBrand && line != "":
		p.brand = line
		return
	}
	k, v, ok := strings.Cut(line, ":")
	v = strings.TrimSpace(v)
	switch {
	case ok && k == "Physical size":
		p.physical, _ = action.ParseSize(v)
	case ok && k == "Override size":
		p.override, _ = action.ParseSize(v)
	case ok && k == "Physical density":
		p.pDensity, _ = strconv.Atoi(v)
	case ok && k == "Override density":
		p.oDensity, _ = strconv.Atoi(v)
	case ok && k == "SurfaceOrientation":
		p.orientation(v)
	case strings.HasPrefix(line, "Viewport INTERNAL:"):
		// Android 13+: "Viewport INTERNAL: displayId=0, ..., orientation=1, ..."
		if _, rest, ok := strings.Cut(line, " orientation="); ok {
			n, _, _ := strings.Cut(rest, ",")
			p.orientation(n)
		}
	}
}

// orientation takes the first rotation (0–3) the output names.
func (p *infoLines) orientation(v string) {
	if r, err := strconv.Atoi(v); err == nil && r >= 0 && r <= 3 && !p.rotated {
		p.info.Rotation, p.rotated = r*90, true
	}
}

func parseInfo(out string) (device.Info, error) {
	p := infoLines{info: device.Info{Kind: device.Phone, Scale: 1}}
	for _, line := range strings.Split(out, "\n") {
		p.line(strings.TrimSpace(line))
	}
	info, physical, override, pDensity, oDensity, brand := p.info, p.physical, p.override, p.pDensity, p.oDensity, p.brand
	info.Screen = physical
	if override.W > 0 {
		info.Screen = override
	}
	if info.Screen.W == 0 {
		return device.Info{}, fmt.Errorf("adb: `wm size` gave no size: %q", strings.TrimSpace(out))
	}
	if !screenFits(int64(info.Screen.W), int64(info.Screen.H)) {
		return device.Info{}, tooLarge(int64(info.Screen.W), int64(info.Screen.H))
	}
	if info.Rotation == 90 || info.Rotation == 270 {
		info.Screen.W, info.Screen.H = info.Screen.H, info.Screen.W
	}
	info.Density = pDensity
	if oDensity > 0 {
		info.Density = oDensity
	}
	if brand != "" && info.Name != "" && !strings.HasPrefix(strings.ToLower(info.Name), strings.ToLower(brand)) {
		info.Name = brand + " " + info.Name
	}
	return info, nil
}

// screen returns the last known screen size, asking once if needed.
func (d *Device) screen(ctx context.Context) (action.Size, error) {
	d.mu.Lock()
	info, ok := d.info, d.hasInfo
	d.mu.Unlock()
	if ok {
		return info.Screen, nil
	}
	info, err := d.Info(ctx)
	return info.Screen, err
}

// ForegroundApp returns the package and activity of the focused window
// (`dumpsys window` mCurrentFocus); both are "" when nothing has focus.
func (d *Device) ForegroundApp(ctx context.Context) (pkg, activity string, err error) {
	res, err := d.read(ctx, "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")
	if err != nil {
		return "", "", err
	}
	pkg, activity = parseFocus(string(res.Stdout))
	if say := strings.TrimSpace(string(res.Stderr)); pkg == "" && say != "" {
		// The phone said why it named no window (a "Permission Denial"):
		// the reading failed, and the person is told why.
		return "", "", fmt.Errorf("dumpsys window: %s", clip(say, 200))
	}
	return pkg, activity, nil
}

// parseFocus reads "mCurrentFocus=Window{1f2 u0 com.tencent.mm/com.tencent.mm.ui.LauncherUI}",
// falling back to mFocusedApp (ActivityRecord{... u0 pkg/.Act t12}).
func parseFocus(out string) (pkg, activity string) {
	for _, want := range []string{"mCurrentFocus=", "mFocusedApp="} {
		for _, line := range strings.Split(out, "\n") {
			_, rest, ok := strings.Cut(line, want)
			if !ok {
				continue
			}
			for _, tok := range strings.Fields(strings.Trim(rest, "{}")) {
				tok = strings.TrimRight(tok, "}")
				if p, a, ok := strings.Cut(tok, "/"); ok && strings.Contains(p, ".") {
					if strings.HasPrefix(a, ".") {
						a = p + a
					}
					return p, a
				}
			}
		}
	}
	return "", ""
}
