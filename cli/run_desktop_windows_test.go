//go:build windows

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tandem/devices/desktop/win"
	"tandem/devices/desktop/win/wintest"
	"tandem/internal/modeltest"
)

// windowState is what the helper process's window received.
type windowState struct {
	Clicked bool   `json:"clicked"`
	Text    string `json:"text"`
}

var helperRect = image.Rect(200, 150, 500, 350)

// TestHelperDesktopWindow is not a test: run by TestRunDesktopTypesIntoAWindow
// in a process of its own (Tandem never acts on its own process's windows),
// it shows a test window and keeps its state in the file
// $TANDEM_HELPER_WINDOW until the parent is done.
func TestHelperDesktopWindow(t *testing.T) {
	path := os.Getenv("TANDEM_HELPER_WINDOW")
	if path == "" {
		t.Skip("helper process only")
	}
	w := wintest.Open(t, helperRect)
	var last []byte
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st := windowState{Clicked: len(w.Records()) > 0, Text: w.Text()}
		b, _ := json.Marshal(st)
		if string(b) != string(last) {
			if err := os.WriteFile(path+".tmp", b, 0o644); err == nil {
				_ = os.Rename(path+".tmp", path)
			}
			last = b
		}
		if _, err := os.Stat(path + ".done"); err == nil {
			return
		}
	}
}

// `tandem run --device desktop:0` on Windows (under Wine in `make
// wine-test`): the scripted model clicks into another program's Win32
// window and types Chinese and ASCII into it; the run ends in success and
// the window holds the text.
func TestRunDesktopTypesIntoAWindow(t *testing.T) {
	infos, err := win.Displays(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	screen := infos[0].Screen
	dir, err := os.MkdirTemp("", "tandem-desktop-run")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir) // best effort: Wine may refuse while a file is still mapped
	state := filepath.Join(dir, "window.json")
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperDesktopWindow$", "-test.timeout=3m")
	helper.Env = append(os.Environ(), "TANDEM_HELPER_WINDOW="+state)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = os.WriteFile(state+".done", nil, 0o644)
		done := make(chan error, 1)
		go func() { done <- helper.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = helper.Process.Kill()
		}
	}()
	read := func() windowState {
		var st windowState
		b, _ := os.ReadFile(state)
		_ = json.Unmarshal(b, &st)
		return st
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(state); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper's window never showed")
		}
	}
	c := helperRect.Min.Add(helperRect.Max).Div(2)
	at := fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/screen.W, c.Y*1000/screen.H)
	const text = "你好 Tandem"
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := read()
		switch {
		case !st.Clicked:
			return toolReply("Click into the window.", "tap", at)
		case st.Text != text:
			return toolReply("Type the greeting.", "type", `{"text":"`+text+`"}`)
		}
		return toolReply("", "finish", `{"summary":"Typed.","success":true}`)
	})
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--device", "desktop:0", "--goal", "Type a greeting into the window",
		"--base-url", srv.URL, "--model", "scripted", "--data-dir", filepath.Join(dir, "runs")}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if got := read().Text; got != text {
		t.Fatalf("the window holds %q, want %q\n%s", got, text, out.String())
	}
	if s := out.String(); !strings.Contains(s, "step 1: tap(") || !strings.Contains(s, "Done success=true: Typed.") {
		t.Fatalf("progress:\n%s", s)
	}
}
