package vphone

import (
	"context"
	"strings"
	"time"

	"tandem/vphone/encode"
	"tandem/vphone/screens"
)

// The failure switches tests use to drive every error path of a driver.

// ---- failure switches ----

// SetLatency delays every shell and exec command by d.
func (p *Phone) SetLatency(d time.Duration) { p.withFaults(func(f *faults) { f.latency = d }) }

// SetIdleError makes `uiautomator dump` fail with "ERROR: could not get
// idle state." as it does while an app animates without end.
func (p *Phone) SetIdleError(on bool) { p.withFaults(func(f *faults) { f.idleError = on }) }

// SetWindowDumpDenied makes `dumpsys window` refuse, as a phone whose
// shell may not dump the window manager does: nothing on its output, a
// "Permission Denial" on its errors, so no app in front can be read.
func (p *Phone) SetWindowDumpDenied(on bool) { p.withFaults(func(f *faults) { f.windowDenied = on }) }

// SetInjectDenied makes input injection fail as on Xiaomi/MIUI without
// "USB debugging (Security settings)".
func (p *Phone) SetInjectDenied(on bool) { p.withFaults(func(f *faults) { f.injectDenied = on }) }

// SetSecure makes screenshots all black, as for a FLAG_SECURE window.
func (p *Phone) SetSecure(on bool) { p.withFaults(func(f *faults) { f.secure = on }) }

// SetDropMidScreencap makes every screencap send half its data and then
// drop the connection, as a pulled cable would.
func (p *Phone) SetDropMidScreencap(on bool) { p.withFaults(func(f *faults) { f.dropScreencap = on }) }

// DropScreencap makes the n-th screencap from now (1: the next) drop its
// connection midway, as SetDropMidScreencap does, once; the others
// succeed: exactly one dropped connection.
func (p *Phone) DropScreencap(n int) { p.withFaults(func(f *faults) { f.dropScreencapAt = n }) }

// HoldScreencap makes the n-th screencap from now (1: the next) wait until
// release is closed (or a minute) before it captures, once: a capture the
// phone is slow to give, at a moment a test chooses.
func (p *Phone) HoldScreencap(n int, release <-chan struct{}) {
	p.withFaults(func(f *faults) { f.holdScreencapAt, f.holdUntil = n, release })
}

// HoldVideo keeps every video stream that starts from now (screenrecord's,
// scrcpy's) from sending its first picture until release is closed (or
// the stream's end): its codec config goes out at once, as an encoder's
// header does, and the pictures wait: a phone whose encoder is slow to
// give its first frame, held as long as a test chooses.
func (p *Phone) HoldVideo(release <-chan struct{}) {
	p.withFaults(func(f *faults) { f.holdVideo = release })
}

// heldPictures wraps a stream's emit so that, while HoldVideo holds the
// streams, its first picture waits (or until ctx ends); its config does not.
func (p *Phone) heldPictures(ctx context.Context, emit func(encode.Packet) error) func(encode.Packet) error {
	wait := p.faultsNow().holdVideo
	return func(pk encode.Packet) error {
		if wait != nil && !pk.Config {
			select {
			case <-wait:
			case <-ctx.Done():
			}
			wait = nil
		}
		return emit(pk)
	}
}

// holdThisScreencap waits if this screencap is the one HoldScreencap named.
func (p *Phone) holdThisScreencap() {
	p.mu.Lock()
	var wait <-chan struct{}
	if p.faults.holdScreencapAt > 0 {
		if p.faults.holdScreencapAt--; p.faults.holdScreencapAt == 0 {
			wait = p.faults.holdUntil
		}
	}
	p.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-time.After(time.Minute):
		}
	}
}

func (p *Phone) withFaults(fn func(*faults)) {
	p.mu.Lock()
	fn(&p.faults)
	p.mu.Unlock()
}

func (p *Phone) faultsNow() faults {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faults
}

// SetOffline drops every connection and refuses new ones while on; the
// adb server sees the phone go offline, and reconnects by itself after
// SetOffline(false).
func (p *Phone) SetOffline(on bool) {
	p.netMu.Lock()
	p.offline = on
	p.netMu.Unlock()
	if on {
		p.dropAll()
	}
}

// Disconnect drops every connection once; the adb server reconnects.
func (p *Phone) Disconnect() { p.dropAll() }

// HandleSocket serves device sockets ("tcp:8080", "localabstract:name") for
// forwards. A name ending in "*" matches every name with that prefix
// (for example "localabstract:scrcpy_*"). A nil handler removes it.
func (p *Phone) HandleSocket(name string, h SocketHandler) {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	if h == nil {
		delete(p.handlers, name)
		return
	}
	p.handlers[name] = h
}

func (p *Phone) socketHandler(service string) SocketHandler {
	p.netMu.Lock()
	defer p.netMu.Unlock()
	if h, ok := p.handlers[service]; ok {
		return h
	}
	var best string
	for k := range p.handlers {
		if pre, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(service, pre) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return nil
	}
	return p.handlers[best]
}

// SetChaos turns on the faults real phones bring to a task (dropped
// characters, a pop-up, a slow app, a layout that moves): screens.Chaos.
// The zero Chaos turns them off.
func (p *Phone) SetChaos(c screens.Chaos) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m.SetChaos(c)
}
