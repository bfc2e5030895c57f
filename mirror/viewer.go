package mirror

import (
	"context"
	"encoding/json"
	"image"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"
)

// A viewer says the size it shows a device's picture at, in the picture's
// own pixels (a tile's box times the screen's pixel ratio): w and h in the
// stream's URL, and again as a text message {"w":…,"h":…} whenever its box
// changes. Stills are scaled and encoded to fit that box on the viewer's
// side of the hub (still.go), so a 270x600 tile is never sent a 1080x2400
// picture, and viewers of one size share one encode of each frame.
//
// The hub keeps every viewer's box by device (look), so a phone's video is
// made as large as its largest viewer shows it (VideoSide), not larger: four
// tiles of 270x600 take four 288x640 streams, which a phone encodes in a
// quarter of the time 576x1280 takes. A viewer that says no size, and a
// follower that keeps the video (a run's recording), want the full size:
// while a run records, its video stays at the full size whatever its
// viewers' boxes do, and a recording that begins on a video made smaller
// starts with the one made again at its size (MadeAt, Follow): all of a
// recording's pictures are of one size.

// maxBox bounds a side a viewer may ask for (larger is no bound).
const maxBox = 16384

// viewer is one stream's client: the box it shows pictures in.
type viewer struct {
	mu      sync.Mutex
	size    image.Point   // zero sides: not said
	resized chan struct{} // a token when the size changed
	// onSize, when set, hears each new size (the hub's record of it).
	onSize func(image.Point)
}

// newViewer reads the size a viewer's request says (w, h).
func newViewer(r *http.Request) *viewer {
	q := r.URL.Query()
	return &viewer{size: image.Pt(side(q.Get("w")), side(q.Get("h"))), resized: make(chan struct{}, 1)}
}

// side is one side of a box as a viewer said it; 0 for none or nonsense.
func side(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > maxBox {
		return 0
	}
	return n
}

func (v *viewer) box() image.Point {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.size
}

// listen reads the viewer's messages until it leaves (then cancel): each
// says its new size. Anything else is ignored.
func (v *viewer) listen(ctx context.Context, cancel context.CancelFunc, c *websocket.Conn) {
	defer cancel()
	c.SetReadLimit(4096)
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m struct{ W, H json.Number }
		if typ != websocket.MessageText || json.Unmarshal(b, &m) != nil {
			continue
		}
		size := image.Pt(side(m.W.String()), side(m.H.String()))
		v.mu.Lock()
		changed := size != v.size
		v.size = size
		v.mu.Unlock()
		if changed && v.onSize != nil {
			v.onSize(size)
		}
		if changed {
			select {
			case v.resized <- struct{}{}:
			default:
			}
		}
	}
}

// send writes device's frames to c until ctx ends or a write fails: each
// H.264 packet in order, or the newest still at the size v shows it (sent
// again when v's size changes).
func (s *Server) send(ctx context.Context, c *websocket.Conn, device string, v *viewer) {
	var sent uint64
	var path Path
	still := false // the last frame sent was a still
	for {
		frames, p, changed := s.hub.next(device, sent)
		if p != path {
			b, _ := json.Marshal(p)
			if err := writeText(ctx, c, b); err != nil {
				return
			}
			path = p
		}
		if len(frames) > 0 {
			box := v.box()
			for i, f := range frames {
				m := *f
				m.Behind = i < len(frames)-1
				data, err := s.hub.stillBytes(f, box)
				if err != nil {
					sent = f.Seq // nothing to show of it; the next still may do
					continue
				}
				m.Data = data
				if err := writeFrame(ctx, c, &m); err != nil {
					return
				}
				sent, still = f.Seq, f.Kind == KindJPEG
			}
			continue // newer frames may have arrived while writing
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-v.resized:
			if still {
				sent = 0 // the newest still again, at the new size
			}
		}
	}
}

// videoStep is what a video's longer side is rounded up to, so a viewer's
// box that changes a little does not restart its phone's stream.
const videoStep = 160

// look records a viewer of device showing pictures in box (zero: no
// bound) and returns its id, for relook and unlook. The device's feed is
// woken: its video may want another size.
func (h *Hub) look(device string, box image.Point) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lookers++
	s := h.slot(device)
	if s.boxes == nil {
		s.boxes = map[int64]image.Point{}
	}
	s.boxes[h.lookers] = box
	s.wake()
	return h.lookers
}

// relook records viewer id's new box.
func (h *Hub) relook(device string, id int64, box image.Point) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	if _, ok := s.boxes[id]; ok && s.boxes[id] != box {
		s.boxes[id] = box
		s.wake()
	}
}

// unlook forgets viewer id.
func (h *Hub) unlook(device string, id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.slots[device]; ok {
		delete(s.boxes, id)
		s.wake()
	}
}

// VideoSide is the longer side device's video should have for those who
// watch it now, given its screen: the largest viewer's picture (its box
// fitted to the screen), rounded up to a step of 160, within the hub's
// MaxSide; MaxSide when one of them said no size (or follows the video);
// 0 while none watches.
func (h *Hub) VideoSide(device string, screen image.Point) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	if len(s.boxes) == 0 || screen.X <= 0 || screen.Y <= 0 {
		return 0
	}
	limit := h.MaxSide
	if limit <= 0 {
		limit = max(screen.X, screen.Y)
	}
	side := 0
	for _, box := range s.boxes {
		if box.X <= 0 || box.Y <= 0 {
			return limit
		}
		p := fitBox(screen, box, limit)
		side = max(side, p.X, p.Y)
	}
	return min((side+videoStep-1)/videoStep*videoStep, limit)
}

// made is the size a device's current video was made at: the screen and
// the video's longer side (zero: not told).
type made struct {
	screen image.Point
	side   int
}

// MadeAt tells the hub the size the device's video is being made at now
// (its feed calls it as it starts a stream or an encoder): a follower that
// wants another size waits for the video made again at its own (Follow).
func (h *Hub) MadeAt(device string, screen image.Point, side int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.slot(device).made = made{screen, side}
}

// remade reports whether device's current video was made at a side other
// than the one its watchers want now (its feed will make it again).
func (h *Hub) remade(device string) bool {
	h.mu.Lock()
	m := h.slot(device).made
	h.mu.Unlock()
	if m.side == 0 {
		return false
	}
	want := h.VideoSide(device, m.screen)
	return want > 0 && want != m.side
}
