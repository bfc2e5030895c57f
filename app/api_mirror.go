package app

import (
	"time"

	"tandem/engine/action"
	"tandem/mirror"
)

// MirrorURL starts keeping the device's mirror fresh and returns the
// stream's URL (loopback, with the per-launch token).
func (a *MirrorAPI) MirrorURL(id string) (_ string, err error) {
	defer toUI(&err)
	a.mu.Lock()
	srv := a.mirrorSrv
	a.mu.Unlock()
	if srv == nil {
		return "", errMirrorDown
	}
	ctx, cancel := a.callCtx(15 * time.Second)
	defer cancel()
	if err := a.feed.Watch(ctx, id); err != nil {
		return "", err
	}
	return srv.StreamURL(id), nil
}

// DeviceInput performs the person's input on a device with no run (the
// mirror as a remote control); with a task on it, it is refused (handsOn):
// the person's input then goes through MirrorGesture.
func (a *MirrorAPI) DeviceInput(id string, act action.Action) (err error) {
	defer toUI(&err)
	if h, _ := a.handsOn(id); h != toDevice {
		return ErrDeviceBusy
	}
	ctx, cancel := a.callCtx(20 * time.Second)
	defer cancel()
	return a.feed.Do(ctx, id, act)
}

// FramesBase returns where the timeline fetches recorded screens.
func (a *MirrorAPI) FramesBase() (_ Frames, err error) {
	defer toUI(&err)
	a.mu.Lock()
	srv := a.mirrorSrv
	a.mu.Unlock()
	if srv == nil {
		return Frames{}, errMirrorDown
	}
	return Frames{URL: srv.FramesURL(), Token: srv.Token()}, nil
}

// MirrorTouch sends one phase of the person's finger ("down", "move", "up",
// "cancel") at device pixels straight to the phone, live, when its mirror
// runs over scrcpy (a drag follows the mouse). Other paths refuse with
// ErrNoLiveInput; the UI then sends the whole gesture with DeviceInput/Input.
//
// While a run is on the device only the person driving it (Manual) may
// touch live (handsOn): the finished gesture is recorded in the run like
// any input of theirs, so the model is told on hand back. A live touch
// never takes over: that is a finished click's (MirrorGesture).
func (a *MirrorAPI) MirrorTouch(id, phase string, x, y int) (err error) {
	defer toUI(&err)
	h, _ := a.handsOn(id)
	if h != toDevice && h != toRun {
		return ErrDeviceBusy
	}
	manual := h == toRun
	ctx, cancel := a.callCtx(5 * time.Second)
	defer cancel()
	if err := a.feed.Touch(ctx, id, phase, x, y); err != nil {
		a.gestures.track(id, "cancel", x, y, action.Size{}, time.Now())
		return err
	}
	var screen action.Size
	if f, _ := a.hub.Latest(id); f != nil {
		screen = action.Size{W: f.Width, H: f.Height}
	}
	if g, ok := a.gestures.track(id, phase, x, y, screen, time.Now()); ok && manual {
		return a.runs.InputDone(ctx, id, g)
	}
	return nil
}

// MirrorPath says how the device's mirror is fed ("scrcpy", "screenrecord",
// "screencap", "desktop") and why; the stream also sends it on change.
func (a *MirrorAPI) MirrorPath(id string) mirror.Path { return a.hub.PathOf(id) }

// Frames tells the UI where recorded screens are served: a step's
// thumbnail is URL + "<run>/<frame>?token=" + Token.
type Frames struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// MirrorPress is a press on the device's mirror as the page saw it; the one
// rule (mirror.Press, mirror.Classify) makes a tap, long press or swipe of
// it, which goes where MirrorGesture sends it: "done" or "took_over".
func (a *MirrorAPI) MirrorPress(id string, p mirror.Press) (_ string, err error) {
	defer toUI(&err)
	act, err := p.Gesture()
	if err != nil {
		return "", err
	}
	return a.MirrorGesture(id, act)
}
