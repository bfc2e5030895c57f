package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/engine"
	"tandem/engine/action"
	"tandem/internal/modeltest"
	"tandem/vphone"
	"tandem/vphone/vphonetest"
)

// phones starts n virtual phones behind one private adb server, each
// showing app pkg.
func phones(t *testing.T, n int, pkg string) ([]*vphone.Phone, vphonetest.Env) {
	t.Helper()
	first, env := vphonetest.Start(t, vphone.WithSize(360, 800))
	list := []*vphone.Phone{first}
	for len(list) < n {
		p, err := vphone.New(vphone.WithSize(360, 800))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		e := env
		e.Serial, e.Address = p.Addr(), p.Addr()
		if err := vphonetest.Connect(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		list = append(list, p)
	}
	for _, p := range list {
		if err := p.Launch(pkg); err != nil {
			t.Fatal(err)
		}
	}
	return list, env
}

// tapOnceThenFinish is a model that taps the node s on its first step and
// finishes on the next, whichever phone asks: the request says which step.
func tapOnceThenFinish(t *testing.T, p *vphone.Phone, s string) *modeltest.Server {
	at := centre(t, p, s)
	return modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		if !strings.Contains(r.Text(), "Previous steps:") {
			return toolReply("Tap.", "tap", at)
		}
		return toolReply("", "finish", `{"summary":"Tapped once.","success":true}`)
	})
}

// records reads every run record in data: device -> its entries.
func records(t *testing.T, data string) map[string][]engine.Entry {
	t.Helper()
	dirs, err := os.ReadDir(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]engine.Entry{}
	for _, d := range dirs {
		entries, _, err := engine.ReadRecord(filepath.Join(data, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out[entries[0].Device]; dup {
			t.Fatalf("two records for %s", entries[0].Device)
		}
		out[entries[0].Device] = entries
	}
	return out
}

func endOf(entries []engine.Entry) engine.State {
	if last := entries[len(entries)-1]; last.Kind == engine.EntryEnd {
		return last.End.State
	}
	return engine.Idle
}

// taps counts the agent's taps the record has.
func taps(entries []engine.Entry) int {
	n := 0
	for _, e := range entries {
		if e.Kind == engine.EntryAction && e.Action != nil && e.Action.Type == action.Tap {
			n++
		}
	}
	return n
}

// everyLinePrefixed checks each line of out starts with one of labels.
func everyLinePrefixed(t *testing.T, out string, labels ...string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		ok := false
		for _, l := range labels {
			ok = ok || strings.HasPrefix(line, "["+l+"] ")
		}
		if !ok {
			t.Fatalf("line without its device: %q\n%s", line, out)
		}
	}
}

// Two devices, one goal: both runs at once, each its own record of its own
// phone, every line saying which device it is about, exit 0.
func TestRunSeveralDevices(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgCounter)
	srv := tapOnceThenFinish(t, ps[0], "+1")
	data := t.TempDir()
	a, b := ps[0].Addr(), ps[1].Addr()
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", a, "--device", b,
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for i, p := range ps {
		if c := p.State().Counter; c != 1 {
			t.Fatalf("phone %d counter %d", i, c)
		}
	}
	recs := records(t, data)
	for _, id := range []string{a, b} {
		if len(recs[id]) == 0 || endOf(recs[id]) != engine.Done || taps(recs[id]) != 1 {
			t.Fatalf("record of %s: %d entries, ends %v, %d taps", id, len(recs[id]), endOf(recs[id]), taps(recs[id]))
		}
		if !strings.Contains(out.String(), "["+id+"] Done success=true: Tapped once.") {
			t.Fatalf("no Done line for %s:\n%s", id, out.String())
		}
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	everyLinePrefixed(t, out.String(), a, b)
}

// --json with several devices: every line a JSON object naming its device.
func TestRunSeveralDevicesJSON(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgCounter)
	srv := tapOnceThenFinish(t, ps[0], "+1")
	a, b := ps[0].Addr(), ps[1].Addr()
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", a, "--device", b,
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", t.TempDir(), "--json"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	done := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct {
			Device string        `json:"device"`
			Run    string        `json:"run"`
			Kind   string        `json:"kind"`
			Done   engine.Result `json:"done"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil || (e.Device != a && e.Device != b) || e.Run == "" {
			t.Fatalf("line %q: %v", line, err)
		}
		if e.Kind == "done" && e.Done.Success {
			done[e.Device] = true
		}
	}
	if !done[a] || !done[b] {
		t.Fatalf("done: %v\n%s", done, out.String())
	}
}

// One of two runs fails (its device is not there): the other still runs
// to Done with its record, and the exit code says one did not succeed.
func TestRunSeveralDevicesOneMissing(t *testing.T) {
	ps, env := phones(t, 1, vphone.PkgCounter)
	srv := tapOnceThenFinish(t, ps[0], "+1")
	data := t.TempDir()
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", ps[0].Addr(), "--device", "no-such-phone",
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitFail {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if recs := records(t, data); len(recs) != 1 || endOf(recs[ps[0].Addr()]) != engine.Done || ps[0].State().Counter != 1 {
		t.Fatalf("records %v, counter %d", recs, ps[0].State().Counter)
	}
	if !strings.Contains(errOut.String(), "[no-such-phone] run: ") {
		t.Fatalf("the failure does not name its device:\n%s", errOut.String())
	}
}

// A jobs file gives each device its own goal; the model refuses one of
// them (an error it cannot recover from), the other succeeds: exit 1, and
// each record holds its own goal.
func TestRunJobsFile(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgCounter)
	at := centre(t, ps[0], "+1")
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		switch {
		case strings.Contains(r.Text(), "Refused goal"):
			return modeltest.Reply{Status: 400, Message: "this request is not allowed"}
		case !strings.Contains(r.Text(), "Previous steps:"):
			return toolReply("Tap.", "tap", at)
		}
		return toolReply("", "finish", `{"summary":"Tapped once.","success":true}`)
	})
	a, b := ps[0].Addr(), ps[1].Addr()
	jobs := filepath.Join(t.TempDir(), "jobs.jsonl")
	text := "# two phones\n" + `{"device":"` + a + `","goal":"Add one"}` + "\n\n" + `{"device":"` + b + `","goal":"Refused goal"}` + "\n"
	if err := os.WriteFile(jobs, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--jobs", jobs,
		"--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitFail {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	recs := records(t, data)
	if recs[a][0].Goal != "Add one" || endOf(recs[a]) != engine.Done || recs[b][0].Goal != "Refused goal" || endOf(recs[b]) == engine.Done {
		t.Fatalf("records: %s ends %v (%q), %s ends %v (%q)", a, endOf(recs[a]), recs[a][0].Goal, b, endOf(recs[b]), recs[b][0].Goal)
	}
	if ps[0].State().Counter != 1 || ps[1].State().Counter != 0 {
		t.Fatalf("counters %d %d", ps[0].State().Counter, ps[1].State().Counter)
	}
	if !strings.Contains(out.String(), "["+b+"] ? model_error:") {
		t.Fatalf("the refusal does not name its device:\n%s", out.String())
	}
}

// A jobs file that cannot be run is refused before anything starts, naming
// the line.
func TestRunJobsFileRefused(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ text, want string }{
		"bad json":  {`{"device":"a","goal":"g"}` + "\nnot json\n", "line 2"},
		"no goal":   {`{"device":"a"}` + "\n", "line 1"},
		"twice":     {`{"device":"a","goal":"g"}` + "\n" + `{"device":"a","goal":"h"}` + "\n", "line 2"},
		"empty":     {"# nothing\n", "no job"},
		"all in it": {`{"device":"all","goal":"g"}` + "\n", "line 1"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, "run", "--jobs", path, "--base-url", "http://127.0.0.1:1/v1", "--adb-port", "1")
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d: %s", name, code, errOut)
		}
	}
	for _, args := range [][]string{
		{"--jobs", filepath.Join(dir, "twice"), "--device", "x"},
		{"--jobs", filepath.Join(dir, "twice"), "--goal", "g"},
		{"--device", "a", "--device", "a", "--goal", "g"},
		{"--device", "a", "--device", "b", "--resume", "r1"},
		{"--device", "all", "--device", "b", "--goal", "g"},
	} {
		code, _, errOut := run(t, append([]string{"run", "--base-url", "http://127.0.0.1:1/v1", "--adb-port", "1"}, args...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// --device all runs on every ready phone the adb server lists (not this
// computer's displays, even where there is one); a phone that is not ready
// is left out, and the terminal says so.
func TestRunDeviceAll(t *testing.T) {
	ps, env := phones(t, 3, vphone.PkgCounter)
	srv := tapOnceThenFinish(t, ps[0], "+1")
	off := ps[2].Addr()
	ps[2].SetOffline(true)
	for deadline := time.Now().Add(20 * time.Second); ; {
		out, _, _ := env.Run(t, "-s", off, "get-state")
		if !strings.Contains(out, "device") {
			break // the adb server sees it offline
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still %s", off, out)
		}
	}
	data := t.TempDir()
	var out, errOut syncBuffer
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", "all",
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	recs := records(t, data)
	if len(recs) != 2 || recs[ps[0].Addr()] == nil || recs[ps[1].Addr()] == nil {
		t.Fatalf("records for %v", recs)
	}
	if ps[0].State().Counter != 1 || ps[1].State().Counter != 1 {
		t.Fatalf("counters %d %d", ps[0].State().Counter, ps[1].State().Counter)
	}
	everyLinePrefixed(t, out.String(), ps[0].Addr(), ps[1].Addr())
	if !strings.Contains(errOut.String(), "--device all: leaving out "+off+" (offline)") {
		t.Fatalf("the offline phone is not named:\n%s", errOut.String())
	}
}

// Two runs ask to pay at once: the terminal asks one at a time, each
// prompt naming its device, and each answer goes to the device whose
// prompt it answered: the first prompt's "y" pays on that phone only.
func TestRunSeveralDevicesConfirmEach(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgShop)
	srv := tapOnceThenFinish(t, ps[0], "pay_button")
	a, b := ps[0].Addr(), ps[1].Addr()
	data := t.TempDir()
	var out, errOut syncBuffer
	Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", a, "--device", b,
		"--goal", "Buy the earbuds", "--base-url", srv.URL, "--data-dir", data, "--timeout", "2m"},
		Stdin: strings.NewReader("y\nnot on this phone\n"), Stdout: &out, Stderr: &errOut})
	ia, ib := strings.Index(errOut.String(), "["+a+"] allow?"), strings.Index(errOut.String(), "["+b+"] allow?")
	if ia < 0 || ib < 0 {
		t.Fatalf("the prompts do not name both devices:\n%s", errOut.String())
	}
	// Each prompt is a line of its own (another run's progress never
	// shares it) and names what it would press, as the progress line does
	// (issue 49 item 14).
	for _, dev := range []string{a, b} {
		want := "[" + dev + "] allow? press “Pay ¥99”" + strings.TrimPrefix(strings.TrimRight(prompt(engine.AskConfirm), " "), "allow?") + "\n"
		if !strings.Contains(errOut.String(), want) {
			t.Fatalf("no prompt %q:\n%s", want, errOut.String())
		}
		if !strings.Contains(out.String(), "["+dev+"] ? confirm: press “Pay ¥99” (") {
			t.Fatalf("the progress does not name Pay ¥99 for %s:\n%s", dev, out.String())
		}
	}
	first, second := 0, 1
	if ib < ia {
		first, second = 1, 0
	}
	if !ps[first].State().Paid || ps[second].State().Paid {
		t.Fatalf("paid: first asked %v, second asked %v\nstderr:\n%s", ps[first].State().Paid, ps[second].State().Paid, errOut.String())
	}
	recs := records(t, data)
	said := func(id string) string {
		var s []string
		for _, e := range recs[id] {
			if e.Kind == engine.EntryPerson {
				s = append(s, e.Command+":"+e.Text)
			}
		}
		return strings.Join(s, "|")
	}
	ids := []string{a, b}
	if said(ids[first]) != "confirm:" || said(ids[second]) != "deny:not on this phone" {
		t.Fatalf("first asked said %q, second %q", said(ids[first]), said(ids[second]))
	}
}

// --timeout stops every run (8 s: both runs must have begun by then, on a busy machine too).
func TestRunSeveralDevicesTimeout(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgCounter)
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Silent: true} })
	data := t.TempDir()
	var out, errOut syncBuffer
	start := time.Now()
	code := Run(context.Background(), Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", ps[0].Addr(), "--device", ps[1].Addr(),
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", data, "--timeout", "8s"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitFail {
		t.Fatalf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", code, time.Since(start), out.String(), errOut.String())
	}
	recs := records(t, data)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for id, entries := range recs {
		if endOf(entries) != engine.Stopped {
			t.Fatalf("%s ends %v", id, endOf(entries))
		}
	}
	if !strings.Contains(errOut.String(), "--timeout 8s reached") {
		t.Fatalf("stderr:\n%s", errOut.String())
	}
}

// One device: the output is the single run's, without any device label.
func TestRunOneDeviceUnlabelled(t *testing.T) {
	ps, env := phones(t, 1, vphone.PkgCounter)
	srv := tapOnceThenFinish(t, ps[0], "+1")
	for _, asJSON := range []bool{false, true} {
		args := []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", ps[0].Addr(), "--goal", "Add one", "--base-url", srv.URL, "--data-dir", t.TempDir()}
		if asJSON {
			args = append(args, "--json")
		}
		var out, errOut syncBuffer
		if code := Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}); code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
		if strings.Contains(out.String(), "["+ps[0].Addr()+"]") || strings.Contains(out.String(), `"device":"`+ps[0].Addr()+`","run"`) {
			t.Fatalf("a single run's output names its device:\n%s", out.String())
		}
		if !asJSON && !strings.HasPrefix(out.String(), "[Planning]\n") {
			t.Fatalf("output:\n%s", out.String())
		}
	}
}

// One of two phones goes away in the middle of its run: that run waits
// for it (two minutes, then it would ask) while the other finishes; the
// timeout stops the one left, and the exit code says one did not succeed.
func TestRunSeveralDevicesOnePhoneGoesAway(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgCounter)
	at := centre(t, ps[0], "+1")
	var gone sync.Once
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		switch {
		case strings.Contains(r.Text(), "Vanish"):
			gone.Do(func() { ps[1].Close() })
			return toolReply("Tap.", "tap", at)
		case !strings.Contains(r.Text(), "Previous steps:"):
			return toolReply("Tap.", "tap", at)
		}
		return toolReply("", "finish", `{"summary":"Tapped once.","success":true}`)
	})
	a, b := ps[0].Addr(), ps[1].Addr()
	jobs := filepath.Join(t.TempDir(), "jobs.jsonl")
	if err := os.WriteFile(jobs, []byte(`{"device":"`+a+`","goal":"Add one"}`+"\n"+`{"device":"`+b+`","goal":"Vanish"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var out, errOut syncBuffer
	// Once the first run is done and the second waits for its phone, the
	// person presses Ctrl+C (a condition, not a time limit: a busy machine
	// may take long over the first run).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) { // polling the output
			o := out.String()
			if strings.Contains(o, "["+a+"] Done") && strings.Contains(o, "["+b+"] [Paused] device lost") {
				return
			}
		}
	}()
	code := Run(ctx, Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--jobs", jobs,
		"--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitFail {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	recs := records(t, data)
	if endOf(recs[a]) != engine.Done || endOf(recs[b]) == engine.Done || ps[0].State().Counter != 1 {
		t.Fatalf("%s ends %v, %s ends %v, counter %d\nstdout:\n%s", a, endOf(recs[a]), b, endOf(recs[b]), ps[0].State().Counter, out.String())
	}
	if !strings.Contains(out.String(), "["+b+"] [Paused] device lost") {
		t.Fatalf("the lost phone is not named:\n%s", out.String())
	}
}

// Ctrl+C stops every run: each record ends Stopped, exit 1.
func TestRunSeveralDevicesInterrupted(t *testing.T) {
	ps, env := phones(t, 2, vphone.PkgCounter)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	asked := 0
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply {
		mu.Lock()
		if asked++; asked == 2 {
			cancel() // both runs wait for the model: the person presses Ctrl+C
		}
		mu.Unlock()
		return modeltest.Reply{Silent: true}
	})
	data := t.TempDir()
	var out, errOut syncBuffer
	code := Run(ctx, Env{Args: []string{"run", "--adb-port", strconv.Itoa(env.Port), "--device", ps[0].Addr(), "--device", ps[1].Addr(),
		"--goal", "Add one", "--base-url", srv.URL, "--data-dir", data}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != ExitFail {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	recs := records(t, data)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for id, entries := range recs {
		if endOf(entries) != engine.Stopped {
			t.Fatalf("%s ends %v", id, endOf(entries))
		}
	}
}
