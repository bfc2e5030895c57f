package desktop

import (
	"context"
	"fmt"
	"image"
	"io"
	"log"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/record"
	mshm "github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xinerama"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"tandem/engine/device"
)

// quietXGB silences jezek/xgb's package logger, which otherwise prints two
// warnings per connection when there is no ~/.Xauthority (always so under
// Xvfb -ac). It is the library's own global; we set it once.
var quietXGB sync.Once

// dial opens an X connection to display ("" means $DISPLAY) and honours ctx
// while connecting. Errors wrap device.ErrGone: no X server, no desktop.
func dial(ctx context.Context, display string) (*xgb.Conn, error) {
	quietXGB.Do(func() { xgb.Logger = log.New(io.Discard, "", 0) })
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("%w: no X display (DISPLAY is not set; Wayland-only sessions are not supported)", device.ErrGone)
	}
	type result struct {
		c   *xgb.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := xgb.NewConnDisplay(display)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("%w: connect to X display %s: %v", device.ErrGone, display, r.err)
		}
		initExtensions(r.c)
		return r.c, nil
	case <-ctx.Done():
		go func() {
			if r := <-done; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// jezek/xgb's extension Init functions write package-global maps of event
// and error constructors that every connection's reader goroutine reads
// unlocked: calling Init while another connection is live is a data race
// (and can be a fatal concurrent map access). So each extension is Init-ed
// once per process, on our first connection, before any other of ours
// exists; later connections only learn the extension's opcode, which is
// per connection and locked.
var extensions = struct {
	sync.Mutex
	done map[string]bool
}{done: map[string]bool{}}

func initExtensions(c *xgb.Conn) {
	extensions.Lock()
	defer extensions.Unlock()
	for _, e := range []struct {
		name string
		init func(*xgb.Conn) error
	}{{"RANDR", randr.Init}, {"XINERAMA", xinerama.Init}, {"MIT-SHM", mshm.Init}, {"XTEST", xtest.Init},
		{"RECORD", record.Init}} {
		if !extensions.done[e.name] {
			if e.init(c) == nil {
				extensions.done[e.name] = true
			}
			continue
		}
		r, err := xproto.QueryExtension(c, uint16(len(e.name)), e.name).Reply()
		if err != nil || !r.Present {
			continue
		}
		c.ExtLock.Lock()
		c.Extensions[e.name] = r.MajorOpcode
		c.ExtLock.Unlock()
	}
}

// hasExtension reports whether c may issue requests of the extension.
func hasExtension(c *xgb.Conn, name string) bool {
	c.ExtLock.RLock()
	defer c.ExtLock.RUnlock()
	_, ok := c.Extensions[name]
	return ok
}

// monitor is one display as the X server reports it, in root coordinates.
type monitor struct {
	Name    string
	Bounds  image.Rectangle
	Primary bool
}

// monitors lists the displays: RandR 1.5 monitors when the server has them
// (real desktops and Xvfb alike, including `xrandr --setmonitor` splits), else
// Xinerama screens, else the whole root window.
func monitors(c *xgb.Conn) ([]monitor, error) {
	root := xproto.Setup(c).DefaultScreen(c)
	if ms := randrMonitors(c, root.Root); len(ms) > 0 {
		return ms, nil
	}
	if hasExtension(c, "XINERAMA") {
		if r, err := xinerama.QueryScreens(c).Reply(); err == nil && len(r.ScreenInfo) > 0 {
			ms := make([]monitor, 0, len(r.ScreenInfo))
			for i, s := range r.ScreenInfo {
				ms = append(ms, monitor{
					Name:    "screen-" + strconv.Itoa(i),
					Bounds:  image.Rect(int(s.XOrg), int(s.YOrg), int(s.XOrg)+int(s.Width), int(s.YOrg)+int(s.Height)),
					Primary: i == 0,
				})
			}
			return ms, nil
		}
	}
	return []monitor{{
		Name:    "screen",
		Bounds:  image.Rect(0, 0, int(root.WidthInPixels), int(root.HeightInPixels)),
		Primary: true,
	}}, nil
}

func randrMonitors(c *xgb.Conn, root xproto.Window) []monitor {
	if !hasExtension(c, "RANDR") {
		return nil
	}
	v, err := randr.QueryVersion(c, 1, 5).Reply()
	if err != nil || v.MajorVersion < 1 || (v.MajorVersion == 1 && v.MinorVersion < 5) {
		return nil
	}
	r, err := randr.GetMonitors(c, root, true).Reply()
	if err != nil {
		return nil
	}
	ms := make([]monitor, 0, len(r.Monitors))
	for _, m := range r.Monitors {
		if m.Width == 0 || m.Height == 0 {
			continue
		}
		name := ""
		if an, err := xproto.GetAtomName(c, m.Name).Reply(); err == nil {
			name = an.Name
		}
		ms = append(ms, monitor{
			Name:    name,
			Bounds:  image.Rect(int(m.X), int(m.Y), int(m.X)+int(m.Width), int(m.Y)+int(m.Height)),
			Primary: m.Primary,
		})
	}
	return ms
}

// hidpiScale reads the desktop's scale from the Xft.dpi resource (what GTK,
// Qt and Chromium follow on X11): 96 dpi is 1, 192 is 2. X11 has one scale
// for all monitors. Screenshots and input both stay in physical pixels on X11,
// so the scale is reported for the model and UI; it never shifts coordinates.
func hidpiScale(c *xgb.Conn) float64 {
	root := xproto.Setup(c).DefaultScreen(c).Root
	atom, err := internAtom(c, "RESOURCE_MANAGER")
	if err != nil {
		return 1
	}
	r, err := xproto.GetProperty(c, false, root, atom, xproto.AtomString, 0, 1<<16).Reply()
	if err != nil {
		return 1
	}
	return scaleFromResources(string(r.Value))
}

// scaleFromResources parses an X resource database for Xft.dpi.
func scaleFromResources(db string) float64 {
	for _, line := range strings.Split(db, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != "Xft.dpi" {
			continue
		}
		dpi, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || dpi <= 0 || dpi > 960 {
			return 1
		}
		return math.Round(dpi/96*100) / 100
	}
	return 1
}

func internAtom(c *xgb.Conn, name string) (xproto.Atom, error) {
	r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("intern atom %s: %w", name, err)
	}
	return r.Atom, nil
}
