// Package mirror streams device screens to the UI over a local WebSocket,
// not the Wails event bus: frames are large binary blobs, and the event bus
// would base64 them and queue every one.
//
// The server binds 127.0.0.1 on a random port and demands a per-launch token
// (a random secret the UI gets through a bound method), so other local users
// and web pages cannot watch the screen. Each device has one slot holding the
// newest frame; a client is sent the newest frame whenever it is ready for
// one, so a slow UI skips frames instead of building up a queue.
//
// Two kinds of frames share a slot's stream. Stills (JPEG) come from
// screenshot polling, the desktop and the agent's own captures: only the
// newest matters, and it is encoded only when a viewer is to be sent it,
// on that viewer's goroutine (still.go), never the publisher's. H.264
// packets come from a phone's video stream (scrcpy-server or screenrecord):
// a P-frame is useless without what came before it, so the slot keeps the
// current group of pictures — the codec config, the last key frame and the
// packets after it — and a client that joins or falls behind starts from
// that key frame. A slow client still never builds a queue beyond one group
// of pictures, and catches up at the next key frame.
//
// Wire format of one binary message: a 24-byte header — kind u8 (1 JPEG,
// 2 H.264), flags u8 (bit 0 codec config, bit 1 key frame, bit 2 behind: a
// newer packet of the same send follows at once, so a client decodes this
// one without showing its picture — a joiner given a whole group of
// pictures shows only the newest, never the screen as it was at the group's
// key frame), 2 reserved
// bytes, width u32, height u32 (the device's screen in pixels: the space of
// the person's clicks, not the video's size), capture time (Unix ms) u64,
// 4 reserved bytes, all big-endian — then the JPEG or Annex-B bytes. A text
// message carries the mirror path as JSON ({"path":"scrcpy","reason":"…"})
// whenever it changes. A client without an H.264 decoder connects with
// video=0; while it watches, the feeds send JPEG pictures instead. A client
// says the size it shows pictures at (w and h in the URL, then a text
// message {"w":…,"h":…} at each change of its box): its stills are scaled
// to fit it (viewer.go).
package mirror

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"tandem/internal/encoded"
)

// Kind is what a frame's bytes are.
type Kind byte

// Frame kinds.
const (
	KindJPEG Kind = 1
	KindH264 Kind = 2
)

// HeaderLen is the size of a binary message's header.
const HeaderLen = 24

// maxGOP bounds the packets kept for late joiners; a longer group of
// pictures is dropped and late joiners wait for the next key frame.
const maxGOP = 2000

// Frame is one encoded screen (JPEG) or one H.264 packet.
type Frame struct {
	Seq    uint64
	Kind   Kind
	Config bool // H.264 SPS/PPS
	Key    bool // H.264 key frame
	// Behind is set on the wire only, per client: a newer packet of the
	// same send follows, so this picture need not be shown.
	Behind bool
	Width  int // device pixels of the captured screen
	Height int
	At     time.Time
	// Data is the JPEG or Annex-B bytes; nil for a still published raw
	// (Hub.Publish), which a viewer's stream encodes when it sends it.
	Data []byte
	// still is the raw picture of a still published with Publish, and its
	// JPEG once a viewer needed it; shared by every copy of the frame.
	still *still
}

// Path is how a device's mirror is fed, with the reason it was chosen (the
// better paths that were not available and why), for the UI.
type Path struct {
	Path   string `json:"path"`   // "scrcpy", "screenrecord", "screencap", "desktop"
	Reason string `json:"reason"` // one sentence, in English, with any error's words
	// Code names why this path, for the UI to say in its own language:
	// scrcpy, screenrecord_no_jar, screenrecord_scrcpy_failed,
	// screenrecord_scrcpy_too_old, screenrecord_scrcpy_too_new, screencap,
	// no_decoder, desktop_video, desktop_pictures, desktop_encoder_failed.
	Code string `json:"code"`
	// Version is the scrcpy-server release the mirror speaks (scrcpy), or
	// the one it found too old or too new; "" otherwise.
	Version string `json:"version,omitempty"`
	// Ended says the stream ended and no fresh frame came since: the
	// picture a viewer has is the last one, not live (a new path does not
	// clear it; its first frame does).
	Ended bool `json:"ended,omitempty"`
}

// slot holds a device's newest still or current group of pictures;
// changed is closed and replaced on every publish, so waiters wake without
// polling.
type slot struct {
	frame *Frame   // newest still
	gop   []*Frame // H.264: config, key frame, packets since (in order)
	// kept is the last group that had a key frame, sent to a joiner while
	// the current group has none (a restarted stream whose encoder writes
	// no frame until the screen changes, or a stream that ended), so a new
	// or reconnected viewer still sees the last picture, not nothing.
	kept    []*Frame
	config  *Frame // H.264: the newest codec config
	seq     uint64
	video   bool      // an H.264 stream feeds the slot: stills are ignored
	moved   time.Time // when the stream's newest picture of a change arrived
	picAt   time.Time // when its newest picture of any kind arrived
	echo    bool      // a scrcpy-server stream owes a copy of its newest picture
	stills  int       // clients that cannot decode video (no H.264 decoder)
	path    Path
	changed chan struct{}
	boxes   map[int64]image.Point // each viewer's box (zero: no bound), by its id (viewer.go)
	made    made                  // the size the current video was made at (MadeAt)
}

// Hub keeps the newest frame per device.
type Hub struct {
	mu    sync.Mutex
	slots map[string]*slot
	// MaxSide bounds the longer side of a mirror frame (the UI shows it far
	// smaller than a phone's native size); 0 keeps the native size.
	MaxSide int
	Quality int
	// SettleAfter is how long a device's newest raw still stays raw once
	// its run ended or its last viewer left (SettleLater).
	SettleAfter time.Duration
	// encodes counts the stills encoded for viewers (Encodes).
	encodes atomic.Int64
	lookers int64 // the last id given to a viewer's box (viewer.go)
}

// NewHub makes a hub that downscales frames to at most 1280 px on the
// longer side at JPEG quality 75.
func NewHub() *Hub { return &Hub{slots: map[string]*slot{}, MaxSide: 1280, Quality: 75} }

func (h *Hub) slot(id string) *slot {
	s, ok := h.slots[id]
	if !ok {
		s = &slot{changed: make(chan struct{})}
		h.slots[id] = s
	}
	return s
}

func (s *slot) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Publish makes img the device's newest still (unless a video stream
// feeds the device). It keeps img as it is, encoding nothing: a viewer's
// stream scales and encodes it when it is to be sent (still.go), so the
// caller must not change img afterwards.
func (h *Hub) Publish(device string, img image.Image, at time.Time) {
	img = encoded.Pixels(img)
	b := img.Bounds()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.store(h.slot(device), Frame{Kind: KindJPEG, Width: b.Dx(), Height: b.Dy(), At: at, still: &still{img: img}})
}

// PublishEncoded stores an already encoded still (Seq is assigned here).
// While a video stream feeds the device, stills are dropped: the video is
// newer and smoother than any screenshot.
func (h *Hub) PublishEncoded(device string, f Frame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.store(h.slot(device), f)
}

// store makes f the slot's newest still, unless video feeds it.
func (h *Hub) store(s *slot, f Frame) {
	if s.video {
		return
	}
	if f.Kind == 0 {
		f.Kind = KindJPEG
	}
	s.seq++
	f.Seq = s.seq
	s.frame = &f
	s.kept = nil // the still is newer than any kept group
	s.path.Ended = false
	s.wake()
}

// PublishVideo appends an H.264 packet of the device's stream (Kind, Seq
// assigned here). A key frame starts a new group of pictures, headed by the
// newest codec config.
func (h *Hub) PublishVideo(device string, f Frame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	s.video = true
	s.path.Ended = false
	f.Kind = KindH264
	switch {
	case f.Config:
		s.seq++
		f.Seq = s.seq
		s.config = &f
		s.keep()
		s.gop = []*Frame{&f}
	case f.Key:
		s.picture(time.Now())
		s.keep()
		s.gop = s.gop[:0:0]
		if s.config != nil {
			c := *s.config
			s.seq++
			c.Seq = s.seq
			s.gop = append(s.gop, &c)
		}
		s.seq++
		f.Seq = s.seq
		s.gop = append(s.gop, &f)
	default:
		s.picture(time.Now())
		s.seq++
		f.Seq = s.seq
		if len(s.gop) >= maxGOP {
			s.gop, s.kept = nil, nil // late joiners wait for the next key frame
		}
		if len(s.gop) > 0 {
			s.gop = append(s.gop, &f)
		}
	}
	s.wake()
}

// echoFrom and echoTo bound when scrcpy-server's copy of its last picture comes, as
// this computer receives it: 100 ms after (its SurfaceEncoder's
// REPEAT_FRAME_DELAY_US), give or take the encoder's and adb's jitter.
const echoFrom, echoTo = 70 * time.Millisecond, 140 * time.Millisecond

// picture notes a picture of the stream that arrived at now: a change, or
// the copy of the last one scrcpy-server's encoder sends once (echo).
func (s *slot) picture(now time.Time) {
	gap := now.Sub(s.picAt)
	s.picAt = now
	if s.echo && gap >= echoFrom && gap <= echoTo {
		s.echo = false // the copy (or a change in its place: a capture after it has it)
		return
	}
	s.moved = now
	s.echo = s.path.Path == "scrcpy"
}

// keep remembers the current group as the last picture a joiner can be
// given, when it holds a key frame (else the kept one stays).
func (s *slot) keep() {
	if hasKey(s.gop) {
		s.kept = s.gop
	}
}

// EndVideo marks the device's video stream over: stills are accepted
// again (the mirror fell back to polling, or the stream restarts). The
// last group is kept for joiners until a still or a new group replaces it.
func (h *Hub) EndVideo(device string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	s.keep()
	s.video, s.gop, s.config, s.frame, s.echo = false, nil, nil, nil, false
	s.path.Ended = s.path.Path != ""
	s.wake()
}

// SetPath records how the device's mirror is fed; clients are told.
func (h *Hub) SetPath(device string, p Path) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	p.Ended = s.path.Ended // until a fresh frame comes, whatever the path
	if s.path != p {
		s.path = p
		s.wake()
	}
}

// StillsOnly reports whether a client of the device cannot decode video
// (it connected with video=0): feeds then send pictures, not H.264.
func (h *Hub) StillsOnly(device string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slot(device).stills > 0
}

// Changed returns a channel closed at the device's next change (a frame,
// the path, a client that needs stills).
func (h *Hub) Changed(device string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slot(device).changed
}

func (h *Hub) addStillsClient(device string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	s.stills += n
	s.wake()
}

// Motion reports when the device's video stream last brought a picture of
// a change (this computer's clock), until when it may still send the copy
// of it scrcpy-server's encoder sends once (zero: none owed), whether a
// stream feeds the device now, and a channel closed at its next change. A
// stream's pictures come when the screen changes: the engine judges a
// settled screen by them (engine.Motion).
func (h *Hub) Motion(device string) (last, echoUntil time.Time, live bool, next <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	if s.echo {
		echoUntil = s.picAt.Add(echoTo)
	}
	return s.moved, echoUntil, s.video, s.changed
}

// PathOf returns how the device's mirror is fed now (zero before any).
func (h *Hub) PathOf(device string) Path {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slot(device).path
}

// Latest returns the device's newest still (nil if none) and a channel that
// is closed when a newer one arrives. Its size and time are set; its Data
// is nil when it was published raw (only a viewer's stream encodes it).
func (h *Hub) Latest(device string) (*Frame, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	return s.frame, s.changed
}

// next returns what a client that has seen everything up to seq should be
// sent next: H.264 packets in order (from the current key frame if it fell
// behind), or the newest still. It also returns the path and the channel
// closed on the next change.
func (h *Hub) next(device string, seq uint64) ([]*Frame, Path, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	var out []*Frame
	if s.video || s.frame == nil {
		// The packets a decoder can start from: the current group, after
		// the kept one while the current has no key frame yet.
		all := s.gop
		if len(s.kept) > 0 && !hasKey(s.gop) {
			all = append(append([]*Frame(nil), s.kept...), s.gop...)
		}
		if len(all) > 0 && seq < all[0].Seq {
			out = all // new, or fell behind: start at the head
		} else {
			for i, f := range all {
				if f.Seq > seq {
					out = all[i:]
					break
				}
			}
		}
	} else if s.frame.Seq != seq {
		out = []*Frame{s.frame}
	}
	return append([]*Frame(nil), out...), s.path, s.changed
}

func hasKey(g []*Frame) bool {
	for _, f := range g {
		if f.Key {
			return true
		}
	}
	return false
}

// Forget drops a device's slot (it was disconnected).
func (h *Hub) Forget(device string) {
	h.mu.Lock()
	if s, ok := h.slots[device]; ok {
		close(s.changed)
		delete(h.slots, device)
	}
	h.mu.Unlock()
}

// Server serves the hub's frames on 127.0.0.1.
type Server struct {
	hub   *Hub
	token string
	ln    net.Listener
	srv   *http.Server
	mux   *http.ServeMux
}

// Start listens on 127.0.0.1 on a random port with a fresh random token.
func Start(hub *Hub) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mirror server: %w", err)
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{hub: hub, token: hex.EncodeToString(raw), ln: ln, mux: http.NewServeMux()}
	s.mux.HandleFunc("/stream/", s.stream)
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the base WebSocket URL ("ws://127.0.0.1:PORT").
func (s *Server) URL() string { return "ws://" + s.ln.Addr().String() }

// Token is the per-launch secret a client must present.
func (s *Server) Token() string { return s.token }

// StreamURL is the full URL for one device's stream, token included.
func (s *Server) StreamURL(device string) string {
	return s.URL() + "/stream/" + encodeID(device) + "?token=" + s.token
}

// Close stops the server and ends every stream.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return s.srv.Close()
	}
	return err
}

// authorized: the request carries this launch's token.
func (s *Server) authorized(r *http.Request) bool {
	return subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) == 1
}

// encodeID makes a device id (which may hold ':' as in 127.0.0.1:5555) safe
// for a URL path segment.
func encodeID(id string) string { return hex.EncodeToString([]byte(id)) }

func decodeID(s string) (string, error) {
	b, err := hex.DecodeString(s)
	return string(b), err
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		http.Error(w, "missing or wrong token", http.StatusUnauthorized)
		return
	}
	device, err := decodeID(strings.TrimPrefix(r.URL.Path, "/stream/"))
	if err != nil || device == "" {
		http.Error(w, "bad device id", http.StatusBadRequest)
		return
	}
	// The token is the access control; the page's origin differs between the
	// desktop webview (wails://) and the dev server, so it is not checked.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	v := newViewer(r)
	id := s.hub.look(device, v.box())
	defer s.hub.unlook(device, id)
	v.onSize = func(box image.Point) { s.hub.relook(device, id, box) }
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go v.listen(ctx, cancel, c) // the viewer's size as it changes; ends ctx when it leaves
	if r.URL.Query().Get("video") == "0" {
		// The client has no H.264 decoder (a web view without
		// gstreamer1.0-libav): ask the feeds for pictures while it watches.
		s.hub.addStillsClient(device, 1)
		defer s.hub.addStillsClient(device, -1)
	}
	s.send(ctx, c, device, v)
}

func writeText(ctx context.Context, c *websocket.Conn, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

func writeFrame(ctx context.Context, c *websocket.Conn, f *Frame) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageBinary, AppendMessage(make([]byte, 0, HeaderLen+len(f.Data)), f))
}

// AppendMessage appends f's binary message (header and bytes) to b.
func AppendMessage(b []byte, f *Frame) []byte {
	var flags byte
	if f.Config {
		flags |= 1
	}
	if f.Key {
		flags |= 2
	}
	if f.Behind {
		flags |= 4
	}
	b = append(b, byte(f.Kind), flags, 0, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(f.Width))
	b = binary.BigEndian.AppendUint32(b, uint32(f.Height))
	b = binary.BigEndian.AppendUint64(b, uint64(f.At.UnixMilli()))
	b = append(b, 0, 0, 0, 0)
	return append(b, f.Data...)
}

// ParseMessage reads a binary message back into a frame (used by tests and
// any Go client); Seq is not on the wire.
func ParseMessage(msg []byte) (Frame, error) {
	if len(msg) < HeaderLen {
		return Frame{}, fmt.Errorf("mirror message of %d bytes is shorter than its header", len(msg))
	}
	k := Kind(msg[0])
	if k != KindJPEG && k != KindH264 {
		return Frame{}, fmt.Errorf("mirror message of unknown kind %d", k)
	}
	return Frame{
		Kind: k, Config: msg[1]&1 != 0, Key: msg[1]&2 != 0, Behind: msg[1]&4 != 0,
		Width:  int(binary.BigEndian.Uint32(msg[4:])),
		Height: int(binary.BigEndian.Uint32(msg[8:])),
		At:     time.UnixMilli(int64(binary.BigEndian.Uint64(msg[12:]))),
		Data:   msg[HeaderLen:],
	}, nil
}
