//go:build windows

package cli

import (
	"context"
	"fmt"
	"image"
	"strings"
	"testing"

	"tandem/engine/device/desktop/win"
	"tandem/engine/device/desktop/win/wintest"
	"tandem/engine/model/modeltest"
)

// `tandem run --device desktop:0` on Windows (under Wine in `make
// wine-test`): the scripted model clicks into a Win32 window and types
// Chinese and ASCII into it; the run ends in success and the window holds
// the text.
func TestRunDesktopTypesIntoAWindow(t *testing.T) {
	infos, err := win.Displays(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	screen := infos[0].Screen
	w := wintest.Open(t, image.Rect(200, 150, 500, 350))
	c := w.Rect.Min.Add(w.Rect.Max).Div(2)
	at := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/screen.W, c.Y*1000/screen.H)
	const text = "你好 Tandem"
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		switch {
		case len(w.Records()) == 0:
			return toolReply("Click into the window.", "tap", at)
		case w.Text() != text:
			return toolReply("Type the greeting.", "type", `{"text":"`+text+`"}`)
		}
		return toolReply("", "finish", `{"summary":"Typed.","success":true}`)
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--device", "desktop:0", "--goal", "Type a greeting into the window",
		"--base-url", srv.URL, "--model", "scripted", "--data-dir", t.TempDir()}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if got := w.Text(); got != text {
		t.Fatalf("the window holds %q, want %q\n%s", got, text, out.String())
	}
	if s := out.String(); !strings.Contains(s, "step 1: tap(") || !strings.Contains(s, "Done success=true: Typed.") {
		t.Fatalf("progress:\n%s", s)
	}
}
