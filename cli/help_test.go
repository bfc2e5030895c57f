package cli

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// Every subcommand's -h is help, not an error: exit 0, its options shown.
func TestSubcommandHelpExitsZero(t *testing.T) {
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		for _, h := range []string{"-h", "--help"} {
			code, out, errOut := run(t, c.name, h)
			if code != ExitOK || !strings.Contains(strings.ToLower(out+errOut), "usage") {
				t.Errorf("%s %s: exit %d, output %q", c.name, h, code, out+errOut)
			}
		}
	}
}

// `tandem help run` is run's own help (on stdout), not the general one;
// an unknown name is refused.
func TestHelpOfOneCommand(t *testing.T) {
	code, out, errOut := run(t, "help", "run")
	if code != ExitOK || !strings.Contains(out, "-goal") || strings.Contains(out, "Commands:") {
		t.Fatalf("tandem help run: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := run(t, "help", "nosuch"); code != ExitUsage || !strings.Contains(errOut, `no command "nosuch"`) {
		t.Fatalf("tandem help nosuch: exit %d %s", code, errOut)
	}
}

// The help names every environment variable the program reads.
func TestHelpNamesEnvironment(t *testing.T) {
	_, out, _ := run(t, "help")
	_, _, runHelp := run(t, "run", "-h")
	for _, v := range []string{"TANDEM_BASE_URL", "TANDEM_MODEL", "TANDEM_API_KEY", "TANDEM_ADB_PORT", "ANDROID_ADB_SERVER_PORT",
		"TANDEM_CONFIG_DIR", "TANDEM_DATA_DIR", "TANDEM_SCRCPY_SERVER", "TANDEM_PROBE_PORTS"} {
		if !strings.Contains(out, v) {
			t.Errorf("tandem help does not name %s", v)
		}
	}
	for _, v := range []string{"TANDEM_BASE_URL", "TANDEM_MODEL", "TANDEM_API_KEY", "TANDEM_ADB_PORT", "TANDEM_CONFIG_DIR", "--profile"} {
		if !strings.Contains(runHelp, v) {
			t.Errorf("tandem run -h does not name %s", v)
		}
	}
}

// main hands the command line everything but flags meant for the window
// (Wails' -devserver, say): a mistyped subcommand is refused, not the window.
func TestForCLI(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"version"}, true},
		{[]string{"frobnicate"}, true},
		{[]string{"devcies", "--json"}, true},
		{[]string{"-h"}, true},
		{[]string{"--help"}, true},
		{[]string{"help"}, true},
		{[]string{"-devserver", "127.0.0.1:1", "-assetdir", "x"}, false},
	} {
		if got := ForCLI(c.args); got != c.want {
			t.Errorf("ForCLI(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// `tandem run --profile NAME` takes the model, URL, reply format and key
// from the app's saved profile; flags given on the line win.
func TestRunWithSavedProfile(t *testing.T) {
	_, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	srv := modeltest.New(t, toolReply("", "finish", `{"summary":"Nothing to do.","success":true}`))
	saveProfile(t, backend.Profile{Name: "Office GPU", BaseURL: srv.URL, Model: "qwen-vl", Dialect: "tools", Variant: "rel1000"}, "sk-from-profile")
	t.Setenv("TANDEM_API_KEY", "")
	t.Setenv("TANDEM_BASE_URL", "")
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--profile", "Office GPU", "--adb-port", strconv.Itoa(env.Port),
		"--device", env.Serial, "--goal", "Do nothing", "--data-dir", t.TempDir()},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	req := srv.Requests()[0]
	if got := req.Header.Get("Authorization"); got != "Bearer sk-from-profile" {
		t.Fatalf("authorization %q", got)
	}
	if !strings.Contains(string(req.Body), `"qwen-vl"`) {
		t.Fatalf("the profile's model was not asked for: %s", req.Body)
	}
	if !strings.Contains(errOut.String(), `profile "Office GPU"`) {
		t.Fatalf("the run does not say which profile it uses:\n%s", errOut.String())
	}

	var errText syncBuffer
	code = Run(context.Background(), Env{Args: []string{"run", "--profile", "Nope", "--device", "x", "--goal", "g"},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errText})
	if code != ExitUsage || !strings.Contains(errText.String(), `"Nope"`) {
		t.Fatalf("unknown profile: exit %d, %q", code, errText.String())
	}
}
