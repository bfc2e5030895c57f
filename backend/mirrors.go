package backend

import (
	"context"

	"tandem/mirror"
)

// The mirror's side of the backend: a viewer (the main window, a
// pop-out, a tile, an MCP screenshot) watches a device's desk and reads
// its stream from the loopback server.

// Frames tells a viewer where recorded screens are served: a step's
// thumbnail is URL + "<run>/<frame>?token=" + Token.
type Frames struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

func (b *Backend) server() (*mirror.Server, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mirrorSrv == nil {
		return nil, ErrMirrorDown
	}
	return b.mirrorSrv, nil
}

// Watch makes viewer watch device id's desk (a viewer watches one device
// at a time) and returns the stream's URL (loopback, with the per-launch
// token).
func (b *Backend) Watch(ctx context.Context, viewer, id string) (string, error) {
	srv, err := b.server()
	if err != nil {
		return "", err
	}
	if err := b.desks.Watch(ctx, viewer, id); err != nil {
		return "", err
	}
	return srv.StreamURL(id), nil
}

// Unwatch ends viewer's watch (its device's desk stops with its last viewer).
func (b *Backend) Unwatch(viewer string) { b.desks.Unwatch(viewer) }

// InputURL is where a viewer in another process (a pop-out) posts the
// person's input on device id (mirror.Server's ServeInput, token included).
func (b *Backend) InputURL(id string) (string, error) {
	srv, err := b.server()
	if err != nil {
		return "", err
	}
	return srv.InputURL(id), nil
}

// FramesBase returns where recorded screens are served.
func (b *Backend) FramesBase() (Frames, error) {
	srv, err := b.server()
	if err != nil {
		return Frames{}, err
	}
	return Frames{URL: srv.FramesURL(), Token: srv.Token()}, nil
}

// MirrorPath says how the device's mirror is fed ("scrcpy",
// "screenrecord", "screencap", "desktop") and why.
func (b *Backend) MirrorPath(id string) mirror.Path { return b.hub.PathOf(id) }

// MirrorChanged is closed at device id's next change of mirror path or
// viewers (take it before reading MirrorPath: no change is missed).
func (b *Backend) MirrorChanged(id string) <-chan struct{} { return b.hub.Changed(id) }
