package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "tandem ") || !strings.Contains(out, "commit") {
		t.Fatalf("code %d out %q", code, out)
	}
	code, out, _ = run(t, "version", "--json")
	if code != 0 || !strings.Contains(out, `"version":`) {
		t.Fatalf("code %d out %q", code, out)
	}
}

func TestHelpListsCommands(t *testing.T) {
	code, out, _ := run(t, "help")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, c := range commands() {
		if !strings.Contains(out, c.name) {
			t.Errorf("help does not list %q", c.name)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := run(t, "frobnicate")
	if code != ExitUsage || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("code %d err %q", code, errOut)
	}
	if IsCommand("frobnicate") || !IsCommand("version") || !IsCommand("--help") {
		t.Fatal("IsCommand wrong")
	}
}
