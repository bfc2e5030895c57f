package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/internal/xvfb"
)

// One Xvfb for the whole test binary, DISPLAY set here before any test
// runs. Tests run one at a time on it; chromium is started
// once, on first need, and shared.
var (
	screenW, screenH = 1920, 1080
	env              *testEnv
)

// patience is how long a test waits for what must come. A busy machine
// (make test beside other builds, make stress) is slow, never wrong: a test
// may wait long, and fails only when the thing never comes.
const patience = 2 * time.Minute

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, "Xvfb is not installed (run make test, which installs it):", err)
			os.Exit(1)
		}
		fmt.Println("skipping devices/desktop: Xvfb is not installed")
		os.Exit(0)
	}
	d, err := xvfb.Launch(context.Background(), screenW, screenH)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("DISPLAY", d.Name)
	os.Unsetenv("XDG_SESSION_TYPE")
	env = &testEnv{display: d}
	code := m.Run()
	env.close()
	d.Stop()
	os.Exit(code)
}

// testEnv holds the shared page server and chromium.
type testEnv struct {
	display *xvfb.Display
	once    sync.Once
	err     error
	srv     *httptest.Server
	browser *exec.Cmd
	dir     string

	mu     sync.Mutex
	events []pageEvent
	ready  int
}

// pageEvent is one DOM event as the test page reports it.
type pageEvent struct {
	N       int     `json:"n"`
	Type    string  `json:"type"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Button  int     `json:"button"`
	Buttons int     `json:"buttons"`
	Ctrl    bool    `json:"ctrl"`
	Shift   bool    `json:"shift"`
	Alt     bool    `json:"alt"`
	Meta    bool    `json:"meta"`
	Key     string  `json:"key"`
	Code    string  `json:"code"`
	DX      float64 `json:"dx"`
	DY      float64 `json:"dy"`
	Detail  int     `json:"detail"`
	Value   string  `json:"value"`
	T       float64 `json:"t"` // epoch ms
}

func (e pageEvent) String() string {
	return fmt.Sprintf("%s@(%v,%v) b=%d bs=%d detail=%d t=%.1f key=%q ctrl=%v meta=%v dy=%v value=%q", e.Type, e.X, e.Y, e.Button, e.Buttons, e.Detail, e.T, e.Key, e.Ctrl, e.Meta, e.DY, e.Value)
}

// The page covers the screen (chromium --kiosk at 0,0), reports every mouse,
// wheel and key event with its screen position, and holds a text field and a
// colour marker for the screenshot tests.
const testPage = `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;height:100%;background:#fff;overflow:hidden}
#t{position:fixed;left:100px;top:600px;width:800px;height:120px;font-size:24px}
#m{position:fixed;left:1000px;top:40px;width:100px;height:100px;background:rgb(255,0,128)}
#g{position:fixed;left:1200px;top:40px;width:100px;height:100px;background:rgb(0,200,50)}
</style></head><body><textarea id="t"></textarea><div id="m"></div><div id="g"></div><script>
let n = 0;
function send(o) { o.n = ++n; fetch('/event', {method: 'POST', body: JSON.stringify(o), keepalive: true}); }
function rec(e) {
  // After a click the browser may still dispatch a dblclick in the same task:
  // "clickdone" comes after it, so a test can tell "no dblclick" from "not yet".
  if (e.type === 'click') setTimeout(() => send({type: 'clickdone'}), 0);
  send({type: e.type, x: e.screenX, y: e.screenY, button: e.button || 0, buttons: e.buttons || 0,
    ctrl: e.ctrlKey, shift: e.shiftKey, alt: e.altKey, meta: e.metaKey, key: e.key || '', code: e.code || '',
    dx: e.deltaX || 0, dy: e.deltaY || 0, detail: e.detail || 0, t: performance.timeOrigin + e.timeStamp});
}
for (const t of ['mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu', 'wheel', 'keydown', 'mousemove'])
  addEventListener(t, rec, {capture: true, passive: false});
addEventListener('contextmenu', e => e.preventDefault());
addEventListener('wheel', e => e.preventDefault(), {passive: false});
addEventListener('keydown', e => { if ((e.ctrlKey || e.metaKey) && e.target.id !== 't') e.preventDefault(); });
document.getElementById('t').addEventListener('input', e => send({type: 'value', value: e.target.value}));
addEventListener('load', () => send({type: 'ready'}));
</script></body></html>`

func (e *testEnv) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, testPage)
	case "/event":
		var ev pageEvent
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		e.mu.Lock()
		if ev.Type == "ready" {
			e.ready++
		}
		e.events = append(e.events, ev)
		e.mu.Unlock()
	default:
		http.NotFound(w, r)
	}
}

// page starts (once) the server and chromium showing the test page, and
// returns the env with its event log cleared.
func page(t *testing.T) *testEnv {
	t.Helper()
	e := env
	e.once.Do(func() { e.err = e.start() })
	if e.err != nil {
		t.Fatal(e.err)
	}
	// Another test may have focused a window of its own, and there is no
	// window manager here to give the page the keyboard back on a click.
	run(t, "xdotool", "search", "--onlyvisible", "--class", "chromium", "windowfocus", "--sync", "%1")
	e.reset()
	return e
}

func (e *testEnv) start() error {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("chromium is not installed: %w", err)
	}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	e.dir, err = os.MkdirTemp("", "tandem-chromium-")
	if err != nil {
		return err
	}
	e.browser = exec.Command(chromium, "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-translate", "--password-store=basic", "--noerrdialogs",
		"--force-device-scale-factor=1", "--user-data-dir="+e.dir, "--window-position=0,0",
		fmt.Sprintf("--window-size=%d,%d", screenW, screenH), "--kiosk", e.srv.URL+"/")
	e.browser.Env = e.display.Env()
	if err := e.browser.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) {
		e.mu.Lock()
		ok := e.ready > 0
		e.mu.Unlock()
		if ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("chromium did not load the test page in %v", patience)
}

func (e *testEnv) close() {
	if e.browser != nil && e.browser.Process != nil {
		_ = e.browser.Process.Kill()
		_ = e.browser.Wait()
	}
	if e.srv != nil {
		e.srv.Close()
	}
	if e.dir != "" {
		os.RemoveAll(e.dir)
	}
}

// reset waits until the page has gone quiet (events of the last action
// still in flight, like the mouseup after a contextmenu, must not leak into
// the next check), then clears the log.
func (e *testEnv) reset() {
	n, since := -1, time.Now()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		e.mu.Lock()
		m := len(e.events)
		e.mu.Unlock()
		if m != n {
			n, since = m, time.Now()
		} else if time.Since(since) >= 150*time.Millisecond {
			break
		}
	}
	e.mu.Lock()
	e.events = nil
	e.mu.Unlock()
}

// snapshot returns the events so far in the page's order.
func (e *testEnv) snapshot() []pageEvent {
	e.mu.Lock()
	out := append([]pageEvent(nil), e.events...)
	e.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

// waitFor polls the event log until ok holds for it, or fails the test.
func (e *testEnv) waitFor(t *testing.T, what string, ok func([]pageEvent) bool) []pageEvent {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		evs := e.snapshot()
		if ok(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, ev := range evs {
				fmt.Fprintln(&b, " ", ev)
			}
			t.Fatalf("timed out waiting for %s; events:\n%s", what, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// clicksDone reports whether the page has finished dispatching what the
// k-th click (from 1) set off: its "clickdone" mark has arrived, and so has
// every event the page numbered between the two.
func clicksDone(evs []pageEvent, k int) bool {
	clicks := ofType(evs, "click")
	if len(clicks) < k {
		return false
	}
	from := clicks[k-1].N
	seen := map[int]bool{}
	for _, ev := range evs {
		seen[ev.N] = true
	}
	for _, ev := range ofType(evs, "clickdone") {
		if ev.N <= from {
			continue
		}
		for n := from + 1; n < ev.N; n++ {
			if !seen[n] {
				return false
			}
		}
		return true
	}
	return false
}

func ofType(evs []pageEvent, typ string) []pageEvent {
	var out []pageEvent
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func count(typ string, n int) func([]pageEvent) bool {
	return func(evs []pageEvent) bool { return len(ofType(evs, typ)) >= n }
}

// open opens display 0 with opts and closes it when the test ends.
func open(t *testing.T, opts Options) *Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	d, err := Open(ctx, "desktop:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env.display.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func execIn(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = env.display.Env()
	return cmd
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
