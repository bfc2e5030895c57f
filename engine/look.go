package engine

import (
	"context"
	"errors"
	"sync"

	"tandem/engine/device"
	"tandem/engine/model"
)

// What a step sees besides the picture: the UI tree, the app in front (its
// package for the policy's app rules, its name for the dialects whose
// prompt says it), a desktop's windows. Each is a device round trip of its
// own (on a phone a UI dump takes hundreds of milliseconds, `dumpsys
// window` tens), so they run at the same time, each bounded by the step's
// context, and they start with the capture rather than after it (issue
// 31): the screen they describe is the one the capture shows, and the
// stability wait confirms it did not move meanwhile.

// lookNeeds says which of them a step needs.
type lookNeeds struct{ tree, pkg, name, wins bool }

func (n lookNeeds) any() bool { return n.tree || n.pkg || n.name || n.wins }

// seen is what a look read; a field is empty when it was not needed or
// could not be read.
type seen struct {
	tree    []byte
	treeErr error
	pkg     string // the package in front
	name    string // the app's name as people know it
	wins    []device.Window
}

// needs is what a step asks of the device: forPlan, what the model call
// and the policy's check of its reply need; else what the policy's check
// of a queued action needs.
func (r *Run) needs(forPlan bool) lookNeeds {
	p := r.settings.Policy
	_, tree := r.dev.(device.UITree)
	_, fg := r.dev.(foregrounder)
	_, wins := r.dev.(device.Windows)
	n := lookNeeds{
		tree: tree && r.settings.UITree && (forPlan || !p.Off && len(p.Words) > 0),
		wins: wins && !p.Off && (len(p.Words) > 0 || len(p.Apps) > 0),
	}
	n.pkg = fg && !p.Off && len(p.Apps) > 0
	if forPlan && r.readsApp() {
		_, named := r.dev.(currentApper)
		n.name = named
		n.pkg = n.pkg || fg
	}
	return n
}

// readsApp reports whether the planner tells the model the app in front;
// a planner that does not say is given it, as before issue 31.
func (r *Run) readsApp() bool {
	a, ok := r.planner.(model.AppReader)
	return !ok || a.ReadsCurrentApp()
}

// lookAhead starts reading what n asks for and returns the wait for it.
// On a scheduler the reads happen now, one after the other, so a seed
// replays exactly.
func (r *Run) lookAhead(ctx context.Context, n lookNeeds) func() seen {
	if r.sched != nil || !n.any() {
		s := r.look(ctx, n)
		return func() seen { return s }
	}
	done := make(chan seen, 1)
	go func() { done <- r.look(ctx, n) }()
	var once sync.Once
	var s seen
	return func() seen {
		once.Do(func() { s = <-done })
		return s
	}
}

// look reads what n asks for, the reads side by side (in turn on a
// scheduler).
func (r *Run) look(ctx context.Context, n lookNeeds) seen {
	var s seen
	var wg sync.WaitGroup
	run := func(f func()) {
		if r.sched != nil {
			f()
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	if n.tree {
		run(func() { s.tree, s.treeErr = r.readTree(ctx) })
	}
	if n.pkg {
		run(func() { s.pkg, s.name = r.appInFront(ctx, n.name) })
	} else if n.name {
		run(func() { s.name = r.appName(ctx) })
	}
	if n.wins {
		run(func() { s.wins = r.windows(ctx) })
	}
	wg.Wait()
	return s
}

// appInFront reads the package in front once (one `dumpsys window`) and,
// when named, the app's name from it: the driver's own table of names
// lists the name people use first (adb.AppNames), so no second round trip
// asks for it.
func (r *Run) appInFront(ctx context.Context, named bool) (pkg, name string) {
	f, ok := r.dev.(foregrounder)
	if !ok {
		return "", ""
	}
	pkg, _, err := f.ForegroundApp(ctx)
	if err == nil && pkg == "" {
		err = errNamedNoApp
	}
	r.unread.note("app", err)
	if err != nil {
		return "", ""
	}
	if named {
		if n, ok := r.dev.(appNamer); ok {
			if names := n.AppNames(pkg); len(names) > 0 {
				return pkg, names[0]
			}
		}
		name = r.appName(ctx)
	}
	return pkg, name
}

// appName is the device's name for the app in front; "" when it cannot
// say (a step is planned without the name rather than not at all).
func (r *Run) appName(ctx context.Context) string {
	a, ok := r.dev.(currentApper)
	if !ok {
		return ""
	}
	name, err := a.CurrentApp(ctx)
	if err != nil {
		return ""
	}
	return name
}

// readTree dumps the UI tree (one retry: a dump often fails while the
// screen still moves). A lost device or an ended step is said at once.
func (r *Run) readTree(ctx context.Context) ([]byte, error) {
	t, ok := r.dev.(device.UITree)
	if !ok {
		return nil, nil
	}
	var err error
	defer func() { r.unread.note("labels", err) }()
	for range 2 {
		var b []byte
		if b, err = t.UITree(ctx); err == nil {
			return b, nil
		}
		if errors.Is(err, device.ErrGone) || ctx.Err() != nil {
			return nil, err
		}
	}
	return nil, err
}
