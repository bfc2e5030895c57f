package app

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"net/http"
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
	frames := recordFrames(t, port, 4500*time.Millisecond)

	// A drawing is the clock's when the page's last work before it was a
	// timer's (WebKit paints on a timer of its own, after the work), not an
	// engine event's script.
	screen := float64(w.d.Width * w.d.Height)
	ticks, cause, largest := 0, "", 0
	for _, f := range frames {
		if f.cause != "" {
			cause = f.cause
		}
		if cause != "TimerFire" || len(f.paints) == 0 {
			continue
		}
		ticks++
		area := 0
		for _, p := range f.paints {
			area += p.Dx() * p.Dy()
		}
		largest = max(largest, area)
		// A quarter of the window: more than the three marks could ever
		// need, less than any one column or the box around two of them.
		if float64(area) > screen/4 {
			t.Errorf("a drawing of the clock painted %d pixels (%.0f%% of the window): %v",
				area, 100*float64(area)/screen, f.paints)
		}
	}
	t.Logf("%d drawings of the clock, the largest %d pixels", ticks, largest)
	if ticks < 2 {
		t.Fatalf("in 4.5 s of thinking, %d drawings of the page's clock (want at least 2); all: %+v", ticks, frames)
	}
}

// drawing is one of the page's turns, as WebKit's Timeline records it.
type drawing struct {
	cause  string            // the page's work in it: TimerFire (a timer of the page's), EvaluateScript (the app's script: an event), or none
	paints []image.Rectangle // what it painted
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
	case "TimerFire", "EvaluateScript":
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
// inspector on port: the page is a target of the inspector's connection, and
// each message to it goes inside Target.sendMessageToTarget (WebKit's
// protocol, Source/JavaScriptCore/inspector/protocol/Target.json and
// Timeline.json).
func recordFrames(t *testing.T, port int, span time.Duration) []drawing {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := fmt.Sprintf("127.0.0.1:%d", port)
	page := inspectorPage(ctx, t, base)
	conn, _, err := websocket.Dial(ctx, "ws://"+base+page, nil)
	if err != nil {
		t.Fatalf("the inspector's socket %s: %v", page, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)

	var target string
	id := 0
	send := func(method string, params map[string]any) {
		id++
		inner, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
		msg, _ := json.Marshal(map[string]any{"id": id, "method": "Target.sendMessageToTarget",
			"params": map[string]any{"targetId": target, "message": string(inner)}})
		if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
			t.Fatalf("to the inspector: %v", err)
		}
	}
	// Until the page is a target, then for span from the recording's start.
	recording, started := ctx, false
	var frames []drawing
	for {
		_, raw, err := conn.Read(recording)
		if err != nil {
			if started && ctx.Err() == nil {
				return frames // the span is over
			}
			t.Fatalf("from the inspector: %v (%d drawings so far)", err, len(frames))
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				TargetInfo struct {
					TargetID string `json:"targetId"`
				} `json:"targetInfo"`
				Message string `json:"message"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		switch m.Method {
		case "Target.targetCreated":
			if started {
				continue
			}
			target = m.Params.TargetInfo.TargetID
			send("Timeline.enable", map[string]any{})
			send("Timeline.setInstruments", map[string]any{"instruments": []string{"Timeline"}})
			send("Timeline.start", map[string]any{})
			var stop context.CancelFunc
			recording, stop = context.WithTimeout(ctx, span)
			defer stop()
			started = true
		case "Target.dispatchMessageFromTarget":
			var inner struct {
				Method string `json:"method"`
				Params struct {
					Record timelineRecord `json:"record"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(m.Params.Message), &inner) == nil && inner.Method == "Timeline.eventRecorded" {
				var f drawing
				inner.Params.Record.walk(&f)
				frames = append(frames, f)
			}
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
