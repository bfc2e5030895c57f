//go:build linux

package backend

import (
	"context"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
	"tandem/internal/xvfb"
)

// A run on this computer keeps its video as a phone's does: the desktop's
// own H.264 (the mirror's encoder, captured with Tandem's windows painted
// over), read back by ffmpeg.
func TestADesktopRunKeepsAVideo(t *testing.T) {
	for _, tool := range []string{"xterm", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	d := xvfb.Start(t, 640, 400)
	t.Setenv("DISPLAY", d.Name)
	xterm := exec.Command("xterm", "-geometry", "80x20+0+0")
	xterm.Env = d.Env()
	if err := xterm.Start(); err != nil {
		t.Skip("xterm: ", err)
	}
	t.Cleanup(func() { _ = xterm.Process.Kill(); _ = xterm.Wait() })
	var calls atomic.Int32
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		if calls.Add(1) == 1 {
			return modeltest.Reply{Content: "Type.", ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "type", Arguments: `{"text":"echo a video of this computer"}`}}}}
		}
		return modeltest.Reply{Content: "Done.", ToolCalls: []openai.ToolCall{{ID: "c2", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "finish", Arguments: `{"summary":"ok","success":true}`}}}}
	})
	b := New(Config{ConfigDir: t.TempDir(), DataDir: t.TempDir(), KeyFile: true, ADB: "127.0.0.1:1"})
	t.Cleanup(b.Shutdown)
	p := scriptedProfile(t, b, srv.URL, "sk-desk-0000")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := runDone(ctx, t, b, "desktop:0", "Type in the terminal", RunChoice{Profile: p.ID})
	b.waitVideos()
	vids := runVideos(run.Dir())
	if len(vids) != 1 {
		t.Fatalf("the desktop run left %d videos (the mirror's path: %+v)", len(vids), b.hub.PathOf("desktop:0"))
	}
	// Every picture as the file times it (passthrough): two pictures a
	// millisecond apart (a key frame sent again as a viewer joins) are
	// the file's right; ffmpeg's default retiming to a guessed rate calls
	// them out of order, and so does its default encoder clock, ticks of
	// that rate (two pictures 17 ms apart fell in one): the file's own
	// millisecond clock (-enc_time_base -1) still calls out two in one.
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", filepath.Join(run.Dir(), vids[0].Name), "-fps_mode", "passthrough", "-enc_time_base", "-1", "-f", "null", "-").CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("ffmpeg could not decode the desktop's video cleanly: %v\n%s", err, out)
	}
}
