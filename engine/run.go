// Package engine runs one agent task on one device: a state machine that
// plans with a model, acts on the device, waits for the screen to settle,
// and hands control to the person whenever they ask or the run needs them.
//
// Why it is shaped this way:
//
//   - One goroutine (the loop) owns a run's state. Commands from the person
//     (pause, stop, take over, confirm, ...) and results of work (a model
//     reply, an action done, a settled screen, a lost device) arrive as
//     typed events on one channel (msgs.go), so there is exactly one writer
//     and no flag soup. The statechart lives in chart.go; a command the
//     current state does not accept returns an *IllegalError.
//   - The state's owner decides and does not do: the core (loopState)
//     turns a message into a new state and a list of effects (record,
//     emit, reply, start or cancel work, end), which the loop performs in
//     order (effects.go). The core touches no device, model or channel, so
//     core_test.go checks the person's guarantees on its decisions alone.
//   - The model call, the device action and the stability wait run off the
//     loop, each under its own cancellable context. Pause and stop cancel
//     that context at once, so neither waits for a model reply (peers that
//     check a flag at the top of their loop take 5–30 s to stop). The
//     chart's interpreter starts and cancels that work with the states
//     (chart_invoke.go); a result of work whose state was left reaches no
//     row.
//   - No device action starts once Stop is called: actions pass a gate
//     that Stop shuts first thing, in its caller's goroutine (gate.go), and
//     waits on before it reports Stopped. An action already inside the gate
//     lands; the run ends only once its result is recorded, so every landed
//     action is on the record.
//   - Evaluation is implicit: each Planning step is ONE model call that sees
//     the newest screen and recent history and answers with the next
//     action(s), finish or fail. A reply may queue several actions; they run
//     without further calls while the screen changes as expected.
//   - After a screen-changing action the run waits for visual stability
//     (frame fingerprints, see stability.go), never a fixed sleep.
//   - Everything is written to a record as it happens (record.go), frames as
//     JPEG on disk so memory stays flat; a crashed run resumes from it.
//   - Nothing is global: several runs (one per device) live side by side.
//
// The engine never imports the UI toolkit; it tells the UI what happens
// through an Emitter.
package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// Config is what a run needs.
type Config struct {
	// ID names the run (and its record directory); generated when empty.
	ID     string
	Goal   string
	Device device.Device // the run owns it and closes it when it ends
	// DeviceID is how the UI and the record name the device (a serial,
	// "desktop:0"); snapshots carry it so a UI can file the run under it.
	DeviceID string
	Planner  model.Planner
	// DataDir is where records go: DataDir/<ID>/. Empty: no record.
	DataDir  string
	Emitter  Emitter // may be nil; more can Subscribe
	Settings Settings
	// Clock is what the run's waits use; nil means the wall clock.
	Clock Clock
	// PersonInput is how the person's input (Run.Input) reaches the
	// device, so that it takes the same path as their input with no run
	// (the app types over the live mirror's connection when it has one);
	// nil: Device.Do. The agent's actions always go through Device.Do.
	PersonInput func(ctx context.Context, a action.Action) error
	// OnScreen, when set, sees every screenshot the run takes as it takes
	// it (the mirror shows what the agent sees). Hooked here rather than by
	// wrapping Device, which would hide the device's optional abilities
	// (its UI tree, its foreground app) from the run.
	OnScreen func(img image.Image, at time.Time)
	// BeforeHandBack, when set, runs as the person hands back from Manual,
	// before the hand back reaches the run: the desktop's guard records the
	// acts the person made with their own hands and has not yet told
	// (Run.InputDone), so the model hears of all of them, whichever door
	// the hand back came through.
	BeforeHandBack func(ctx context.Context)
	// Motion, when set, is a live stream of the device's screen (the
	// mirror's): while it is live the run judges a settled screen by it,
	// with one capture, instead of a second capture an interval later
	// (stability_stream.go).
	Motion Motion
	// Interrupted, when set, reports a stop already asked for that is
	// still on its way to Run.Stop (Ctrl+C sent to `tandem run`, which the
	// process's handler has seen before Go's signal delivery wakes the
	// code that calls Stop). While it reports true no device action
	// starts, as if Stop had shut the gate: the run ends stopped by the
	// person. It must not block.
	Interrupted func() bool
	// StartedBy names who started the run when it was not the person at
	// the door (an MCP client: "mcp:<its name>"); the record keeps it.
	StartedBy string
	// Door is the door the run came in by ("window", "run" — the command
	// line —, "mcp"), and DeviceName the device's name as the list showed
	// it at the start (a phone's model, not its serial): the record keeps
	// both, for History and the report (issue 49 item 13).
	Door, DeviceName string
	// Scheduler, when set, runs the run without goroutines of its own, one
	// item at a time in the order the scheduler picks (sched.go): for the
	// simulation, so a seed replays exactly. Nil for every real run.
	Scheduler *Scheduler
}

// Region is a rectangle the person marked on the screen, in device pixels.
type Region struct {
	X1 int `json:"x1"`
	Y1 int `json:"y1"`
	X2 int `json:"x2"`
	Y2 int `json:"y2"`
}

// Errors a command can return besides *IllegalError.
var (
	// ErrFinished: the run has ended; it takes no more commands.
	ErrFinished = errors.New("engine: the run has finished")
	// ErrBusy: the person's previous input is still running.
	ErrBusy = errors.New("engine: the previous input is still running")
)

// Run is one task on one device. Create it with New (or Resume), then Start.
type Run struct {
	id       string
	dir      string
	cfg      Config
	settings Settings
	dev      device.Device
	planner  model.Planner
	clock    Clock
	rec      *recorder
	hub      *hub

	msgs     chan msg
	finished chan struct{} // closed when the loop has ended
	done     chan struct{} // closed when the device and the record are closed

	sched     *Scheduler // nil: the loop and the work are goroutines
	runCtx    context.Context
	runCancel context.CancelFunc
	gate      gate
	stopping  atomic.Bool  // set by Stop before its command reaches the loop
	shotTook  atomic.Int64 // how long the newest capture took, in ns (settle)
	// stopWhy is StopFor's cause, set before stopping (nil: the person's Stop).
	stopWhy atomic.Pointer[Cause]
	// stopVia is who gave the first Stop (Via), for the stop the loop
	// hears of before the command itself.
	stopVia atomic.Pointer[string]
	// unread is why the device's last readings failed (unread.go).
	unread unreadReasons
	wg     sync.WaitGroup
	// The work in flight and the device watch, cancelled by effects
	// (effects.go); owned by the loop goroutine.
	workCancel  context.CancelFunc
	spec        *specRun // the call started on a glimpse, not yet adopted
	watchCancel context.CancelFunc
	timerCancel context.CancelFunc // the state's timeout (fxTimer)

	res Result // valid once finished is closed

	lp *loopState // owned by the loop goroutine
}

// New creates a run in Idle. Nothing touches the device until Start.
func New(cfg Config) (*Run, error) {
	if cfg.Device == nil || cfg.Planner == nil {
		return nil, errors.New("engine: a run needs a device and a planner")
	}
	if cfg.Goal == "" {
		return nil, errors.New("engine: a run needs a goal")
	}
	if cfg.ID == "" {
		cfg.ID = newID()
	}
	r := newRun(cfg)
	if r.dir != "" {
		rec, err := openRecorder(r.dir, r.settings.MaxRecordBytes)
		if err != nil {
			return nil, err
		}
		r.keepRecord(rec)
		s := r.settings
		r.rec.add(Entry{Kind: recStart, ID: r.id, Goal: cfg.Goal, Settings: &s, Device: cfg.DeviceID, Via: cfg.StartedBy,
			Door: cfg.Door, DeviceName: cfg.DeviceName})
	}
	r.launch()
	return r, nil
}

func newRun(cfg Config) *Run {
	r := &Run{id: cfg.ID, cfg: cfg, settings: cfg.Settings.withDefaults(), dev: cfg.Device,
		planner: cfg.Planner, msgs: make(chan msg, 16), finished: make(chan struct{}),
		done: make(chan struct{}), clock: cfg.Clock, sched: cfg.Scheduler}
	if r.clock == nil {
		r.clock = wallClock{}
	}
	if cfg.DataDir != "" {
		r.dir = filepath.Join(cfg.DataDir, cfg.ID)
	}
	r.gate.interrupted = cfg.Interrupted
	r.runCtx, r.runCancel = context.WithCancel(context.Background())
	r.hub = newHub(r.id, Snapshot{ID: r.id, Device: cfg.DeviceID, Goal: cfg.Goal, State: Idle, Plan: PlanEvent{Todo: []TodoItem{}}})
	r.lp = newLoopState(r)
	if cfg.Emitter != nil {
		r.hub.subscribe(cfg.Emitter)
	}
	return r
}

func (r *Run) launch() {
	if r.sched == nil {
		go r.loop()
	}
}

// keepRecord makes rec the run's record: its entries carry the run's time,
// its person entries become events, and on a scheduler what is on disk
// does not depend on when the writer got its turn (a crash copies it).
func (r *Run) keepRecord(rec *recorder) {
	r.rec = rec
	rec.onPerson = r.hub.personEntry
	rec.now = r.clock.Now
	rec.sync = r.sched != nil
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// ID returns the run's id.
func (r *Run) ID() string { return r.id }

// Dir returns the run's record directory ("" when not recorded).
func (r *Run) Dir() string { return r.dir }

// Done is closed when the run has ended and released the device and record.
func (r *Run) Done() <-chan struct{} { return r.done }

// Result returns how the run ended; call it after Done is closed.
func (r *Run) Result() Result {
	if r.sched != nil {
		_ = r.sched.until(context.Background(), r.ended)
	}
	<-r.finished
	return r.res
}

// Wait blocks until the run has ended (and cleaned up) or ctx ends.
func (r *Run) Wait(ctx context.Context) (Result, error) {
	if r.sched != nil {
		err := r.sched.until(ctx, func() bool {
			select {
			case <-r.done:
				return true
			default:
				return false
			}
		})
		return r.res, err
	}
	select {
	case <-r.done:
		return r.res, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Snapshot returns the run as the UI would draw it now.
func (r *Run) Snapshot() Snapshot { return r.hub.snapshot() }

// State is the run's state as its last event told it (Snapshot().State,
// without copying the steps: for checks made on every touch).
func (r *Run) State() State { return r.hub.state() }

// Subscribe adds an emitter; its first event is a full snapshot. The
// returned function removes it.
func (r *Run) Subscribe(e Emitter) (cancel func()) { return r.hub.subscribe(e) }

// Start begins the run.
func (r *Run) Start(ctx context.Context) error { return command(ctx, r, msgStart{}) }

// Pause cancels an in-flight model call (or waits for the current atomic
// device action) and returns once the run is Paused, or in the person's
// hands (a Take over during the same action wins).
func (r *Run) Pause(ctx context.Context) error { return command(ctx, r, msgPause{}) }

// Resume continues a paused run (it looks at the screen again and re-plans),
// or continues after a loop, budget or model-error escalation.
func (r *Run) Resume(ctx context.Context) error { return command(ctx, r, msgResume{}) }

// TakeOver hands the device to the person; returns once the run is Manual.
func (r *Run) TakeOver(ctx context.Context) error { return command(ctx, r, msgTakeOver{}) }

// Input performs one of the person's inputs while they drive (Manual); the
// run records it with before and after frames. It returns once the action
// is done and the screen has settled.
func (r *Run) Input(ctx context.Context, a action.Action) error {
	return command(ctx, r, msgManualInput{act: a})
}

// InputDone records an input the person already made on the device through
// Tandem while in Manual (a live touch on the mirror that went straight to
// the phone): it is not done again, but it is recorded with the screen after
// it and told to the model on hand back, like Input's.
func (r *Run) InputDone(ctx context.Context, a action.Action) error {
	return command(ctx, r, msgManualInput{act: a, done: true})
}

// HandBack returns control to the agent, telling the model what the person
// did, their note, and the region they marked (nil for none).
func (r *Run) HandBack(ctx context.Context, note string, region *Region) error {
	if r.cfg.BeforeHandBack != nil && r.State() == Manual {
		r.cfg.BeforeHandBack(ctx)
	}
	return command(ctx, r, msgHandBack{note: note, region: region})
}

// Stop ends the run now: the model call, any wait and any queued action are
// cancelled; no device action starts once Stop is called.
//
// It cuts the run off before the loop even reads the command: a model reply
// or an action result already queued ahead of it must not start another
// action (the person pressed Stop after the reply arrived but before its
// tap; a peer still taps in that window). So Stop first shuts the action
// gate in the caller's goroutine (an action that has not reached the device
// does not start), then marks the run stopping (the loop tells the core
// before anything else it reads), cancels all work, and waits only for an
// action already inside the gate. That action is not called
// back (an input lands once sent): its result is recorded as a step before
// the run ends, so what the device did is on the record.
func (r *Run) Stop(ctx context.Context) error { return r.stop(ctx, nil) }

// StopFor stops the run as Stop does, for a reason that is not the
// person's (a time limit its caller set): the record and the result name
// why instead of the person.
func (r *Run) StopFor(ctx context.Context, why Cause) error { return r.stop(ctx, &why) }

func (r *Run) stop(ctx context.Context, why *Cause) error {
	// The gate first, in the caller's goroutine: a reply that reached the
	// loop a moment ago must not get its tap to the device while the rest
	// of Stop is done (issue 31).
	drained := r.gate.shut()
	if why != nil {
		r.stopWhy.CompareAndSwap(nil, why)
	}
	via := viaOf(ctx)
	r.stopVia.CompareAndSwap(nil, &via)
	r.stopping.Store(true)
	r.runCancel()
	<-drained
	err := command(ctx, r, msgStop{cause: why})
	if errors.Is(err, ErrFinished) {
		return nil
	}
	if err != nil {
		// ctx ended first: the run is cut off already; make sure the loop
		// still ends it.
		if r.sched != nil {
			r.post(msgStop{cause: why})
		} else {
			go r.post(msgStop{cause: why})
		}
	}
	return err
}

// StopGracefully lets the run take at most n more device actions (the model
// is told to wrap up), then stops it.
func (r *Run) StopGracefully(ctx context.Context, n int) error {
	if n < 0 {
		return fmt.Errorf("engine: stop gracefully: negative step count %d", n)
	}
	return command(ctx, r, msgStopGracefully{n: n})
}

// Confirm lets the sensitive action the run waits on go ahead.
func (r *Run) Confirm(ctx context.Context) error { return command(ctx, r, msgConfirm{}) }

// Deny refuses the sensitive action; the model is told, with the reason.
func (r *Run) Deny(ctx context.Context, reason string) error {
	return command(ctx, r, msgDeny{reason: reason})
}

// Answer replies to the model's question (or gives guidance after an
// escalation); the run continues with it.
func (r *Run) Answer(ctx context.Context, text string) error {
	return command(ctx, r, msgAnswer{text: text})
}

// EditGoal changes the goal; the model is told and the queued plan dropped.
func (r *Run) EditGoal(ctx context.Context, goal string) error {
	if goal == "" {
		return errors.New("engine: empty goal")
	}
	return command(ctx, r, msgEditGoal{goal: goal})
}

// EditPending replaces the queued (not yet started) actions.
func (r *Run) EditPending(ctx context.Context, actions []action.Action) error {
	return command(ctx, r, msgEditPending{actions: actions})
}

// command sends a command to the loop and waits for its answer. It never
// blocks on a finished run.
func command[T any, P fromSetter[T]](ctx context.Context, r *Run, cmd T) error {
	from := cmdFrom{reply: make(chan error, 1), via: viaOf(ctx)}
	P(&cmd).setFrom(from)
	m := any(cmd).(msg)
	if r.sched != nil {
		return r.sched.command(ctx, r, m, from.reply)
	}
	select {
	case r.msgs <- m:
	case <-r.finished:
		return ErrFinished
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-from.reply:
		return err
	case <-r.finished:
		// The loop answers every command it took before it ends.
		select {
		case err := <-from.reply:
			return err
		default:
			return ErrFinished
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post delivers a work result to the loop; dropped once the run has ended.
func (r *Run) post(m msg) {
	if r.sched != nil {
		r.sched.post(r, m)
		return
	}
	select {
	case r.msgs <- m:
	case <-r.finished:
	}
}

// personDo performs one input of the person on the device.
func (r *Run) personDo(ctx context.Context, a action.Action) error {
	if r.cfg.PersonInput != nil {
		return r.cfg.PersonInput(ctx, a)
	}
	return r.dev.Do(ctx, a)
}

// screenshot captures the device's screen, shows it to Config.OnScreen
// and notes how long it took (settle asks).
func (r *Run) screenshot(ctx context.Context) (image.Image, error) {
	at := r.now()
	img, err := r.dev.Screenshot(ctx)
	r.shotTook.Store(int64(r.since(at)))
	if err == nil && r.cfg.OnScreen != nil {
		r.cfg.OnScreen(img, at)
	}
	return img, err
}

// unchanged reports whether the screen is still exactly frame, the newest
// capture, when the device can tell for less than a capture
// (device.Confirmer); the frame then counts as captured now.
func (r *Run) unchanged(ctx context.Context, frame image.Image) bool {
	c, ok := r.dev.(device.Confirmer)
	if !ok {
		return false
	}
	at := r.now()
	if !c.Unchanged(ctx, frame) {
		return false
	}
	if r.cfg.OnScreen != nil {
		r.cfg.OnScreen(frame, at)
	}
	return true
}

// shoot takes a screenshot; a secure screen becomes a small black frame so
// stability and loop checks still work.
func (r *Run) shoot(ctx context.Context) (image.Image, error) {
	img, err := r.screenshot(ctx)
	if errors.Is(err, device.ErrSecureScreen) {
		return secureFrame{image.NewGray(image.Rect(0, 0, 9, 16))}, nil
	}
	return img, err
}

// secureFrame stands for a screen that could not be captured, so a planner
// step on it knows to tell the model in words.
type secureFrame struct{ *image.Gray }

// Resume reopens the run recorded in dir (DataDir/<ID>) after a crash and
// returns it in Idle: Start continues from the recorded history. cfg gives
// the device, planner and emitter; its goal and settings, when empty, are
// taken from the record. A record whose start line is damaged resumes from
// what could be read when cfg gives the goal and the device.
func Resume(dir string, cfg Config) (*Run, error) {
	entries, good, err := readForResume(dir, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Device == nil || cfg.Planner == nil {
		return nil, errors.New("engine: a run needs a device and a planner")
	}
	start := entries[0]
	for _, e := range entries {
		if e.Kind == recEnd {
			return nil, fmt.Errorf("%w (%s)", ErrEnded, dir)
		}
	}
	// The lock before anything is cut: a record another Tandem writes is
	// its live run, never a crashed one.
	lock, err := lockRecord(dir)
	if err != nil {
		return nil, err
	}
	if err := os.Truncate(filepath.Join(dir, recordFile), good); err != nil {
		lock.release()
		return nil, fmt.Errorf("engine: resume: %w", err)
	}
	cfg.ID = start.ID
	cfg.DataDir = filepath.Dir(dir)
	if cfg.Goal == "" {
		cfg.Goal = start.Goal
	}
	if cfg.DeviceID == "" {
		cfg.DeviceID = start.Device
	}
	if start.Settings != nil && reflect.DeepEqual(cfg.Settings, Settings{}) {
		cfg.Settings = *start.Settings
	}
	r := newRun(cfg)
	r.dir = dir
	rec, err := openLocked(dir, r.settings.MaxRecordBytes, lock)
	if err != nil {
		return nil, err
	}
	r.keepRecord(rec)
	r.lp.restore(entries)
	r.perform(r.lp.take())
	r.launch()
	return r, nil
}
