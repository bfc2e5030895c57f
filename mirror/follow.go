package mirror

import "context"

// Follow hands each H.264 packet of the device's stream to each, in
// order, starting with the current group of pictures (codec config, key
// frame and the packets since), until ctx ends. It is a viewer that keeps
// the video (a run's recording), not one that shows it: stills are
// skipped unencoded, so following a device costs no JPEG. A follower
// that falls a whole group behind resumes at the newest key frame, as a
// slow viewer does.
func (h *Hub) Follow(ctx context.Context, device string, each func(Frame)) {
	var sent uint64
	for {
		frames, _, changed := h.next(device, sent)
		for _, f := range frames {
			sent = f.Seq
			if f.Kind == KindH264 {
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
