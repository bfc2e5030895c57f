package cli

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/backend"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// A run from the command line is listed in History, and reported, with the
// phone's name (not only its serial), what its model calls cost and the
// mark that the command line started it (issue 49 item 13).
func TestACommandLineRunIsListedWithItsNameCostAndDoor(t *testing.T) {
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		rep := toolReply("", "finish", `{"summary":"Nothing to do.","success":true}`)
		if phone.State().Foreground != vphone.PkgCounter {
			rep = toolReply("Open the counter.", "launch", `{"app":"Counter"}`)
		}
		rep.Usage = &openai.Usage{PromptTokens: 10_000, CompletionTokens: 100}
		return rep
	})
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	t.Setenv("TANDEM_API_KEY", "sk-cli-test")
	data := t.TempDir()
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--device", env.Serial, "--goal", "Open the counter",
		"--base-url", srv.URL, "--model", "gpt-4o", "--data-dir", data, "--no-video"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	list, err := backend.PastRuns(data)
	if err != nil || len(list) != 1 {
		t.Fatalf("history: %+v %v", list, err)
	}
	r := list[0]
	if r.DeviceName != "Tandem Virtual Phone" || r.Device != env.Serial || r.Door != "run" || r.Usage.Cost <= 0 || r.Usage.Currency == "" {
		t.Fatalf("listed as device %q name %q door %q usage %+v", r.Device, r.DeviceName, r.Door, r.Usage)
	}
	path, err := backend.ExportReport(data, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"Tandem Virtual Phone (" + env.Serial + ")", "from the command line", "cost $0.0"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
