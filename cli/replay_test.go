package cli

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"tandem/engine"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// replayEnv is a private adb server, config and data dir for `tandem
// run --replay`: no saved model profile, no model in the environment.
func replayEnv(t *testing.T) (*vphone.Phone, vphonetest.Env, string) {
	t.Helper()
	phone, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	data := t.TempDir()
	t.Setenv("TANDEM_ADB_PORT", strconv.Itoa(env.Port))
	t.Setenv("TANDEM_CONFIG_DIR", t.TempDir())
	t.Setenv("TANDEM_DATA_DIR", data)
	t.Setenv("TANDEM_BASE_URL", "")
	t.Setenv("TANDEM_MODEL", "")
	return phone, env, data
}

// runCLI is `tandem args...` with stdin, its exit code and what it printed.
func runCLI(args []string, stdin string) (int, string, string) {
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

// newestRun is the id of the newest record in data's runs folder.
func newestRun(t *testing.T, data string) string {
	t.Helper()
	runs, err := os.ReadDir(filepath.Join(data, "runs"))
	if err != nil || len(runs) == 0 {
		t.Fatalf("no records: %v", err)
	}
	names := make([]string, 0, len(runs))
	for _, r := range runs {
		names = append(names, r.Name())
	}
	sort.Strings(names)
	return names[len(names)-1]
}

// planEntries are the plan lines of run id's record.
func planEntries(t *testing.T, data, id string) []engine.Entry {
	t.Helper()
	entries, _, err := engine.ReadRecord(filepath.Join(data, "runs", id))
	if err != nil {
		t.Fatal(err)
	}
	var plans []engine.Entry
	for _, e := range entries {
		if e.Kind == engine.EntryPlan {
			plans = append(plans, e)
		}
	}
	return plans
}

// replayModel opens the Counter and taps +1 until it shows want, closing
// a pop-up on the way.
func replayModel(t *testing.T, phone *vphone.Phone, want *int) func(modeltest.Request) modeltest.Reply {
	return func(modeltest.Request) modeltest.Reply {
		st := phone.State()
		switch {
		case st.Foreground != vphone.PkgCounter:
			return toolReply("Open the counter.", "launch", `{"app":"Counter"}`)
		case strings.Contains(string(phone.UIDump()), "Not now"):
			return toolReply("Close the pop-up.", "tap", centre(t, phone, "Not now"))
		case st.Counter < *want:
			return toolReply("Tap +1.", "tap", centre(t, phone, "+1"))
		}
		return toolReply("", "finish", `{"summary":"The counter shows 2.","success":true}`)
	}
}

// A recorded Counter run replays with no model request, then with no
// model server at all; the record says each step was replayed.
func TestReplayCounterWithoutTheModel(t *testing.T) {
	phone, env, data := replayEnv(t)
	want := 2
	srv := modeltest.NewFunc(t, replayModel(t, phone, &want))
	code, out, errOut := runCLI([]string{"run", "--device", env.Serial, "--goal", "Make the counter show 2", "--base-url", srv.URL}, "")
	if code != ExitOK || phone.State().Counter != 2 {
		t.Fatalf("first run: exit %d counter %d\n%s\n%s", code, phone.State().Counter, out, errOut)
	}
	id := newestRun(t, data)
	asked := len(srv.Requests())
	phone.Key(3) // home: the replay opens the Counter itself
	code, out, errOut = runCLI([]string{"run", "--replay", id, "--device", env.Serial, "--base-url", srv.URL}, "")
	if code != ExitOK || phone.State().Counter != 4 {
		t.Fatalf("replay: exit %d counter %d\n%s\n%s", code, phone.State().Counter, out, errOut)
	}
	if n := len(srv.Requests()) - asked; n != 0 {
		t.Fatalf("the replay asked the model %d times:\n%s", n, out)
	}
	srv.Close()
	phone.Key(3)
	code, out, errOut = runCLI([]string{"run", "--replay", id, "--device", env.Serial}, "")
	if code != ExitOK || phone.State().Counter != 6 || !strings.Contains(out, "Done success=true") {
		t.Fatalf("replay with no model: exit %d counter %d\n%s\n%s", code, phone.State().Counter, out, errOut)
	}
	plans := planEntries(t, data, newestRun(t, data))
	for _, p := range plans {
		if !p.Replayed {
			t.Fatalf("a plan of the replay is not marked replayed: %+v", p)
		}
	}
	if len(plans) != 4 { // launch, +1, +1, finish
		t.Fatalf("%d plans in the replay's record", len(plans))
	}
}

// A step whose target is not on the screen goes to the model, told that
// the replay stopped there, and the run goes on as a normal run; nothing
// is tapped where the target was.
func TestReplayHandsAMissingStepToTheModel(t *testing.T) {
	phone, env, data := replayEnv(t)
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	want := 1
	srv := modeltest.NewFunc(t, replayModel(t, phone, &want))
	if code, out, errOut := runCLI([]string{"run", "--device", env.Serial, "--goal", "Add one", "--base-url", srv.URL}, ""); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	id := newestRun(t, data)
	asked := len(srv.Requests())
	if err := phone.Launch(vphone.PkgShop); err != nil { // its one step, tap “+1”, is not on this screen
		t.Fatal(err)
	}
	taps := countTaps(phone)
	want = 2
	code, out, errOut := runCLI([]string{"run", "--replay", id, "--device", env.Serial, "--base-url", srv.URL}, "")
	if code != ExitOK || phone.State().Counter != 2 || phone.State().Paid {
		t.Fatalf("replay: exit %d counter %d\n%s\n%s", code, phone.State().Counter, out, errOut)
	}
	reqs := srv.Requests()[asked:]
	if len(reqs) == 0 || !strings.Contains(reqs[0].Text(), "stopped here") || !strings.Contains(reqs[0].Text(), "“+1”") {
		t.Fatalf("the model was not told where the replay stopped (%d requests)", len(reqs))
	}
	if n := countTaps(phone) - taps; n != 1 { // the model's one +1, nothing in the Shop
		t.Fatalf("%d taps during the replay", n)
	}
	plans := planEntries(t, data, newestRun(t, data))
	if plans[0].Replayed {
		t.Fatal("the model's plan is marked replayed")
	}
}

// countTaps is how many taps the phone has had.
func countTaps(p *vphone.Phone) int {
	n := 0
	for _, e := range p.Events() {
		if e.Kind == "tap" {
			n++
		}
	}
	return n
}

// A replayed Pay waits for the person as in a live run: the earlier
// run's "allow" is not carried over, and with stdin closed it stays
// unpaid and the exit is not 0.
func TestReplayedPayWaitsForThePerson(t *testing.T) {
	phone, env, data := replayEnv(t)
	if err := phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t, toolReply("Pay.", "tap", centre(t, phone, "pay_button")),
		toolReply("", "finish", `{"summary":"Paid.","success":true}`))
	if code, out, errOut := runCLI([]string{"run", "--device", env.Serial, "--goal", "Buy the earbuds", "--base-url", srv.URL}, "y\n"); code != ExitOK || !phone.State().Paid {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	id := newestRun(t, data)
	fresh, err := vphone.New(vphone.WithSize(360, 800))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fresh.Close() })
	if err := fresh.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	env2 := vphonetest.Env{ADB: env.ADB, Port: env.Port, Serial: fresh.Addr(), Address: fresh.Addr()}
	if err := vphonetest.Connect(context.Background(), env2); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI([]string{"run", "--replay", id, "--device", env2.Serial}, "")
	if code == ExitOK || fresh.State().Paid {
		t.Fatalf("replayed pay: exit %d paid %v\n%s\n%s", code, fresh.State().Paid, out, errOut)
	}
	if !strings.Contains(out, "? confirm:") {
		t.Fatalf("the replayed pay did not ask:\n%s", out)
	}
}

// With no model, a step that is not on the screen is handed to the
// person (a take-over request), never tapped where it was: stdin closed
// stops the run.
func TestReplayWithNoModelAsksThePerson(t *testing.T) {
	phone, env, data := replayEnv(t)
	if err := phone.Launch(vphone.PkgCounter); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t, toolReply("Tap +1.", "tap", centre(t, phone, "+1")), toolReply("", "finish", `{"summary":"one","success":true}`))
	if code, out, errOut := runCLI([]string{"run", "--device", env.Serial, "--goal", "Add one", "--base-url", srv.URL}, ""); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	srv.Close()
	if err := phone.Launch(vphone.PkgShop); err != nil {
		t.Fatal(err)
	}
	taps := countTaps(phone)
	code, out, errOut := runCLI([]string{"run", "--replay", newestRun(t, data), "--device", env.Serial}, "")
	if code == ExitOK || !strings.Contains(out, "? take_over:") || !strings.Contains(out, "“+1”") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if n := countTaps(phone) - taps; n != 0 || phone.State().Counter != 1 {
		t.Fatalf("%d taps, counter %d", n, phone.State().Counter)
	}
}
