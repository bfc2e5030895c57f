package eval

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"tandem/backend"
	"tandem/engine"
	"tandem/vphone/vphonetest"
)

// replayTemplates are the chores BenchmarkReplay plays by default: one
// task of each, across the apps (TANDEM_REPLAY_TASKS, a glob of task
// ids, plays others: "*_1" is one task of every template).
var replayTemplates = []string{"settings_switch", "contact_add", "alarm_add", "todo_add", "expense_add",
	"shop_pay", "form_fill", "contact_to_note"}

// slowModel is the oracle behind a model's think time: each request
// waits delay, then goes to the oracle; calls counts them.
type slowModel struct {
	*httptest.Server
	key   string // the oracle's
	runs  string // where the runs' records are
	calls atomic.Int64
}

func newSlowModel(b *testing.B, o *Oracle, delay time.Duration) *slowModel {
	u, err := url.Parse(o.BaseURL())
	if err != nil {
		b.Fatal(err)
	}
	u.Path = ""
	proxy := httputil.NewSingleHostReverseProxy(u)
	m := &slowModel{key: o.Key()}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.calls.Add(1)
		t := time.NewTimer(delay) // the model thinking, not a wait for a condition
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	b.Cleanup(m.Close)
	return m
}

// pass is one run of the tasks: its wall time in task seconds, the
// model's requests, the tasks done and the records' ids by task.
type pass struct {
	seconds float64 // each task's, set-up and check included
	run     float64 // each run's alone, from its record's first line to its last
	steps   int
	handed  int // runs where the model chose a step
	calls   int64
	done    int
	runs    map[string]string
}

// BenchmarkReplay plays each chore once with a model that thinks 1.5 s a
// request (the oracle behind a delay), then again as a replay of that
// run, then as a replay on phones where a "rate this app" pop-up comes up
// after a tap (screens.Chaos). replay-calls are the model's requests while
// the screens match (the issue asks 0), replay-ratio the replays' wall
// time over the first runs' (at most 0.1; run-ratio the same of the runs
// alone, without the tasks' set-up and check), popup-handed the replays
// the pop-up handed to the model and popup-calls its requests there, and
// each pass's success the share of tasks the phone says are done.
//
//	go test ./eval -run '^$' -bench Replay -benchtime 1x
func BenchmarkReplay(b *testing.B) {
	_, port := vphonetest.StartServer(b)
	tasks := replayTasks(b)
	bc := backend.Config{ConfigDir: b.TempDir(), DataDir: b.TempDir(), ADB: "127.0.0.1:" + strconv.Itoa(port)}
	be := backend.New(bc)
	defer be.Shutdown()
	ctx := context.Background()
	o, err := StartOracle(ctx, tasks, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	model := newSlowModel(b, o, 1500*time.Millisecond)
	model.runs = bc.Runs()
	var first, again, popped pass
	b.ResetTimer()
	for range b.N {
		first = playPass(ctx, b, be, model, tasks, nil, Faults{})
		again = playPass(ctx, b, be, model, tasks, first.runs, Faults{})
		popped = playPass(ctx, b, be, model, tasks, first.runs, Faults{Popup: 0.5})
	}
	n := float64(len(tasks))
	b.ReportMetric(first.seconds/n, "first-s/task")
	b.ReportMetric(again.seconds/n, "replay-s/task")
	b.ReportMetric(again.seconds/first.seconds, "replay-ratio")
	b.ReportMetric(again.run/first.run, "run-ratio")
	b.ReportMetric(float64(first.steps)/n, "steps/task")
	b.ReportMetric(float64(first.calls)/n, "first-calls/task")
	b.ReportMetric(float64(again.calls), "replay-calls")
	b.ReportMetric(float64(popped.calls), "popup-calls")
	b.ReportMetric(float64(again.handed), "replay-handed")
	b.ReportMetric(float64(popped.handed), "popup-handed")
	b.ReportMetric(float64(first.done)/n, "first-success")
	b.ReportMetric(float64(again.done)/n, "replay-success")
	b.ReportMetric(float64(popped.done)/n, "popup-success")
	b.ReportMetric(n, "tasks")
}

// replayTasks are the tasks BenchmarkReplay plays.
func replayTasks(b *testing.B) []Task {
	glob := os.Getenv("TANDEM_REPLAY_TASKS")
	all, err := Suite(1, Filter{Tasks: "*_1"})
	if glob != "" {
		all, err = Suite(1, Filter{Tasks: glob})
	}
	if err != nil {
		b.Fatal(err)
	}
	var tasks []Task
	for _, t := range all {
		if glob != "" || slices.Contains(replayTemplates, t.Template) {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		b.Fatal("no tasks")
	}
	return tasks
}

// playPass plays the tasks on two new virtual phones with faults: as
// normal runs when replays is nil, else each as a replay of its run there.
func playPass(ctx context.Context, b *testing.B, be *backend.Backend, m *slowModel, tasks []Task, replays map[string]string, f Faults) pass {
	calls := m.calls.Load()
	cfg := Config{Backend: be, ADB: be.ADBAddr(), Phones: 2, Seed: 1, Faults: f, ChoiceFor: func(t Task) backend.RunChoice {
		c := backend.RunChoice{Model: &backend.Profile{Name: "oracle", BaseURL: m.URL + "/v1", Model: ModelFor(t), Dialect: "tools", UITree: true}, Key: m.key}
		if id, ok := replays[t.ID]; ok {
			c.Replay = &backend.Replay{RunID: id}
		}
		return c
	}}
	rs, err := Run(ctx, cfg, tasks)
	if err != nil {
		b.Fatal(err)
	}
	p := pass{calls: m.calls.Load() - calls, runs: map[string]string{}}
	for _, r := range rs {
		p.seconds += r.Seconds
		p.steps += r.Steps
		secs, chose := runStats(b, m.runs, r.Run)
		p.run += secs
		if chose {
			p.handed++
		}
		p.runs[r.Task] = r.Run
		if r.Success {
			p.done++
		} else {
			b.Logf("%s (replay %v): %s %s (%s)", r.Task, replays != nil, r.Ended, r.Error, path.Join("runs", r.Run))
		}
	}
	return p
}

// runStats is how long run id took, by its record (from its first line
// to its last), and whether the model chose any of its steps.
func runStats(b *testing.B, runs, id string) (float64, bool) {
	entries, _, err := engine.ReadRecord(filepath.Join(runs, id))
	if err != nil || len(entries) == 0 {
		b.Fatalf("run %s: %v", id, err)
	}
	chose := false
	for _, e := range entries {
		chose = chose || e.Kind == engine.EntryPlan && !e.Replayed
	}
	return entries[len(entries)-1].T.Sub(entries[0].T).Seconds(), chose
}
