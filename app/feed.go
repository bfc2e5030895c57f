package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"tandem/app/mirror"
	"tandem/engine/action"
	"tandem/engine/device"
)

// feed keeps the mirror of one device (the one the person is looking at)
// fresh. While the agent drives, the engine's own screenshots reach the
// mirror (publishing); the feed only polls when they do not flow: no run, or
// the run waits for the person or is driven by them. It also carries the
// person's input to a device that has no run.
type feed struct {
	devices *Devices
	hub     *mirror.Hub
	// agentBusy reports whether a run on the device is producing frames.
	agentBusy func(id string) bool

	mu     sync.Mutex
	id     string
	dev    device.Device
	cancel context.CancelFunc
	poke   chan struct{}
	done   chan struct{}
}

func newFeed(devices *Devices, hub *mirror.Hub, agentBusy func(string) bool) *feed {
	return &feed{devices: devices, hub: hub, agentBusy: agentBusy}
}

// pollEvery is the gap between captures: a phone's screencap already takes
// a few hundred ms; the desktop captures fast.
func pollEvery(k device.Kind) time.Duration {
	if k == device.Desktop {
		return 50 * time.Millisecond
	}
	return 150 * time.Millisecond
}

// Watch makes id the device the feed keeps fresh (stopping the previous one).
func (f *feed) Watch(ctx context.Context, id string) error {
	f.mu.Lock()
	if f.id == id && f.dev != nil {
		f.mu.Unlock()
		f.Poke()
		return nil
	}
	f.stopLocked()
	f.mu.Unlock()

	dev, err := f.devices.Open(ctx, id)
	if err != nil {
		return err
	}
	info, err := dev.Info(ctx)
	if err != nil {
		dev.Close()
		return err
	}
	loopCtx, cancel := context.WithCancel(context.Background())
	f.mu.Lock()
	f.stopLocked()
	f.id, f.dev, f.cancel = id, dev, cancel
	f.poke, f.done = make(chan struct{}, 1), make(chan struct{})
	poke, done := f.poke, f.done
	f.mu.Unlock()
	go f.loop(loopCtx, id, dev, pollEvery(info.Kind), poke, done)
	return nil
}

// Poke asks for a capture now (after the person acted).
func (f *feed) Poke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.poke != nil {
		select {
		case f.poke <- struct{}{}:
		default:
		}
	}
}

func (f *feed) loop(ctx context.Context, id string, dev device.Device, every time.Duration, poke <-chan struct{}, done chan struct{}) {
	defer close(done)
	failures := 0
	for {
		if !f.agentBusy(id) {
			img, err := dev.Screenshot(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err == nil:
				failures = 0
				_ = f.hub.Publish(id, img, time.Now())
			default:
				failures++ // a secure screen or a hiccup: keep the last frame, back off
			}
		}
		wait := every
		if failures > 0 {
			wait = min(every*time.Duration(1<<min(failures, 5)), 5*time.Second)
		}
		select {
		case <-ctx.Done():
			return
		case <-poke:
		case <-time.After(wait):
		}
	}
}

// Do performs the person's input on the watched device (no run on it).
func (f *feed) Do(ctx context.Context, id string, a action.Action) error {
	f.mu.Lock()
	dev := f.dev
	if f.id != id {
		dev = nil
	}
	f.mu.Unlock()
	if dev == nil {
		return errors.New("that device's screen is not open: select it first")
	}
	info, err := dev.Info(ctx)
	if err != nil {
		return err
	}
	if err := a.Validate(info.Screen); err != nil {
		return err
	}
	err = dev.Do(ctx, a)
	f.Poke()
	return err
}

// Stop ends the feed and closes its device handle.
func (f *feed) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopLocked()
}

func (f *feed) stopLocked() {
	if f.cancel != nil {
		f.cancel()
		<-f.done
	}
	if f.dev != nil {
		f.dev.Close()
	}
	f.id, f.dev, f.cancel, f.poke, f.done = "", nil, nil, nil, nil
}
