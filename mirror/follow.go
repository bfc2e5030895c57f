package mirror

import (
	"context"
	"image"
)

// Follow hands each H.264 packet of the device's stream to each, in
// order, starting with the current group of pictures (codec config, key
// frame and the packets since), until ctx ends. It is a viewer that keeps
// the video (a run's recording), not one that shows it: stills are
// skipped unencoded, so following a device costs no JPEG. A follower
// that falls a whole group behind resumes at the newest key frame, as a
// slow viewer does. It wants the video at its full size: when it joins a
// video made smaller for its viewers, it starts with the video made again
// (its feed restarts it at the size VideoSide now says).
func (h *Hub) Follow(ctx context.Context, device string, each func(Frame)) {
	id := h.look(device, image.Point{}) // it keeps the video at its full size
	defer h.unlook(device, id)
	var sent uint64
	// A video made smaller, for the viewers before it, is made again at
	// its size: it starts with that one's codec config, so a recording has
	// one size from its start.
	wait := h.remade(device)
	for {
		frames, _, changed := h.next(device, sent)
		for _, f := range frames {
			sent = f.Seq
			if wait && f.Config && !h.remade(device) {
				wait = false // the video made again at its size
			}
			if f.Kind == KindH264 && !wait {
				each(*f)
			}
		}
		if len(frames) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}
