package cli

import (
	"context"
	"fmt"
	"strings"

	"tandem/devices"
	"tandem/devices/adb"
	"tandem/devices/desktop/host"
	"tandem/engine"
	"tandem/engine/device"
)

// openRunDevice opens device id through the same registry `tandem devices`
// lists with: a phone on o's adb server, or this computer's display for
// "desktop:N" (then desk is its driver, for the safety signals). Tandem's
// own process is excluded: the terminal running `tandem run` is not, as
// the person may want the agent to type there.
func openRunDevice(ctx context.Context, id string, o adb.Options) (dev device.Device, desk host.Driver, err error) {
	dev, err = devices.New(o.Server, o.StateDir, devices.NewDesktop()).Open(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	desk, _ = dev.(host.Driver)
	return dev, desk, nil
}

// handTakeover pauses a desktop run when the person used the mouse or
// keyboard (a run never fights a hand for the pointer) and hands back on
// Enter; "stop" or the end of input stops it.
func handTakeover(ctx context.Context, env Env, r *engine.Run, desk host.Driver, lines <-chan string) {
	if err := r.Pause(ctx); err != nil {
		return
	}
	fmt.Fprint(env.Stderr, "paused: you used the mouse or keyboard. Press Enter to hand back (\"stop\" stops): ")
	var line string
	var ok bool
	select {
	case line, ok = <-lines:
	case <-r.Done():
		return
	case <-ctx.Done():
		return
	}
	if !ok || strings.EqualFold(strings.TrimSpace(line), "stop") {
		_ = r.Stop(ctx)
		return
	}
	desk.Resume()
	if err := r.Resume(ctx); err != nil {
		fmt.Fprintln(env.Stderr, "run:", err)
	}
}
