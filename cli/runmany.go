package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/backend"
	"tandem/engine"
	"tandem/engine/device"
)

// Several runs at once: `tandem run --device A --device B`, `--device all`
// or `--jobs FILE`. One backend, one run per device, each with its own
// record; every line printed says which device it is about; the person's
// answers go to one run at a time, to the run that asked. One device
// given alone is the single run of run.go, whose output this never touches.

// allDevices is the --device value for every ready phone.
const allDevices = "all"

// job is one goal on one device: a line of a --jobs file.
type job struct {
	Device string `json:"device"`
	Goal   string `json:"goal"`
}

// many reports whether the flags ask for several runs at once.
func (o *runOptions) many() bool {
	return o.jobs != "" || len(o.devs) > 1 || slices.Contains(o.devs, allDevices)
}

// checkMany refuses the flags several runs cannot go with.
func (o *runOptions) checkMany() error {
	switch {
	case o.jobs != "" && (len(o.devs) > 0 || o.goal != "" || o.resume != ""):
		return errors.New("--jobs gives the devices and goals: leave out --device, --goal and --resume")
	case o.jobs != "":
		return nil
	case !o.many():
		return nil
	case o.resume != "":
		return errors.New("--resume continues one run: give one --device, or none")
	case slices.Contains(o.devs, allDevices) && len(o.devs) > 1:
		return errors.New("--device all already names every phone: give it alone")
	}
	for i, d := range o.devs {
		if d == "" {
			return errors.New("--device cannot be empty")
		}
		if slices.Contains(o.devs[:i], d) {
			return fmt.Errorf("--device %s is given twice: one run per device", d)
		}
	}
	return nil
}

// readJobs reads a --jobs file: one JSON object {"device", "goal"} a line;
// empty lines and lines starting with # are skipped. A line that is not a
// job, or names a device again, is refused with its number.
func readJobs(path string) ([]job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--jobs: %w", err)
	}
	defer f.Close()
	var jobs []job
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var j job
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, fmt.Errorf("--jobs %s line %d: want {\"device\": \"ID\", \"goal\": \"TEXT\"}: %v", path, n, err)
		}
		j.Device, j.Goal = strings.TrimSpace(j.Device), strings.TrimSpace(j.Goal)
		switch {
		case j.Device == "" || j.Goal == "":
			return nil, fmt.Errorf("--jobs %s line %d: a job needs a device and a goal", path, n)
		case j.Device == allDevices:
			return nil, fmt.Errorf("--jobs %s line %d: name each device; \"all\" is for --device", path, n)
		case slices.ContainsFunc(jobs, func(o job) bool { return o.Device == j.Device }):
			return nil, fmt.Errorf("--jobs %s line %d: %s has a job already: one run per device", path, n, j.Device)
		}
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--jobs %s: %w", path, err)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("--jobs %s: no job in it", path)
	}
	return jobs, nil
}

// jobList is what to run where: the jobs file's, or the goal on each
// device (with all: every ready phone the backend lists, displays not).
func (o *runOptions) jobList(ctx context.Context, env Env, b *backend.Backend) ([]job, int) {
	if o.jobs != "" {
		jobs, err := readJobs(o.jobs)
		if err != nil {
			fmt.Fprintln(env.Stderr, "run:", err)
			return nil, ExitUsage
		}
		return jobs, ExitOK
	}
	devs := o.devs
	if slices.Contains(devs, allDevices) {
		ctx, cancel := context.WithTimeout(ctx, devicesTimeout)
		defer cancel()
		list, err := b.ListDevices(ctx)
		devs = nil
		for _, e := range list {
			switch {
			case e.Kind != device.Phone:
			case e.Usable() && e.HeldBy != nil && !o.wait: // another Tandem drives it
				fmt.Fprintf(env.Stderr, "run: --device all: leaving out %s: in use by %s\n", escapeControls(e.ID), escapeControls(e.HeldBy.Doing()))
			case e.Usable():
				devs = append(devs, e.ID)
			default: // a rack's phone left out says why, or the person counts runs in vain
				fmt.Fprintf(env.Stderr, "run: --device all: leaving out %s (%s): %s\n", escapeControls(e.ID), e.State, escapeControls(e.Problem))
			}
		}
		if len(devs) == 0 {
			if err != nil {
				fmt.Fprintln(env.Stderr, "run:", err)
			}
			fmt.Fprintln(env.Stderr, "run: --device all: no phone is ready (`tandem devices` lists them and says what to do)")
			return nil, ExitFail
		}
	}
	jobs := make([]job, len(devs))
	for i, d := range devs {
		jobs[i] = job{Device: d, Goal: o.goal}
	}
	return jobs, ExitOK
}

// runMany is `tandem run` on several devices at once.
func runMany(ctx context.Context, env Env, o runOptions) int {
	b := backend.New(o.config(env))
	defer b.Shutdown()
	jobs, code := o.jobList(ctx, env, b)
	if code != ExitOK {
		return code
	}
	setups := make([]backend.Setup, len(jobs))
	for i := range jobs { // a planner each: it keeps the screenshot it prepares
		s, err := b.RunSetup(o.choice())
		if err != nil {
			fmt.Fprintln(env.Stderr, "run:", err)
			return ExitUsage
		}
		setups[i] = s
	}
	fmt.Fprintln(env.Stderr, "run:", strings.ReplaceAll(describe(setups[0]), "\n", "\nrun: "))
	names := make([]string, len(jobs))
	for i, j := range jobs {
		names[i] = escapeControls(j.Device)
	}
	fmt.Fprintf(env.Stderr, "run: %d runs at once, on %s\n", len(jobs), strings.Join(names, ", "))
	t := newLanes(env, o.json)
	b.Listen(backend.NotifierFunc(t.event))
	if msg := b.RestoreKeyboards(ctx); msg != "" {
		fmt.Fprintln(env.Stderr, "run:", msg)
	}
	worst := ExitOK
	var runs []*backend.RunHandle
	for i, j := range jobs {
		snap, err := b.Launch(ctx, j.Device, j.Goal, setups[i])
		var r *backend.RunHandle
		if err == nil {
			r, err = b.Run(snap.ID, backend.ByCommandLine())
		}
		if err != nil {
			fmt.Fprintln(t.stderr(j.Device), "run:", err)
			worst = ExitFail
			continue
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return worst
	}
	return max(worst, superviseMany(ctx, env, t, runs, o.timeout))
}

// superviseMany answers the runs' requests from stdin, one at a time and
// each to the run that asked, and stops them all on Ctrl+C or the
// timeout, until every run has ended. The exit code is the worst run's.
func superviseMany(ctx context.Context, env Env, t *lanes, runs []*backend.RunHandle, timeout time.Duration) int {
	all := make(chan struct{})
	go func() {
		for _, r := range runs {
			<-r.Done()
		}
		close(all)
	}()
	lines := readLines(env.Stdin, all)
	// asking ends with Ctrl+C or the timeout, so neither waits for an answer.
	asking, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		asking, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	for {
		select {
		case <-asking.Done():
			var why *engine.Cause
			if ctx.Err() == nil {
				fmt.Fprintf(env.Stderr, "run: --timeout %s reached: stopping every run\n", timeout)
				why = &engine.Cause{Code: engine.CauseTimeLimit, N: timeout.String()}
			}
			stopAll(context.WithoutCancel(ctx), runs, why)
			return max(ExitFail, outcome(ctx, runs))
		case <-all:
			return outcome(ctx, runs)
		case a := <-t.reqs:
			i := slices.IndexFunc(runs, func(r *backend.RunHandle) bool { return r.ID() == a.run })
			if i < 0 || isDone(runs[i]) {
				continue // it ended (or never started) meanwhile: nothing to answer
			}
			sub := env
			sub.Stderr = t.stderr(a.device)
			answerRequest(asking, sub, runs[i], a.req, lines, true)
		}
	}
}

func isDone(r *backend.RunHandle) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}

// stopAll stops every run (for why, or by the person) and waits for each.
func stopAll(ctx context.Context, runs []*backend.RunHandle, why *engine.Cause) {
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			if why != nil {
				_ = r.StopFor(ctx, *why)
			} else {
				_ = r.Stop(ctx)
			}
			<-r.Done()
		})
	}
	wg.Wait()
}

// outcome is the worst exit code of the ended runs: 0 only when each
// finished with success.
func outcome(ctx context.Context, runs []*backend.RunHandle) int {
	code := ExitOK
	for _, r := range runs {
		if res, _ := r.Wait(context.WithoutCancel(ctx)); res.State != engine.Done || !res.Success {
			code = ExitFail
		}
	}
	return code
}

// asked is a request of one run, waiting for its turn on the terminal.
type asked struct {
	run, device string
	req         engine.Request
}

// lanes prints several runs' events on one terminal, each line labelled
// with its device, and queues their requests in the order they came.
type lanes struct {
	env  Env
	json bool
	out  sync.Mutex // one write at a time on the terminal
	mu   sync.Mutex
	runs map[string]*progress // run id -> its printer
	reqs chan asked
}

func newLanes(env Env, asJSON bool) *lanes {
	return &lanes{env: env, json: asJSON, runs: map[string]*progress{}, reqs: make(chan asked, 64)}
}

// event prints one backend event on its run's lane. A run's first event is
// its snapshot, which names the device.
func (t *lanes) event(_ string, data any) {
	e, ok := data.(engine.Event)
	if !ok {
		return
	}
	t.mu.Lock()
	p := t.runs[e.Run]
	if p == nil && e.Kind == engine.KindSnapshot {
		env := t.env
		env.Stdout = t.labelled(env.Stdout, e.Snapshot.Device)
		if t.json { // the line names its device; a JSON line is still written whole
			env.Stdout = &labelled{mu: &t.out, w: t.env.Stdout}
		}
		p = &progress{env: env, json: t.json, device: e.Snapshot.Device}
		t.runs[e.Run] = p
	}
	t.mu.Unlock()
	if p == nil {
		return
	}
	p.print(e)
	if req := requestOf(e); req != nil {
		select {
		case t.reqs <- asked{run: e.Run, device: p.device, req: *req}:
		default: // 64 unanswered requests: one run asks at a time, so never
		}
	}
}

// stderr is the terminal's stderr for the device's lines.
func (t *lanes) stderr(device string) io.Writer { return t.labelled(t.env.Stderr, device) }

func (t *lanes) labelled(w io.Writer, device string) io.Writer {
	return &labelled{mu: &t.out, w: w, prefix: "[" + escapeControls(device) + "] "}
}

// endLine ends each prompt written through it with a newline: the answer
// is typed on the line below, and no other run's line joins the prompt's.
type endLine struct{ w io.Writer }

func (e endLine) Write(p []byte) (int, error) {
	line := bytes.TrimRight(p, " ")
	if !bytes.HasSuffix(line, []byte("\n")) {
		line = append(line[:len(line):len(line)], '\n')
	}
	if _, err := e.w.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// labelled starts every line written through it with its prefix; each
// write goes out whole, under the terminal's lock, so lines of two runs
// never mix.
type labelled struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	mid    bool // the last write ended inside a line (a prompt)
}

func (l *labelled) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b []byte
	for rest := p; len(rest) > 0; {
		if !l.mid {
			b = append(b, l.prefix...)
		}
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			b = append(b, rest...)
			l.mid = true
			break
		}
		b, rest, l.mid = append(b, rest[:i+1]...), rest[i+1:], false
	}
	if _, err := l.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
