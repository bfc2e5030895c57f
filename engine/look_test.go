package engine

import (
	"context"
	"image"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/internal/modeltest"
	"tandem/vphone"
)

// watchedPhone is the adb driver on the virtual phone, with a log of its
// reads. The first capture after each action (and the run's first) waits
// until the UI dump and the read of the app in front have begun, as they
// do when they start with the capture; one that had to give up on them is
// counted late.
type watchedPhone struct {
	*adb.Device
	mu           sync.Mutex
	armed        bool
	trees, apps  int // reads begun
	armT, armA   int // as they were when the phone was armed
	late         atomic.Int32
	appReads     atomic.Int32 // ForegroundApp and CurrentApp calls
	treesEnded   atomic.Int32
	captureLimit time.Duration
}

func watch(d *adb.Device) *watchedPhone {
	return &watchedPhone{Device: d, armed: true, captureLimit: 3 * time.Second}
}

func (p *watchedPhone) arm() {
	p.mu.Lock()
	p.armed, p.armT, p.armA = true, p.trees, p.apps
	p.mu.Unlock()
}

func (p *watchedPhone) Do(ctx context.Context, a action.Action) error {
	p.arm()
	return p.Device.Do(ctx, a)
}

func (p *watchedPhone) Screenshot(ctx context.Context) (image.Image, error) {
	p.mu.Lock()
	armed := p.armed
	p.armed = false
	p.mu.Unlock()
	if armed {
		deadline := time.Now().Add(p.captureLimit)
		for {
			p.mu.Lock()
			begun := p.trees > p.armT && p.apps > p.armA
			p.mu.Unlock()
			if begun {
				break
			}
			if time.Now().After(deadline) {
				p.late.Add(1)
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return p.Device.Screenshot(ctx)
}

func (p *watchedPhone) UITree(ctx context.Context) ([]byte, error) {
	p.mu.Lock()
	p.trees++
	p.mu.Unlock()
	defer p.treesEnded.Add(1)
	return p.Device.UITree(ctx)
}

func (p *watchedPhone) ForegroundApp(ctx context.Context) (string, string, error) {
	p.mu.Lock()
	p.apps++
	p.mu.Unlock()
	p.appReads.Add(1)
	return p.Device.ForegroundApp(ctx)
}

func (p *watchedPhone) CurrentApp(ctx context.Context) (string, error) {
	p.mu.Lock()
	p.apps++
	p.mu.Unlock()
	p.appReads.Add(1)
	return p.Device.CurrentApp(ctx)
}

// appTeller is a planner whose dialect tells the model the app in front,
// as AutoGLM's does; it keeps the names it was given.
type appTeller struct {
	model.Planner
	mu    sync.Mutex
	names []string
}

func (*appTeller) ReadsCurrentApp() bool { return true }

func (a *appTeller) Plan(ctx context.Context, in model.Input, f func(string)) (model.Plan, error) {
	a.mu.Lock()
	a.names = append(a.names, in.Observation.App)
	a.mu.Unlock()
	return a.Planner.Plan(ctx, in, f)
}

// Issue 31, item 2: the UI dump and the app in front start with the
// capture, not after it. With a policy that needs both (words under the
// tap, an app rule), every observation's capture — the run's first, the
// first after each tap — finds them already begun; the run still finishes.
func TestTheDumpAndTheAppStartWithTheCapture(t *testing.T) {
	g := newRig(t, vphone.WithSize(360, 800))
	g.launch(vphone.PkgCounter)
	srv := modeltest.New(t, tools("", call("tap", g.at("+1"))), tools("", call("tap", g.at("+1"))),
		tools("", finishCall("The counter shows 2.")))
	ph := watch(g.open())
	pol := DefaultPolicy()
	pol.Apps = []string{"支付宝"}
	r, err := New(Config{Goal: "count to 2", Device: ph, Planner: planner(t, srv, plannerOpts{}),
		Settings: Settings{Stability: fastStability, UITree: true, Policy: pol}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil || res.State != Done || g.phone.State().Counter != 2 {
		t.Fatalf("result %+v %v, counter %d", res, err, g.phone.State().Counter)
	}
	if n := ph.late.Load(); n > 0 {
		t.Fatalf("%d of 3 observations captured the screen before reading its UI tree and app", n)
	}
}

// `dumpsys window` (the app in front) is asked only when something needs
// it: a dialect whose prompt names the app, or a policy rule about apps.
// Then it is asked once a step, and the model hears the app's name.
func TestTheAppInFrontIsReadOnlyWhenNeeded(t *testing.T) {
	g := newRig(t, vphone.WithSize(360, 800))
	g.launch(vphone.PkgCounter)
	for _, c := range []struct {
		name     string
		tells    bool
		apps     []string
		minReads int32
		maxReads int32
	}{
		{"tools, no app rule", false, nil, 0, 0},
		{"tools, an app rule", false, []string{"支付宝"}, 2, 2},
		{"a dialect that names the app", true, nil, 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.New(t, tools("", call("tap", g.at("+1"))), tools("", finishCall("Done.")))
			ph := watch(g.open())
			ph.captureLimit = 0 // not timed here
			var p model.Planner = planner(t, srv, plannerOpts{})
			teller := &appTeller{Planner: p}
			if c.tells {
				p = teller
			}
			pol := DefaultPolicy()
			pol.Apps = c.apps
			r, err := New(Config{Goal: "count", Device: ph, Planner: p, Settings: Settings{Stability: fastStability, Policy: pol}})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if res, err := r.Wait(ctx); err != nil || res.State != Done {
				t.Fatalf("result %+v %v", res, err)
			}
			if n := ph.appReads.Load(); n < c.minReads || n > c.maxReads {
				t.Fatalf("the app in front was read %d times in 2 steps, want %d–%d", n, c.minReads, c.maxReads)
			}
			if c.tells {
				for _, n := range teller.names {
					if n == "" {
						t.Fatalf("the model was told no app: %q", teller.names)
					}
				}
			}
		})
	}
}

// preparer is a planner that is handed frames to get ready before its call,
// and keeps which.
type preparer struct {
	*fakePlanner
	mu       sync.Mutex
	prepared map[image.Image]bool
	unready  atomic.Int32 // calls on a frame never handed to Prepare
}

func (p *preparer) Prepare(img image.Image) {
	p.mu.Lock()
	p.prepared[img] = true
	p.mu.Unlock()
}

func (p *preparer) Plan(ctx context.Context, in model.Input, f func(string)) (model.Plan, error) {
	p.mu.Lock()
	ok := p.prepared[in.Observation.Screenshot]
	p.mu.Unlock()
	if !ok {
		p.unready.Add(1)
	}
	return p.fakePlanner.Plan(ctx, in, f)
}

// The re-encode of a screenshot for the model is off the critical path:
// every frame the model is asked about was handed to the planner to
// prepare before the call, the first one too (it is captured by the
// Planning step itself, with no stability wait to hide the encode in, but
// the UI dump to wait for).
func TestEveryFrameIsPreparedBeforeItsCall(t *testing.T) {
	ph := newFakePhone()
	p := &preparer{fakePlanner: &fakePlanner{script: []step{reply(tapPlus), reply(finish("done"))}}, prepared: map[image.Image]bool{}}
	r, err := New(Config{Goal: "count", Device: ph, Planner: p,
		Settings: Settings{UITree: true, Stability: StabilityConfig{Interval: 10 * time.Millisecond, StableFrames: 2, Max: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := r.Wait(ctx); err != nil || res.State != Done {
		t.Fatalf("result %+v %v", res, err)
	}
	if n := p.unready.Load(); n > 0 {
		t.Fatalf("%d of 2 model calls got a frame no one had prepared", n)
	}
}
