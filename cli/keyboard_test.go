package cli

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// childEnv makes the test binary act as `tandem` (see TestMain), so a test
// can kill a real `tandem run` process.
const childEnv = "TANDEM_CLI_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	// The person's settings and profiles of every test's `tandem run`
	// live in a folder of the tests' own, never the developer's.
	dir, err := os.MkdirTemp("", "tandem-cli-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TANDEM_CONFIG_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// saveProfile saves p with key in the tests' settings, as the window
// would, and makes it the active profile.
func saveProfile(t *testing.T, p backend.Profile, key string) backend.Profile {
	t.Helper()
	cfg := backend.ConfigFromEnv()
	cfg.KeyFile = true
	b := backend.New(cfg)
	saved, err := b.SaveProfile(p, key)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := b.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	s := loaded.Settings
	s.ActiveProfile = saved.ID
	if _, err := b.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.DeleteProfile(saved.ID) })
	return saved
}

// A `tandem run` killed with SIGKILL while ADB Keyboard stands in for the
// person's keyboard; the next start (with the same data dir) gives the
// keyboard back and says so.
func TestKilledWhileTypingKeyboardComesBack(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	if err := phone.Launch(vphone.PkgNotes); err != nil {
		t.Fatal(err)
	}
	before := phone.State().IME
	data := t.TempDir()
	srv := modeltest.New(t,
		modeltest.Reply{Content: "Write it.", ToolCalls: append(toolReply("", "tap", centre(t, phone, "note_editor")).ToolCalls,
			toolReply("", "type", `{"text":"你好，世界"}`).ToolCalls...)},
		modeltest.Reply{Silent: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Write 你好，世界 in a note", "--base-url", srv.URL)
	cmd.Env = append(os.Environ(), childEnv+"=1", "TANDEM_DATA_DIR="+data)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(45 * time.Second)
	for phone.State().IME != vphone.IMEADB || len(srv.Requests()) < 2 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the run never typed: IME %q, %d requests\n%s", phone.State().IME, len(srv.Requests()), out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// While it types, another Tandem on the same data dir (a listing, a
	// run refused on the held phone) leaves its keyboard alone: the note
	// is a live driver's, not a crash's (issue 49).
	t.Setenv("TANDEM_DATA_DIR", data)
	var lo, le, ro, re syncBuffer
	Run(ctx, Env{Args: []string{"devices", "--adb-port", strconv.Itoa(env.Port)}, Stdout: &lo, Stderr: &le})
	Run(ctx, Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial, "--goal", "Read",
		"--base-url", srv.URL}, Stdin: strings.NewReader(""), Stdout: &ro, Stderr: &re})
	if got := phone.State().IME; got != vphone.IMEADB {
		t.Fatalf("another Tandem took the keyboard from a live run: %q\n%s%s%s", got, le.String(), ro.String(), re.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing runs on the way out
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := phone.State().IME; got != vphone.IMEADB {
		t.Fatalf("after the kill the keyboard is %q; the test needs ADB Keyboard left on", got)
	}

	// The next start, with a model that finishes at once.
	srv2 := modeltest.New(t, toolReply("", "finish", `{"summary":"Nothing to do.","success":true}`))
	var o, e syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", env.Serial,
		"--goal", "Check the note", "--base-url", srv2.URL}, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, o.String(), e.String())
	}
	if got := phone.State().IME; got != before {
		t.Fatalf("keyboard %q after the new start, want the person's %q", got, before)
	}
	if !strings.Contains(e.String(), "gave your keyboard back on "+env.Serial) {
		t.Fatalf("the new start did not say so:\n%s", e.String())
	}
}
