package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/internal/modeltest"
	"tandem/internal/sessionbus"
	"tandem/internal/uicheck"
	"tandem/internal/xvfb"
	"tandem/vphone"
	"tandem/vphone/vphonetest"

	openai "github.com/sashabaranov/go-openai"
)

// The four phones of TestFourPhonesSideBySide, each on an app whose bar
// has a colour of its own (vphone/screens/apps.go), so a tile's screen says
// which phone it shows.
var tileApps = []struct {
	pkg     string
	r, g, b uint32
}{
	{vphone.PkgShop, 0xe5, 0x39, 0x35},
	{vphone.PkgCounter, 0x1e, 0x88, 0xe5},
	{vphone.PkgList, 0x43, 0xa0, 0x47},
	{vphone.PkgNotes, 0xf9, 0xa8, 0x25},
}

const (
	payGoal   = "Buy the item in the shop"
	countGoal = "Keep adding one to the counter"
)

// TestFourPhonesSideBySide: the production window under Xvfb with four
// virtual phones behind one adb server and a scripted model. Side by side,
// the window shows four live tiles, each its own phone's screen. Two tasks
// run at once (the goal bar starts on the focused tile): the shop's asks to
// confirm Pay, which is allowed on its tile while the counter's task keeps
// stepping — its record gains steps — and the Pay tap reaches the shop's
// phone alone. A capture is kept for the README.
func TestFourPhonesSideBySide(t *testing.T) {
	bin := productionBinary(t, "import", "xdotool")
	phones, port := fourPhones(t)
	shop, counter := phones[0], phones[1]
	bus := sessionbus.Start(t)
	notes := bus.Notifications(t)
	release := make(chan struct{}) // the shop's Pay waits until the person is elsewhere
	s := tilesWindow(t, bin, port, tilesModel(t, release).URL, bus.Addr)

	// The view switch, left of the model's badge in the top bar.
	var tiles [4]image.Rectangle
	s.xdo("mousemove", "488", "30", "click", "1")
	s.await("four live tiles, each its own phone's screen", func(img image.Image) bool {
		var ok bool
		tiles, ok = fourTiles(img)
		return ok
	})

	// A task on the shop's tile, then one on the counter's: a click on a
	// tile focuses it, the goal bar starts on it.
	start := func(screen image.Rectangle, goal string) {
		c := screen.Min.Add(screen.Max).Div(2)
		s.xdo("mousemove", strconv.Itoa(c.X), strconv.Itoa(c.Y), "click", "1")
		s.xdo("mousemove", "300", "770", "click", "1")
		s.await("the goal field focused", goalFocused) // keys may overtake the click (goalFocused)
		s.xdo("type", "--delay", "10", goal)
		s.xdo("key", "ctrl+Return")
	}
	start(tiles[0], payGoal)
	// The person moves to another program: the shop's question reaches
	// them as a desktop notification naming its phone.
	closeIt := focusElsewhere(context.Background(), s)
	close(release)
	s.awaitDevice(shop.Addr(), func(r runSeen) bool { return r.requests > 0 }, "the shop's task asks to confirm Pay")
	awaitNote(t, notes, "Phone A", "Pay")
	closeIt()
	s.focusWindow()
	start(tiles[1], countGoal)
	s.awaitDevice(counter.Addr(), func(r runSeen) bool { return r.actions >= 2 }, "the counter's task steps")

	// The shop's tile lights and asks; its Allow is the blue button in it.
	var allow image.Point
	s.await("Allow on the shop's tile", func(img image.Image) bool {
		var ok bool
		allow, ok = accentButton(img, tiles[0])
		return ok
	})
	img, _ := s.capture()
	saveArtifact(t, "window-tiles.png", img)
	if got := shop.State().Foreground; got != vphone.PkgShop {
		t.Fatalf("the shop's phone shows %s", got)
	}
	before := s.device(counter.Addr()).actions
	nShop, nCounter := len(shop.Events()), len(counter.Events())
	s.xdo("mousemove", strconv.Itoa(allow.X), strconv.Itoa(allow.Y), "click", "1")
	s.awaitDevice(shop.Addr(), func(r runSeen) bool { return r.actions >= 1 }, "Pay, allowed on its tile, is done")
	if !tappedSince(shop, nShop) {
		t.Fatal("Pay, allowed on the shop's tile, never reached the shop's phone")
	}
	// The counter's task was never asked and kept stepping meanwhile.
	s.awaitDevice(counter.Addr(), func(r runSeen) bool { return r.actions > before+1 }, "the counter's task steps on")
	if r := s.device(counter.Addr()); r.requests != 0 || r.persons != 0 {
		t.Fatalf("the counter's task was asked %d times and answered %d times; only the shop's was", r.requests, r.persons)
	}
	if !tappedSince(counter, nCounter) {
		t.Fatal("the counter's taps stopped reaching its phone")
	}
	for _, e := range counter.Events() {
		if e.Kind == "tap" && e.Y > 2000 {
			t.Fatalf("the shop's Pay tap reached the counter's phone: %+v", e)
		}
	}
	if img, _ := s.capture(); img != nil {
		if _, ok := fourTiles(img); !ok {
			saveArtifact(t, "window-tiles-after.png", img)
			t.Fatal("after the confirmation a tile no longer shows its own phone (see window-tiles-after.png)")
		}
	}
}

// tilesModel answers each of the two tasks from its own script: the
// counter's task presses +1 for ever (a little to the side each time, so
// it is never a loop); the shop's presses Pay, then thinks until stopped.
func tilesModel(t *testing.T, release <-chan struct{}) *modeltest.Server {
	var counterTaps atomic.Int64
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		text := r.Text()
		switch {
		case strings.Contains(text, countGoal):
			n := counterTaps.Add(1)
			return modeltest.Reply{Content: "Add one.", ToolCalls: []openai.ToolCall{call("tap", fmt.Sprintf(`{"x":%d,"y":500}`, 685+n%20))}}
		case strings.Contains(text, payGoal) && !strings.Contains(text, "Previous steps"):
			<-release
			// Not flagged by the model: the policy's words ("pay") catch it.
			return modeltest.Reply{Content: "Press Pay.", ToolCalls: []openai.ToolCall{call("tap", `{"x":500,"y":908}`)}}
		}
		return modeltest.Reply{Content: "Paid; checking the receipt…", Hold: true}
	})
}

// tilesWindow starts the production window under Xvfb on the adb server
// at port with the model at url, and waits for it (a capture is kept if
// the test fails).
func tilesWindow(t *testing.T, bin string, port int, url, bus string) *stateShooter {
	cfg, data := t.TempDir(), t.TempDir()
	seedProfile(t, cfg, data, url)
	d := xvfb.Start(t, 1280, 820)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(d.Env(), "TANDEM_CONFIG_DIR="+cfg, "TANDEM_DATA_DIR="+data, "LANG=en_US.UTF-8",
		"TANDEM_ADB_PORT="+strconv.Itoa(port), "ADB_LOCAL_TRANSPORT_MAX_PORT=0", "DBUS_SESSION_BUS_ADDRESS="+bus)
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	s := &stateShooter{t: t, d: d, logs: &logs, runs: filepath.Join(data, "runs")}
	s.await("the window", uicheck.LooksLikeTandem)
	s.focusWindow()
	t.Cleanup(func() {
		if t.Failed() {
			if img, _ := s.capture(); img != nil {
				saveArtifact(t, "window-tiles-failed.png", img)
			}
		}
	})
	return s
}

// fourPhones starts four virtual phones behind one private adb server, on
// the apps of tileApps, and returns them and the server's port.
func fourPhones(t *testing.T) ([]*vphone.Phone, int) {
	t.Helper()
	first, env := vphonetest.Start(t, vphone.WithProduct("phone_a", "Phone A", "a"))
	phones := []*vphone.Phone{first}
	for i := 1; i < len(tileApps); i++ {
		name := string(rune('A' + i))
		p, err := vphone.New(vphone.WithProduct("phone_"+strings.ToLower(name), "Phone "+name, strings.ToLower(name)))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		if err := vphonetest.Connect(context.Background(), vphonetest.Env{ADB: env.ADB, Port: env.Port, Serial: p.Addr(), Address: p.Addr()}); err != nil {
			t.Fatal(err)
		}
		phones = append(phones, p)
	}
	for i, p := range phones {
		if err := p.Launch(tileApps[i].pkg); err != nil {
			t.Fatal(err)
		}
	}
	return phones, env.Port
}

// fourTiles finds, in the window, the screen of each phone of tileApps by
// its app's colour in a wide solid run (its app bar; the mirror's video
// shifts colours a little, so the match is loose): each must be there, in
// a column of its own (the tiles of one row), none twice. It returns where
// each phone's runs are.
func fourTiles(img image.Image) ([4]image.Rectangle, bool) {
	var out [4]image.Rectangle
	b := img.Bounds()
	for i, a := range tileApps {
		var r image.Rectangle
		// Its app bar, the topmost run of its colour: a wide tile shows
		// other things of that colour lower down (the note's blue line).
		for y := b.Min.Y + 70; y < b.Max.Y-100 && (r.Empty() || y < r.Min.Y+60); y += 2 {
			run := 0
			for x := b.Min.X; x < b.Max.X-240; x++ { // the needs-you list is on the right
				if !isNear(img, x, y, a.r, a.g, a.b) {
					run = 0
					continue
				}
				if run++; run >= 80 {
					r = r.Union(image.Rect(x-run, y, x+1, y+1))
				}
			}
		}
		if r.Dx() < 80 || r.Dy() < 10 || r.Dx() > 320 {
			return out, false // missing, or spread over more than one tile
		}
		out[i] = r
	}
	xs := []int{out[0].Min.X, out[1].Min.X, out[2].Min.X, out[3].Min.X}
	sort.Ints(xs)
	for i := 1; i < len(xs); i++ {
		if xs[i]-xs[i-1] < 100 {
			return out, false
		}
	}
	return out, true
}

func isNear(img image.Image, x, y int, r, g, b uint32) bool {
	cr, cg, cb, _ := img.At(x, y).RGBA()
	return near(cr>>8, r) && near(cg>>8, g) && near(cb>>8, b)
}

func near(v, want uint32) bool { return v+24 >= want && v <= want+24 }

// accentButton finds a button of the accent colour (#4f6bff: Allow) on the
// tile of the phone whose screen is at screen, below its app bar: rows
// where many of its pixels are.
func accentButton(img image.Image, screen image.Rectangle) (image.Point, bool) {
	var sx, sy, n int
	col := image.Rect(screen.Min.X-20, screen.Min.Y+40, screen.Max.X+20, img.Bounds().Max.Y-100)
	for y := col.Min.Y; y < col.Max.Y; y++ {
		row := 0
		for x := col.Min.X; x < col.Max.X; x++ {
			if isNear(img, x, y, 0x4f, 0x6b, 0xff) {
				row++
			}
		}
		if row < 20 {
			continue
		}
		for x := col.Min.X; x < col.Max.X; x++ {
			if isNear(img, x, y, 0x4f, 0x6b, 0xff) {
				sx, sy, n = sx+x, sy+y, n+1
			}
		}
	}
	if n < 200 {
		return image.Point{}, false
	}
	return image.Pt(sx/n, sy/n), true
}

// runSeen is what a device's run record holds so far.
type runSeen struct {
	actions, requests, persons int
}

// device reads the record of the run on device serial (the newest).
func (s *stateShooter) device(serial string) runSeen {
	dirs, _ := os.ReadDir(s.runs)
	var seen runSeen
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(s.runs, d.Name(), "record.jsonl"))
		if err != nil {
			continue
		}
		var r runSeen
		mine := false
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e struct {
				Kind   string `json:"kind"`
				Device string `json:"device"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			switch e.Kind {
			case "start":
				mine = e.Device == serial
			case "action":
				r.actions++
			case "request":
				r.requests++
			case "person":
				r.persons++
			}
		}
		f.Close()
		if mine {
			seen = r
		}
	}
	return seen
}

// awaitDevice waits until the record of device serial's run satisfies ok.
func (s *stateShooter) awaitDevice(serial string, ok func(runSeen) bool, what string) {
	s.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		if ok(s.device(serial)) {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling the record until the condition holds
	}
	s.t.Fatalf("%s: never (record %+v)\n%s", what, s.device(serial), s.logs.String())
}

// awaitNote waits for the one desktop notification of the test and checks
// it names the phone and what is asked.
func awaitNote(t *testing.T, notes *sessionbus.Server, phone, asked string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	got, err := notes.Wait(ctx, 1)
	if err != nil {
		t.Fatalf("no notification on the session bus while the window was behind: %v", err)
	}
	if n := got[0]; !strings.Contains(n.Summary+" "+n.Body, phone) || !strings.Contains(n.Summary+" "+n.Body, asked) {
		t.Fatalf("the notification %q / %q does not name %q and %q", n.Summary, n.Body, phone, asked)
	}
}

// goalFocused reports whether the goal bar's field has the focus ring (the
// accent colour along its edge), left of the Start button. WebKit queues
// keys apart from the mouse: a key typed at once can reach the page before
// the click that focuses the field.
func goalFocused(img image.Image) bool {
	b := img.Bounds()
	n := 0
	for y := b.Dy() * 87 / 100; y < b.Dy()*99/100; y++ {
		for x := 0; x < b.Dx()*70/100; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near8(r>>8, 0x4f) && near8(g>>8, 0x6b) && near8(bl>>8, 0xff) {
				n++
			}
		}
	}
	return n > 100
}
