package backend

import (
	"context"
	"errors"

	"tandem/devices/desktop/host"
	"tandem/engine"
)

// guardDesktop ties a run on the desktop to the driver's safety signals:
// the person touching the mouse or keyboard pauses the run at once (a run
// never fights a human for the pointer), the stop hotkey stops it, and the
// driver is let drive again when the run goes back to planning.
func guardDesktop(ctx context.Context, run *engine.Run, drv host.Driver) {
	resumed := make(chan struct{}, 1)
	cancel := run.Subscribe(engine.EmitterFunc(func(e engine.Event) {
		if e.State != nil && e.State.State == engine.Planning && (e.State.From == engine.Paused || e.State.From == engine.Manual || e.State.From == engine.WaitingForUser) {
			select {
			case resumed <- struct{}{}:
			default:
			}
		}
	}))
	go func() {
		defer cancel()
		for {
			select {
			case <-run.Done():
				return
			case <-drv.Takeover():
				// A pause the run refuses (it is not acting) must not leave
				// the driver latched, or every later action would fail.
				var ill *engine.IllegalError
				if err := run.Pause(ctx); errors.As(err, &ill) {
					drv.Resume()
				}
			case <-drv.StopHotkey():
				_ = run.Stop(ctx)
			case <-resumed:
				drv.Resume()
			}
		}
	}()
}
