package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// syncBuffer is a bytes.Buffer safe for the run's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func toolReply(content, name, args string) modeltest.Reply {
	return modeltest.Reply{Content: content, ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: args}}}}
}

// centre is the phone's node s (resource id or text) in rel1000 arguments.
func centre(t testing.TB, p *vphone.Phone, s string) string {
	t.Helper()
	b, ok := p.Bounds(s)
	if !ok {
		b, ok = p.BoundsOfText(s)
	}
	if !ok {
		t.Fatalf("no %q on the phone", s)
	}
	w, h := p.Size()
	c := b.Min.Add(b.Max).Div(2)
	return fmt.Sprintf(`{"x":%d,"y":%d}`, c.X*1000/w, c.Y*1000/h)
}

// `tandem run` drives the virtual phone through a private adb server (found
// through TANDEM_ADB_PORT) with a chat-completions server, printing progress.
func TestRunDrivesVirtualPhone(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		st := phone.State()
		switch {
		case st.Foreground != vphone.PkgCounter:
			return toolReply("Open the counter first.", "launch", `{"app":"Counter"}`)
		case st.Counter < 2:
			return toolReply("Tap +1.", "tap", centre(t, phone, "+1"))
		}
		return toolReply("", "finish", `{"summary":"The counter shows 2.","success":true}`)
	})
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	t.Setenv("TANDEM_API_KEY", "sk-cli-test")
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--device", env.Serial, "--goal", "Make the counter show 2",
		"--base-url", srv.URL, "--model", "scripted", "--data-dir", t.TempDir()}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if c := phone.State().Counter; c != 2 {
		t.Fatalf("counter %d", c)
	}
	text := out.String()
	for _, want := range []string{"[Planning]", "thinking: Open the counter first.", "step 1: launch(Counter) -> ok",
		"step 3: tap(", `) “+1” -> ok`, "usage: 4 calls", "Done success=true: The counter shows 2."} {
		if !strings.Contains(text, want) {
			t.Fatalf("progress lacks %q:\n%s", want, text)
		}
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-cli-test" {
		t.Fatalf("authorization %q", got)
	}
	// The tools dialect's reference sampling goes out explicitly: a
	// temperature of 0 left out would let the server sample at 1.
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, `"temperature":0,`) && !strings.HasSuffix(body, `"temperature":0}`) {
		t.Fatalf("request does not send temperature 0: %.300s", body)
	}
}

// A payment waits for the person on the terminal: a reason denies it (the
// model hears the reason), "y" allows it.
func TestRunAsksBeforePaying(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	pay := centre(t, phone, "pay_button")
	srv := modeltest.New(t,
		toolReply("Pay.", "tap", pay),
		toolReply("Try again.", "tap", pay),
		toolReply("", "finish", `{"summary":"Paid.","success":true}`))
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Buy the earbuds", "--base-url", srv.URL, "--data-dir", t.TempDir()},
		Stdin: strings.NewReader("not that card\ny\n"), Stdout: &out, Stderr: &errOut})
	if code != ExitOK || !phone.State().Paid {
		t.Fatalf("exit %d paid %v\nstdout:\n%s\nstderr:\n%s", code, phone.State().Paid, out.String(), errOut.String())
	}
	if n := strings.Count(out.String(), "? confirm:"); n != 2 {
		t.Fatalf("%d confirmation requests:\n%s", n, out.String())
	}
	if !strings.Contains(srv.Requests()[1].Text(), "not that card") {
		t.Fatal("the denial's reason did not reach the model")
	}
	if !strings.Contains(errOut.String(), "allow?") {
		t.Fatalf("no prompt: %s", errOut.String())
	}
}

// At "allow?" the person types as people do: "不要" refuses without a
// reason, a sentence refuses with it, a full-width "ＹＥＳ" allows; the
// record has each answer as the person meant it.
func TestRunConfirmTypedAnswers(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	pay := centre(t, phone, "pay_button")
	srv := modeltest.New(t,
		toolReply("Pay.", "tap", pay),
		toolReply("Pay again.", "tap", pay),
		toolReply("Pay once more.", "tap", pay),
		toolReply("", "finish", `{"summary":"Paid.","success":true}`))
	var out, errOut syncBuffer
	data := t.TempDir()
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Buy the earbuds", "--base-url", srv.URL, "--data-dir", data},
		Stdin: strings.NewReader("不要\nuse the other card\nＹＥＳ\n"), Stdout: &out, Stderr: &errOut})
	if code != ExitOK || !phone.State().Paid {
		t.Fatalf("exit %d paid %v\nstdout:\n%s\nstderr:\n%s", code, phone.State().Paid, out.String(), errOut.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls", len(reqs))
	}
	if second := reqs[1].Text(); !strings.Contains(second, "did NOT allow") || strings.Contains(second, "Their reason") {
		t.Fatalf("after 不要 the model heard: %s", second)
	}
	if third := reqs[2].Text(); !strings.Contains(third, `Their reason: "use the other card"`) {
		t.Fatalf("after a reason the model heard: %s", third)
	}
	runs, err := os.ReadDir(data)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs in the data dir: %v %v", runs, err)
	}
	entries, _, err := engine.ReadRecord(filepath.Join(data, runs[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, e := range entries {
		if e.Kind == engine.EntryPerson {
			said = append(said, e.Command+":"+e.Text)
		}
	}
	if got := strings.Join(said, "|"); got != "deny:|deny:use the other card|confirm:" {
		t.Fatalf("the record has the person say %s", got)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"run"}, {"run", "--device", "x", "--goal", "g", "--base-url", "http://127.0.0.1:1/v1", "--adb-port", "0"},
		{"run", "--device", "x", "--goal", "g", "--base-url", "http://127.0.0.1:1/v1", "extra"},
		{"run", "--device", "x", "--goal", "g", "--base-url", "http://127.0.0.1:1/v1", "--temperature", "3"},
		{"run", "--device", "x", "--goal", "g", "--base-url", "http://127.0.0.1:1/v1", "--top-p", "0"}} {
		var out, errOut syncBuffer
		if code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != ExitUsage {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
}

// With no model saved and none on the line, run says both ways to give
// one: Settings, and the flags or variables of the command line.
func TestRunWithNoModelSaysHowToGiveOne(t *testing.T) {
	t.Setenv("TANDEM_CONFIG_DIR", t.TempDir())
	t.Setenv("TANDEM_BASE_URL", "")
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--device", "x", "--goal", "g"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	for _, want := range []string{"Settings", "--base-url", "TANDEM_BASE_URL"} {
		if code != ExitUsage || !strings.Contains(errOut.String(), want) {
			t.Fatalf("exit %d, no %q in:\n%s", code, want, errOut.String())
		}
	}
}

// A model that never answers: the terminal says the run waits for it, with
// the seconds, and --timeout stops the run and exits non-zero. (10 s: the
// first waiting line comes 2 s into the call, which starts late under -race.)
// The time limit ended it, not the person: so say the terminal and the
// record.
func TestRunTimeoutWhileModelWaits(t *testing.T) {
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Silent: true} })
	var out, errOut syncBuffer
	data := t.TempDir()
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Open the counter", "--base-url", srv.URL, "--data-dir", data, "--timeout", "10s"},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitFail {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "waiting for the model (2 s)…") || !strings.Contains(errOut.String(), "--timeout 10s reached") ||
		!strings.Contains(out.String(), "Stopped success=false: the time limit (10s) was reached") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	if strings.Contains(errOut.String(), `\n`) || strings.Contains(out.String(), "person") {
		t.Fatalf("a literal \\n, or the person blamed:\nstdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	runs, err := os.ReadDir(data)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs in the data dir: %v %v", runs, err)
	}
	entries, _, err := engine.ReadRecord(filepath.Join(data, runs[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	last := entries[len(entries)-1]
	if last.Kind != engine.EntryEnd || last.End.State != engine.Stopped || last.End.Reason != "the time limit (10s) was reached" {
		t.Fatalf("the record ends with %+v", last)
	}
	for _, e := range entries {
		if e.By == "stop" || e.Command == "stop" {
			t.Fatalf("the record has the person stop the run: %+v", e)
		}
	}
}

// A server that echoes the refused key in the forms servers use: no piece
// of it reaches the terminal, in text or JSON.
func TestRunRedactsEchoedKey(t *testing.T) {
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	t.Setenv("TANDEM_API_KEY", key)
	for _, asJSON := range []bool{false, true} {
		srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{EchoKey: true} })
		args := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
			"--goal", "Open the counter", "--base-url", srv.URL, "--data-dir", t.TempDir()}
		if asJSON {
			args = append(args, "--json")
		}
		var out, errOut syncBuffer
		if code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != ExitFail {
			t.Fatalf("exit %d", code)
		}
		all := out.String() + errOut.String()
		if !strings.Contains(all, "401") {
			t.Fatalf("the refusal is not told:\n%s", all)
		}
		la := strings.ToLower(all)
		for i := 0; i+6 <= len(key); i++ {
			if strings.Contains(la, strings.ToLower(key[i:i+6])) {
				t.Fatalf("%q of the key reached the terminal:\n%s", key[i:i+6], all)
			}
		}
	}
}

// A run cut off before its end (the process killed) is continued with
// `tandem run --resume ID`: the device and goal come from the record, and
// without --data-dir the record is where the app's History reads it
// ($TANDEM_DATA_DIR/runs).
func TestRunResumesInterruptedRun(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	data := t.TempDir()
	t.Setenv("TANDEM_DATA_DIR", data)
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	plus := func() modeltest.Reply { return toolReply("Tap +1.", "tap", centre(t, phone, "+1")) }
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t, plus(), toolReply("", "finish", `{"summary":"one","success":true}`),
		toolReply("", "finish", `{"summary":"The counter shows 1.","success":true}`))
	var out, errOut syncBuffer
	args := []string{"run", "--device", env.Serial, "--goal", "Make the counter show 1", "--base-url", srv.URL}
	if code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	runs, err := os.ReadDir(filepath.Join(data, "runs"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("records under the app's data dir: %v %v", runs, err)
	}
	id := runs[0].Name()
	// Cut the record before its end, as a kill -9 would.
	rec := filepath.Join(data, "runs", id, "record.jsonl")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	keep := ""
	for _, l := range lines {
		if strings.Contains(l, `"kind":"end"`) || strings.Contains(l, `"type":"finish"`) {
			break
		}
		keep += l
	}
	if err := os.WriteFile(rec, []byte(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut = syncBuffer{}, syncBuffer{}
	code := Run(context.Background(), Env{Args: []string{"run", "--resume", id, "--base-url", srv.URL},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK || !strings.Contains(out.String(), "The counter shows 1.") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(srv.Requests()[2].Text(), "resumed from its record") {
		t.Fatal("the model was not told the run was resumed")
	}
}
