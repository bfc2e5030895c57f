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
// Wire format of one binary message: a 16-byte header — width u32, height u32,
// capture time (Unix ms) u64, all big-endian — followed by the JPEG bytes.
package mirror

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/image/draw"
)

// Frame is one encoded screen.
type Frame struct {
	Seq    uint64
	Width  int // device pixels of the captured screen
	Height int
	At     time.Time
	JPEG   []byte
}

// slot holds a device's newest frame; changed is closed and replaced on
// every publish, so waiters wake without polling.
type slot struct {
	frame   *Frame
	changed chan struct{}
}

// Hub keeps the newest frame per device.
type Hub struct {
	mu    sync.Mutex
	slots map[string]*slot
	// MaxSide bounds the longer side of a mirror frame (the UI shows it far
	// smaller than a phone's native size); 0 keeps the native size.
	MaxSide int
	Quality int
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

// Publish encodes img and makes it the device's newest frame.
func (h *Hub) Publish(device string, img image.Image, at time.Time) error {
	b := img.Bounds()
	src := img
	if m := h.MaxSide; m > 0 && (b.Dx() > m || b.Dy() > m) {
		w, hh := b.Dx(), b.Dy()
		if w >= hh {
			hh, w = hh*m/w, m
		} else {
			w, hh = w*m/hh, m
		}
		dst := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(hh, 1)))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		src = dst
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: h.Quality}); err != nil {
		return fmt.Errorf("encode mirror frame: %w", err)
	}
	h.PublishEncoded(device, Frame{Width: b.Dx(), Height: b.Dy(), At: at, JPEG: buf.Bytes()})
	return nil
}

// PublishEncoded stores an already encoded frame (Seq is assigned here).
func (h *Hub) PublishEncoded(device string, f Frame) {
	h.mu.Lock()
	s := h.slot(device)
	if s.frame != nil {
		f.Seq = s.frame.Seq + 1
	} else {
		f.Seq = 1
	}
	s.frame = &f
	close(s.changed)
	s.changed = make(chan struct{})
	h.mu.Unlock()
}

// Latest returns the device's newest frame (nil if none) and a channel that
// is closed when a newer one arrives.
func (h *Hub) Latest(device string) (*Frame, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.slot(device)
	return s.frame, s.changed
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

// encodeID makes a device id (which may hold ':' as in 127.0.0.1:5555) safe
// for a URL path segment.
func encodeID(id string) string { return hex.EncodeToString([]byte(id)) }

func decodeID(s string) (string, error) {
	b, err := hex.DecodeString(s)
	return string(b), err
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) != 1 {
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
	ctx := c.CloseRead(r.Context()) // we only write; this notices the client leaving
	var sent uint64
	for {
		f, changed := s.hub.Latest(device)
		if f != nil && f.Seq != sent {
			if err := writeFrame(ctx, c, f); err != nil {
				return
			}
			sent = f.Seq
			continue // a newer frame may have arrived while writing
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

func writeFrame(ctx context.Context, c *websocket.Conn, f *Frame) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg := make([]byte, 16+len(f.JPEG))
	binary.BigEndian.PutUint32(msg[0:], uint32(f.Width))
	binary.BigEndian.PutUint32(msg[4:], uint32(f.Height))
	binary.BigEndian.PutUint64(msg[8:], uint64(f.At.UnixMilli()))
	copy(msg[16:], f.JPEG)
	return c.Write(ctx, websocket.MessageBinary, msg)
}

// ParseMessage splits a binary message into its header and JPEG (used by
// tests and any Go client).
func ParseMessage(msg []byte) (w, h int, at time.Time, jpegBytes []byte, err error) {
	if len(msg) < 16 {
		return 0, 0, time.Time{}, nil, fmt.Errorf("mirror message of %d bytes is shorter than its header", len(msg))
	}
	w = int(binary.BigEndian.Uint32(msg[0:]))
	h = int(binary.BigEndian.Uint32(msg[4:]))
	at = time.UnixMilli(int64(binary.BigEndian.Uint64(msg[8:])))
	return w, h, at, msg[16:], nil
}
