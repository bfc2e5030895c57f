package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWindowPlaysARunVideo: the production window (WebKitGTK, its video
// through GStreamer) plays a run's video in History while the run goes on,
// and a click on a step seeks it there (issue 52). The page is read and
// clicked through WebKit's remote inspector; the screen is kept in
// test-artifacts/window-video-history.png.
func TestWindowPlaysARunVideo(t *testing.T) {
	port := freeLoopbackPort(t)
	w := startBenchWindow(t, false, 3, "WEBKIT_INSPECTOR_HTTP_SERVER=127.0.0.1:"+strconv.Itoa(port))
	until := func(what, expr string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); pageValue(t, port, expr) != "true"; {
			if time.Now().After(deadline) {
				state := pageValue(t, port, `(v => v && JSON.stringify({t: v.currentTime, seeking: v.seeking, ready: v.readyState, net: v.networkState, err: v.error && v.error.code, d: v.duration}))(document.querySelector('[data-testid="history-video"]'))`)
				t.Fatalf("timed out waiting for %s (%s); the video: %s\n%s", what, expr, state, w.logs.String())
			}
			time.Sleep(200 * time.Millisecond) // polling the page until the condition holds
		}
	}
	until("three steps", `document.querySelectorAll('[data-testid="step"]').length >= 3`)
	// The run is stopped: its video is whole.
	pageValue(t, port, `window.go.app.RunsAPI.ActiveRuns().then(rs => rs.forEach(r => window.go.app.RunsAPI.Stop(r.id))), true`)
	until("the run stopped", `document.querySelector('[data-testid="run-state"]')?.innerText === 'Stopped'`)
	pageValue(t, port, `document.querySelector('[data-testid="history"]').click(), true`)
	until("the run in History", `!!document.querySelector('[data-testid="history-dialog"] [data-testid^="view-"]')`)
	pageValue(t, port, `document.querySelector('[data-testid="history-dialog"] [data-testid^="view-"]').click(), true`)
	const video = `document.querySelector('[data-testid="history-video"]')`
	until("the video's length", `!!`+video+` && `+video+`.readyState >= 1 && `+video+`.duration > 0`)
	t3 := pageValue(t, port, `(document.querySelectorAll('[data-testid="history-step"]')[2]?.dataset.t ?? 'none')`)
	if _, err := strconv.ParseFloat(strings.Trim(t3, `"`), 64); err != nil {
		t.Fatalf("step 3 names no time in the video: %s", t3)
	}
	pageValue(t, port, `document.querySelectorAll('[data-testid="history-step"]')[2].click(), true`)
	until("the video at step 3", `Math.abs(`+video+`.currentTime - `+strings.Trim(t3, `"`)+`) < 0.05 && !`+video+`.seeking && `+video+`.readyState >= 2`)
	until("step 3 the current one", `document.querySelectorAll('[data-testid="history-step"]')[2].dataset.current === 'true'`)
	if _, raw := captureScreen(w.d); raw != nil {
		_ = os.MkdirAll(filepath.Join("..", "test-artifacts"), 0o755)
		_ = os.WriteFile(filepath.Join("..", "test-artifacts", "window-video-history.png"), raw, 0o644)
	}
}
