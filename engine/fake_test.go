package engine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/engine/action"
	"tandem/engine/device"
	"tandem/engine/model"
)

// fakePhone is an in-memory phone for the engine's unit tests. Its screen
// is drawn from its state: the top third shows the counter (tap there to
// add one), the middle shows typed text, the bottom third is a Pay button
// (tap it to pay). Tapping the left edge "navigates" (the whole screen
// changes); tapping the right edge does nothing. After an action the screen
// animates for settle, if set.
type fakePhone struct {
	w, h int

	mu        sync.Mutex
	counter   int
	text      string
	paid      bool
	page      int
	gone      bool
	closed    bool
	settle    time.Duration
	animUntil time.Time
	animShots int  // captures that still show the screen moving, whatever the time
	asciiOnly bool // a phone without ADB Keyboard
	secure    bool // screenshots meet a secure screen
	shotsGone bool // screenshots fail as if the phone were gone; Info still answers
	did       []action.Action
	shots     int
	block     chan struct{} // when set, Do waits for it (or ctx)
	shotBlock chan struct{} // when set, Screenshot waits for it (or ctx)
	shotEnter chan struct{} // when set, Screenshot signals it on entry
	doStarted chan struct{} // when set, Do signals it on entry
	guard     *atomic.Bool  // when set and true, Do records a violation
	violation atomic.Int32
}

func newFakePhone() *fakePhone { return &fakePhone{w: 360, h: 800} }

func (p *fakePhone) Info(ctx context.Context) (device.Info, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return device.Info{}, fmt.Errorf("fake: %w", device.ErrGone)
	}
	return device.Info{ID: "fake", Name: "Fake", Kind: device.Phone, Screen: action.Size{W: p.w, H: p.h}, Scale: 1}, nil
}

func (p *fakePhone) Capabilities() device.Capabilities {
	return device.Capabilities{Actions: []action.Type{action.Tap, action.Swipe, action.TypeText, action.Key, action.Wait, action.LongPress}, UITree: true}
}

func (p *fakePhone) UITree(ctx context.Context) ([]byte, error) {
	return []byte(fmt.Sprintf(`<hierarchy><node text="" bounds="[0,0][%d,%d]"><node text="+1" bounds="[40,0][320,266]"/><node text="Pay now" bounds="[40,534][320,800]"/></node></hierarchy>`, p.w, p.h)), nil
}

func (p *fakePhone) Screenshot(ctx context.Context) (image.Image, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	block, enter := p.shotBlock, p.shotEnter
	p.mu.Unlock()
	if enter != nil {
		select {
		case enter <- struct{}{}:
		default:
		}
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return nil, fmt.Errorf("fake: %w", device.ErrGone)
	}
	if p.secure {
		return nil, fmt.Errorf("fake: %w", device.ErrSecureScreen)
	}
	if p.shotsGone {
		return nil, fmt.Errorf("fake: screencap: %w", device.ErrGone)
	}
	p.shots++
	img := image.NewRGBA(image.Rect(0, 0, p.w, p.h))
	bg := uint8(200 - 40*(p.page%4))
	fill(img, img.Bounds(), color.RGBA{bg, bg, bg, 255})
	// counter: a bar whose length is the count
	fill(img, image.Rect(40, 40, 40+min(p.counter*20, 280), 200), color.RGBA{0, 0, 200, 255})
	// text: one block per character
	fill(img, image.Rect(40, 300, 40+min(len(p.text)*24, 280), 400), color.RGBA{0, 0, 0, 255})
	if p.paid {
		fill(img, image.Rect(40, 560, 320, 760), color.RGBA{0, 180, 0, 255})
	} else {
		fill(img, image.Rect(40, 560, 320, 760), color.RGBA{200, 0, 0, 255})
	}
	moving := time.Now().Before(p.animUntil) || p.animShots > 0
	if p.animShots > 0 {
		p.animShots--
	}
	if moving {
		// a bar that jumps 100 px every capture while the screen settles, so
		// no two captures match however close together they are
		y := (p.shots * 100) % (p.h - 60)
		fill(img, image.Rect(0, y, p.w, y+60), color.RGBA{255, 255, 0, 255})
	}
	return img, nil
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func (p *fakePhone) Do(ctx context.Context, a action.Action) error {
	if p.guard != nil && p.guard.Load() {
		p.violation.Add(1)
	}
	p.mu.Lock()
	block, started := p.block, p.doStarted
	p.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return fmt.Errorf("fake: %w", device.ErrGone)
	}
	p.did = append(p.did, a)
	switch a.Type {
	case action.Tap:
		switch {
		case a.X < 20:
			p.page++
		case a.X >= p.w-20:
		case a.Y < p.h/3:
			p.counter++
		case a.Y >= 2*p.h/3:
			p.paid = true
		}
	case action.TypeText:
		if p.asciiOnly && strings.IndexFunc(a.Text, func(r rune) bool { return r > 0x7e }) >= 0 {
			return fmt.Errorf("fake: %w: no ADB Keyboard", device.ErrNeedsKeyboard)
		}
		p.text += a.Text
	case action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.Key, action.Hotkey, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
		// the fake's screens have no use for these
	}
	if p.settle > 0 {
		p.animUntil = time.Now().Add(p.settle)
	}
	return nil
}

func (p *fakePhone) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	return nil
}

func (p *fakePhone) get() (counter int, text string, paid bool, did []action.Action) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counter, p.text, p.paid, slices.Clone(p.did)
}

func (p *fakePhone) setGone(g bool) {
	p.mu.Lock()
	p.gone = g
	p.mu.Unlock()
}

// fakePlanner replies from a script, one entry per call, and keeps every
// input it was given.
type fakePlanner struct {
	mu      sync.Mutex
	script  []step
	inputs  []model.Input
	started chan int // when set, receives the call number at each call's start
}

// step is one scripted call.
type step func(ctx context.Context, in model.Input) (model.Plan, error)

func reply(acts ...action.Action) step {
	return func(ctx context.Context, in model.Input) (model.Plan, error) {
		return model.Plan{Thought: "scripted", Actions: acts, Raw: "raw", Usage: model.Usage{PromptTokens: 100, CompletionTokens: 10, Cost: 0.001}, RequestBytes: 1000}, nil
	}
}

// blockUntilCancel is a model call that never answers.
func blockUntilCancel(ctx context.Context, in model.Input) (model.Plan, error) {
	<-ctx.Done()
	return model.Plan{}, ctx.Err()
}

func parseFail(reason string) step {
	return func(ctx context.Context, in model.Input) (model.Plan, error) {
		return model.Plan{}, &model.ParseError{Reason: reason, Raw: "garbage"}
	}
}

func (f *fakePlanner) Plan(ctx context.Context, in model.Input, onThought func(string)) (model.Plan, error) {
	f.mu.Lock()
	n := len(f.inputs)
	kept := in
	kept.Observation.Screenshot = nil // keep memory flat in long runs
	f.inputs = append(f.inputs, kept)
	var s step
	if n < len(f.script) {
		s = f.script[n]
	}
	started := f.started
	f.mu.Unlock()
	if started != nil {
		started <- n + 1
	}
	if s == nil {
		return model.Plan{}, errors.New("fake planner: script exhausted")
	}
	if onThought != nil {
		onThought("thinking… ")
	}
	return s(ctx, in)
}

func (f *fakePlanner) calls() []model.Input {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.inputs)
}

// events collects a run's events for assertions.
type events struct {
	mu  sync.Mutex
	all []Event
	ch  chan Event
}

func newEvents() *events { return &events{ch: make(chan Event, 4096)} }

func (e *events) Emit(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	select {
	case e.ch <- ev:
	default:
	}
}

func (e *events) states() []State {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []State
	for _, ev := range e.all {
		if ev.Kind == KindState {
			out = append(out, ev.State.State)
		}
	}
	return out
}

func (e *events) kinds(k EventKind) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.all {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// waitState waits until the run reports state s.
func (e *events) waitState(t testing.TB, s State) {
	t.Helper()
	e.waitStateN(t, s, 1)
}

// waitStateN waits until state s has been entered n times.
func (e *events) waitStateN(t testing.TB, s State, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for e.entered(s) < n {
		select {
		case <-e.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s #%d; states so far %v", s, n, e.states())
		}
	}
}

// entered counts the times the run entered s. WaitingForUser counts once
// its request has been announced as well (the state event comes first), so
// a test that reads the request after the wait finds it.
func (e *events) entered(s State) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, asking := 0, false
	for _, ev := range e.all {
		switch {
		case ev.Kind == KindState && ev.State.State == s && s == WaitingForUser:
			asking = true
		case ev.Kind == KindState && ev.State.State == s:
			n++
		case ev.Kind == KindRequest && asking:
			n++
			asking = false
		}
	}
	return n
}

// fixture is a run on a fake phone with a scripted planner.
type fixture struct {
	t     testing.TB
	phone *fakePhone
	plan  *fakePlanner
	ev    *events
	run   *Run
	dir   string
}

func newFixture(t testing.TB, settings Settings, script ...step) *fixture {
	t.Helper()
	f := &fixture{t: t, phone: newFakePhone(), plan: &fakePlanner{script: script}, ev: newEvents(), dir: t.TempDir()}
	if settings.Stability.Interval == 0 {
		settings.Stability = StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}
	}
	r, err := New(Config{ID: "run1", Goal: "count to three", Device: f.phone, Planner: f.plan,
		DataDir: f.dir, Emitter: f.ev, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	f.run = r
	t.Cleanup(func() {
		_ = r.Stop(context.Background())
		<-r.Done()
	})
	return f
}

func (f *fixture) start() {
	f.t.Helper()
	if err := f.run.Start(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) wait() Result {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := f.run.Wait(ctx)
	if err != nil {
		f.t.Fatalf("run did not end: %v; states %v", err, f.ev.states())
	}
	return res
}

func tap(x, y int) action.Action { return action.Action{Type: action.Tap, X: x, Y: y} }

func finish(summary string) action.Action {
	return action.Action{Type: action.Finish, Summary: summary}
}

var (
	tapPlus = tap(180, 100)
	tapPay  = tap(180, 700)
	tapDead = tap(350, 400)
	tapNav  = tap(5, 400)
)

// waitFor waits until an event satisfies ok; the deadline guards a hang.
func (e *events) waitFor(t testing.TB, what string, ok func(Event) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		e.mu.Lock()
		for _, ev := range e.all {
			if ok(ev) {
				e.mu.Unlock()
				return
			}
		}
		e.mu.Unlock()
		select {
		case <-e.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; states so far %v", what, e.states())
		}
	}
}

// waitReason waits for a state event whose reason contains s.
func (e *events) waitReason(t testing.TB, s string) {
	t.Helper()
	e.waitFor(t, "a state change with reason "+s, func(ev Event) bool {
		return ev.Kind == KindState && strings.Contains(ev.State.Reason, s)
	})
}

// waitPerson waits for the person's act cmd.
func (e *events) waitPerson(t testing.TB, cmd string) {
	t.Helper()
	e.waitFor(t, "the person's "+cmd, func(ev Event) bool {
		return ev.Kind == KindPerson && ev.Person.Command == cmd
	})
}
