package app

import (
	"time"

	"tandem/backend"
	"tandem/engine/action"
	"tandem/mirror"
	"tandem/popout"
)

// Every input of the person on a mirror goes to backend.Hand, the one
// input manager, which decides where it goes and answers "done" or
// "took_over"; no method here decides (TestEveryInputDoorAsksTheBackend).

// MirrorURL makes the window's mirror watch the device and returns the
// stream's URL (loopback, with the per-launch token).
func (a *MirrorAPI) MirrorURL(id string) (_ string, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	return a.b.Watch(ctx, mainViewer, id)
}

// MirrorHidden ends the window's mirror's watch while no one can see it
// (the window is the bar of a task on this computer): the device's desk
// stops unless someone else watches, and so does capturing its screen.
// MirrorURL watches again.
func (a *MirrorAPI) MirrorHidden() { a.b.Unwatch(mainViewer) }

// tileViewer is device id's tile in the side-by-side view as a viewer of
// the backend's desks: one viewer per tile, so each tile keeps its own
// device's stream however the main mirror or the other tiles move.
func tileViewer(id string) string { return "tile:" + id }

// TileURL makes device id's tile watch the device and returns the stream's
// URL. The URL names the device, so a tile's socket carries that device's
// frames and no other's.
func (a *MirrorAPI) TileURL(id string) (_ string, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	return a.b.Watch(ctx, tileViewer(id), id)
}

// TileClosed ends device id's tile's watch (the side-by-side view was left
// or the device went away); its desk stops when no one else watches.
func (a *MirrorAPI) TileClosed(id string) { a.b.Unwatch(tileViewer(id)) }

// MirrorGesture is the person's finished gesture, key or text on a device's
// mirror: "done" or "took_over".
func (a *MirrorAPI) MirrorGesture(id string, act action.Action) (_ string, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	out, err := a.b.Hand(ctx, id, backend.Input{Gesture: &act})
	return string(out), err
}

// MirrorPress is a press on the device's mirror as the page saw it; Go
// makes the gesture of it by the one rule: "done" or "took_over".
func (a *MirrorAPI) MirrorPress(id string, p mirror.Press) (_ string, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	out, err := a.b.Hand(ctx, id, backend.Input{Press: &p})
	return string(out), err
}

// MirrorPressGroup is a press on device id's tile while several tiles are
// picked: Go makes the gesture of it once and it lands on id and on each of
// others at the same place of their screens (group control), each device
// answering for itself.
func (a *MirrorAPI) MirrorPressGroup(id string, others []string, p mirror.Press) (_ []backend.GroupResult, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	return a.b.HandGroup(ctx, id, others, p)
}

// MirrorTouch sends one live phase of the person's finger ("down", "move",
// "up", "cancel") at device pixels, when the mirror runs over scrcpy;
// otherwise it is refused and the page sends the finished press.
func (a *MirrorAPI) MirrorTouch(id, phase string, x, y int) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(5 * time.Second)
	defer cancel()
	_, err = a.b.Hand(ctx, id, backend.Input{Touch: &backend.Touch{Phase: phase, X: x, Y: y}})
	return err
}

// FramesBase returns where the timeline fetches recorded screens.
func (a *MirrorAPI) FramesBase() (_ backend.Frames, err error) {
	defer toUI(&err)
	return a.b.FramesBase()
}

// MirrorPath says how the device's mirror is fed and why.
func (a *MirrorAPI) MirrorPath(id string) mirror.Path { return a.b.MirrorPath(id) }

// PopOut opens the device's mirror in a window of its own (tandem/popout;
// again, if one is open: the old one closes). Its clicks come back to the
// backend's input manager (postedInput → Hand).
func (a *MirrorAPI) PopOut(id string) (err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	viewer := "popout:" + id
	stream, err := a.b.Watch(ctx, viewer, id)
	if err != nil {
		return err
	}
	input, err := a.b.InputURL(id)
	if err != nil {
		return err
	}
	cfg := popout.Config{Device: id, Name: a.b.DeviceName(ctx, id), Stream: stream, Input: input, Lang: a.b.UILang(), Theme: a.b.UITheme()}
	// The pop-out's watch ends with its window.
	return a.popouts.Open(id, cfg, func() { a.b.Unwatch(viewer) })
}
