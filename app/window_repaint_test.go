package app

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestWindowRepaintsOnlyWhatChanged: while the model thinks, the page's
// clock ticks once a second (the elapsed time, the thinking mark, the status
// dot). The window repaints in software, so a tick must repaint those few
// small places, never the window: before, a changed line in one column made
// WebKit lay that column out and repaint it whole (a grid item laid out
// again is repainted whole), and the dot's blink gave it a layer of its own
// and took it away, which repainted the whole control bar; WebKit then
// painted the box around those, 1,256x737 pixels a second.
//
// What was painted is read from WebKit itself, its remote inspector's
// Timeline (WEBKIT_INSPECTOR_HTTP_SERVER, a WebKitGTK feature), in the
// production window: each drawing is a record holding what started it (a
// timer, for the clock) and the rectangles it painted.
func TestWindowRepaintsOnlyWhatChanged(t *testing.T) {
	port := freeLoopbackPort(t)
	w := startBenchWindow(t, false, 0, "WEBKIT_INSPECTOR_HTTP_SERVER=127.0.0.1:"+strconv.Itoa(port))
	frames := recordFrames(t, port, 5500*time.Millisecond)

	// A drawing is the clock's when the page's last work before it was a
	// timer's (WebKit paints on a timer of its own, after the work), not an
	// engine event's script or a DOM event. As in still, the drawings are
	// judged from the clock's second tick: the inspector's arrival repaints
	// much of the window once, and on a busy machine that came after the
	// first tick (a make test beside another).
	ticks, drawings, cause, largest := 0, 0, "", 0
	for _, f := range frames {
		if f.cause != "" {
			cause = f.cause
		}
		if f.cause == "TimerFire" {
			ticks++
		}
		if ticks < 2 || cause != "TimerFire" || len(f.paints) == 0 {
			continue
		}
		drawings++
		largest = max(largest, f.area())
		f.small(t, w, "thinking")
	}
	t.Logf("%d drawings of the clock from its second tick, the largest %d pixels", drawings, largest)
	if drawings < 2 {
		t.Fatalf("in 5.5 s of thinking, %d drawings of the page's clock from its second tick (want at least 2); all: %+v", drawings, frames)
	}
}

// TestWindowStaysStill: a window the person only watches draws its clock
// once a second and nothing else, in a run whose Steps list scrolls, while
// the model thinks and while the run is paused. Before, WebKitGTK's overlay
// scrollbars faded out for three seconds after each new layout of their
// list, at 60 frames a second (ScrollbarsControllerGeneric.cpp), and each
// tick of the clock laid the list out again (paused, the whole right
// column): the window repainted the scrollbars' strip 25–60 times a second
// for as long as the run lasted, and a paused window cost the machine more
// than a working one.
func TestWindowStaysStill(t *testing.T) {
	port := freeLoopbackPort(t)
	// Enough steps, each a card with its picture, for the list to scroll
	// at 1280x820.
	w := startBenchWindow(t, false, 6, "WEBKIT_INSPECTOR_HTTP_SERVER=127.0.0.1:"+strconv.Itoa(port))
	const scrolls = `(() => { const l = document.querySelector('[data-testid="timeline"] ol'); return !!l && l.scrollHeight > l.clientHeight + 40 })()`
	if v := pageValue(t, port, scrolls); v != "true" {
		t.Fatalf("after six steps the Steps list does not scroll (%s): this test would prove nothing", v)
	}
	// The list keeps its newest row in view.
	const atEnd = `(() => { const l = document.querySelector('[data-testid="timeline"] ol'); return l.lastElementChild.getBoundingClientRect().bottom <= l.getBoundingClientRect().bottom + 1 })()`
	for deadline := time.Now().Add(15 * time.Second); pageValue(t, port, atEnd) != "true"; {
		if time.Now().After(deadline) {
			t.Fatal("15 s after the sixth step the Steps list is not scrolled to its newest row")
		}
		time.Sleep(100 * time.Millisecond) // polling the page until it has scrolled
	}
	const span = 6 * time.Second
	still(t, w, "thinking", recordFrames(t, port, span))
	w.xdo("key", "space")
	w.awaitRecord("Paused", 1)
	still(t, w, "paused", recordFrames(t, port, span))
}

// still checks that in frames the window drew no more than its clock
// needs (once a tick, and twice more at most), each drawing small, apart
// from what an engine event made it draw. It judges from the clock's second
// tick: before it the page may still be drawing the run's last events (a
// step's card and picture, the list scrolling to it), and the inspector's
// arrival repaints the window once.
func still(t *testing.T, w *benchWindow, what string, frames []drawing) {
	t.Helper()
	ticks, drawn, cause := 0, 0, ""
	var sizes []int
	for _, f := range frames {
		if f.cause != "" {
			cause = f.cause
		}
		if f.cause == "TimerFire" {
			ticks++
		}
		if ticks < 2 || len(f.paints) == 0 || cause == "EvaluateScript" {
			continue
		}
		drawn++
		sizes = append(sizes, f.area())
		f.small(t, w, what)
	}
	judged := ticks - 1 // the ticks from the second on
	if judged < 2 {
		t.Fatalf("%s, the page's clock ticked %d times in the recording (want at least 3): %+v", what, ticks, frames)
	}
	if drawn > judged+2 {
		t.Errorf("%s, with nothing changing but the clock, the window drew %d times in %d of its ticks: pixels painted each time %v",
			what, drawn, judged, sizes)
	}
	t.Logf("%s: %d drawings in %d ticks, pixels %v", what, drawn, judged, sizes)
}

// drawing is one of the page's turns, as WebKit's Timeline records it.
type drawing struct {
	cause  string            // the page's work in it: TimerFire (a timer of the page's), EvaluateScript (the app's script: an event), EventDispatch (a DOM event: the mirror's picture over its socket, a load), FireAnimationFrame, or none
	paints []image.Rectangle // what it painted
}

// area is how many pixels the drawing painted.
func (f drawing) area() int {
	a := 0
	for _, p := range f.paints {
		a += p.Dx() * p.Dy()
	}
	return a
}

// small fails the test if a drawing of the clock painted more than a
// quarter of w's window: more than the clock's marks could ever need, less
// than any one column or the box around two of them.
func (f drawing) small(t *testing.T, w *benchWindow, what string) {
	t.Helper()
	screen := float64(w.d.Width * w.d.Height)
	if a := f.area(); float64(a) > screen/4 {
		t.Errorf("%s, a drawing of the clock painted %d pixels (%.0f%% of the window): %v",
			what, a, 100*float64(a)/screen, f.paints)
	}
}

// timelineRecord is a record of the inspector protocol's Timeline domain:
// its type and, for Paint, the painted quad (four corners, x and y each).
type timelineRecord struct {
	Type string `json:"type"`
	Data struct {
		Clip []float64 `json:"clip"`
	} `json:"data"`
	Children []timelineRecord `json:"children"`
}

// walk notes what rec and its children say about drawing f.
func (rec timelineRecord) walk(f *drawing) {
	switch rec.Type {
	case "TimerFire", "EvaluateScript", "EventDispatch", "FireAnimationFrame", "ObserverCallback":
		f.cause = rec.Type
	case "Paint":
		if c := rec.Data.Clip; len(c) == 8 {
			f.paints = append(f.paints, image.Rect(int(c[0]), int(c[1]), int(c[4]), int(c[5])))
		}
	}
	for _, c := range rec.Children {
		c.walk(f)
	}
}

// recordFrames records the page's drawings for span through WebKit's remote
// inspector on port.
func recordFrames(t *testing.T, port int, span time.Duration) []drawing {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := dialPage(ctx, t, port)
	defer p.conn.CloseNow()
	p.send("Timeline.enable", map[string]any{})
	p.send("Timeline.setInstruments", map[string]any{"instruments": []string{"Timeline"}})
	p.send("Timeline.start", map[string]any{})
	recording, stop := context.WithTimeout(ctx, span)
	defer stop()
	var frames []drawing
	for {
		msg, err := p.read(recording)
		if err != nil {
			if ctx.Err() == nil {
				return frames // the span is over
			}
			t.Fatalf("from the inspector: %v (%d drawings so far)", err, len(frames))
		}
		var inner struct {
			Method string `json:"method"`
			Params struct {
				Record timelineRecord `json:"record"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &inner) == nil && inner.Method == "Timeline.eventRecorded" {
			var f drawing
			inner.Params.Record.walk(&f)
			frames = append(frames, f)
		}
	}
}

// pageValue evaluates expr in the window's page and returns its value as
// JSON.
func pageValue(t *testing.T, port int, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := dialPage(ctx, t, port)
	defer p.conn.CloseNow()
	id := p.send("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	for {
		msg, err := p.read(ctx)
		if err != nil {
			t.Fatalf("evaluating %s in the page: %v", expr, err)
		}
		var reply struct {
			ID     int `json:"id"`
			Result struct {
				Result struct {
					Value json.RawMessage `json:"value"`
				} `json:"result"`
				WasThrown bool `json:"wasThrown"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &reply) == nil && reply.ID == id {
			if reply.Result.WasThrown {
				t.Fatalf("evaluating %s in the page threw: %s", expr, msg)
			}
			return string(reply.Result.Result.Value)
		}
	}
}

// inspectedPage is a connection to WebKit's remote inspector with the
// window's page as its target: each message to the page goes inside
// Target.sendMessageToTarget, and each from it comes inside
// Target.dispatchMessageFromTarget (WebKit's protocol,
// Source/JavaScriptCore/inspector/protocol/Target.json, Timeline.json and
// Runtime.json).
type inspectedPage struct {
	t      *testing.T
	ctx    context.Context
	conn   *websocket.Conn
	target string
	id     int
}

// dialPage connects to the inspector on port and waits for the page to be
// its target. A connection made while the window is still loading may be
// closed before it offers the page: it tries again until ctx ends.
func dialPage(ctx context.Context, t *testing.T, port int) *inspectedPage {
	t.Helper()
	base := fmt.Sprintf("127.0.0.1:%d", port)
	for {
		path := inspectorPage(ctx, t, base)
		p, err := offeredPage(ctx, t, "ws://"+base+path)
		if err == nil {
			return p
		}
		if ctx.Err() != nil {
			t.Fatalf("the inspector never offered the page: %v", err)
		}
		t.Logf("the inspector's socket %s: %v; again", path, err)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond): // the page is loading; asking again
		}
	}
}

// offeredPage connects to the inspector's socket at url and reads until it
// offers the page as a target.
func offeredPage(ctx context.Context, t *testing.T, url string) (*inspectedPage, error) {
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(16 << 20)
	for {
		_, raw, err := conn.Read(ctx)
		if err != nil {
			conn.CloseNow()
			return nil, err
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				TargetInfo struct {
					TargetID string `json:"targetId"`
				} `json:"targetInfo"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Method == "Target.targetCreated" {
			return &inspectedPage{t: t, ctx: ctx, conn: conn, target: m.Params.TargetInfo.TargetID}, nil
		}
	}
}

// send sends a command to the page and returns its id.
func (p *inspectedPage) send(method string, params map[string]any) int {
	p.id++
	inner, _ := json.Marshal(map[string]any{"id": p.id, "method": method, "params": params})
	msg, _ := json.Marshal(map[string]any{"id": p.id, "method": "Target.sendMessageToTarget",
		"params": map[string]any{"targetId": p.target, "message": string(inner)}})
	if err := p.conn.Write(p.ctx, websocket.MessageText, msg); err != nil {
		p.t.Fatalf("to the inspector: %v", err)
	}
	return p.id
}

// read returns the page's next message (a reply or an event).
func (p *inspectedPage) read(ctx context.Context) ([]byte, error) {
	for {
		_, raw, err := p.conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Method == "Target.dispatchMessageFromTarget" {
			return []byte(m.Params.Message), nil
		}
	}
}

// inspectPath finds the page's socket in the inspector's list of targets
// (an HTML page whose button opens "Main.html?ws=<host>/socket/…").
var inspectPath = regexp.MustCompile(`(/socket/[0-9]+/[0-9]+/WebPage)`)

// inspectorPage waits for WebKit's inspector server at base to list the
// window's page and returns the path of its socket.
func inspectorPage(ctx context.Context, t *testing.T, base string) string {
	t.Helper()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+base+"/", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := inspectPath.FindSubmatch(body); m != nil {
				return string(m[1])
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("WebKit's inspector at %s never listed the page", base)
		case <-time.After(200 * time.Millisecond): // polling the server until it lists the page
		}
	}
}

// TestWindowShowsTheGoalWhole: in the production window a run of 40 steps
// (its Steps list long, scrolled to its foot) shows the run's goal on its
// whole line under the Steps heading, as read from the screen: the
// heading's bottom border and the goal's are a line's height apart.
// Before, WebKitGTK shrank the goal's line to give the long list more room
// (a flex column's parts shrink by their size, and the list's was its 40
// cards): the goal showed the top half of its words. A query of the page
// saw it whole (the query lays the page out again), so the screen is read.
func TestWindowShowsTheGoalWhole(t *testing.T) {
	w := startBenchWindow(t, false, 40)
	var rows []int
	for deadline := time.Now().Add(20 * time.Second); ; {
		img, _ := captureScreen(w.d)
		if img != nil {
			rows = lineRows(img, w.d.Width, w.d.Height)
			if len(rows) >= 2 && rows[1]-rows[0] >= 30 {
				return
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond) // reading the screen until the list has settled
	}
	if img, raw := captureScreen(w.d); img != nil {
		_ = os.MkdirAll(filepath.Join("..", "test-artifacts"), 0o755)
		_ = os.WriteFile(filepath.Join("..", "test-artifacts", "window-goal-cut.png"), raw, 0o644)
	}
	t.Fatalf("the Steps panel's borders below its heading's words, top down, at rows %v: the goal's line (between the first two) is under 30 px high (test-artifacts/window-goal-cut.png)", rows)
}

// lineRows finds the Steps panel (the right column's box) and returns the
// rows where a border crosses it below its heading's words (the heading's
// own border first), top down, just inside its left edge.
func lineRows(img image.Image, width, height int) []int {
	isLine := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return near8(r>>8, 0xe3) && near8(g>>8, 0xe6) && near8(b>>8, 0xec)
	}
	// The panel's left border, on the heading's row.
	y0 := height * 11 / 100
	left := -1
	for x := width * 70 / 100; x < width*80/100; x++ {
		if isLine(x, y0) {
			left = x
			break
		}
	}
	if left < 0 {
		return nil
	}
	var rows []int
	for y := y0; y < height*30/100; y++ {
		if isLine(left+5, y) && (len(rows) == 0 || rows[len(rows)-1] < y-1) {
			rows = append(rows, y)
		}
	}
	return rows
}
