package desktop

import (
	"context"
	"fmt"
	"image"
	"sync"

	"github.com/jezek/xgb"
	mshm "github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"github.com/kbinani/screenshot"

	"tandem/engine/device"
)

// capturer grabs screen rectangles fast by reusing what kbinani/screenshot
// rebuilds on every call: one X connection and one MIT-SHM segment, kept for
// the driver's life (the segment is re-made only when the frame size grows),
// and a row-wise BGRA->RGBA copy instead of a SetRGBA per pixel.
//
// When the server has no MIT-SHM (a remote display, for one) or an unusual
// pixel format, it falls back to kbinani/screenshot, which copes with those.
type capturer struct {
	mu   sync.Mutex
	c    *xgb.Conn
	root xproto.Window
	full image.Rectangle // the root window
	shm  bool

	seg  mshm.Seg
	id   int
	data []byte // attached segment, len = capacity in bytes
}

func newCapturer(c *xgb.Conn) *capturer {
	setup := xproto.Setup(c)
	scr := setup.DefaultScreen(c)
	k := &capturer{
		c:    c,
		root: scr.Root,
		full: image.Rect(0, 0, int(scr.WidthInPixels), int(scr.HeightInPixels)),
	}
	k.shm = hasExtension(c, "MIT-SHM") && bgra32(setup, scr)
	return k
}

// bgra32 reports whether the root's ZPixmap format is 32 bits per pixel with
// 8-bit BGR channels (what every 24/32-bit TrueColor little-endian X server
// uses), the layout the fast copy assumes.
func bgra32(setup *xproto.SetupInfo, scr *xproto.ScreenInfo) bool {
	if setup.ImageByteOrder != xproto.ImageOrderLSBFirst || (scr.RootDepth != 24 && scr.RootDepth != 32) {
		return false
	}
	for _, f := range setup.PixmapFormats {
		if f.Depth == scr.RootDepth {
			return f.BitsPerPixel == 32
		}
	}
	return false
}

// capture returns the pixels of r (root coordinates). Parts of r off the root
// window are black.
func (k *capturer) capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	return k.captureInto(ctx, r, nil)
}

// captureInto is capture writing into dst when dst has r's size (a new image
// otherwise), so a mirror streaming frames need not allocate one per frame.
func (k *capturer) captureInto(ctx context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.Empty() {
		return nil, fmt.Errorf("capture: empty rectangle %v", r)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.shm {
		img, err := screenshot.CaptureRect(r)
		if err != nil {
			return nil, fmt.Errorf("%w: capture %v: %v", device.ErrGone, r, err)
		}
		return img, nil
	}
	in := r.Intersect(k.full)
	img := dst
	if img == nil || img.Rect != image.Rect(0, 0, r.Dx(), r.Dy()) || img.Stride != 4*r.Dx() {
		img = image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	}
	if in.Empty() {
		opaque(img)
		return img, nil
	}
	need := in.Dx() * in.Dy() * 4
	if err := k.ensure(need); err != nil {
		return nil, err
	}
	if _, err := mshm.GetImage(k.c, xproto.Drawable(k.root), int16(in.Min.X), int16(in.Min.Y),
		uint16(in.Dx()), uint16(in.Dy()), 0xffffffff, xproto.ImageFormatZPixmap, k.seg, 0).Reply(); err != nil {
		return nil, fmt.Errorf("%w: capture %v: %v", device.ErrGone, r, err)
	}
	if in != r {
		opaque(img)
	}
	src := k.data[:need]
	w := in.Dx() * 4
	for y := 0; y < in.Dy(); y++ {
		s := src[y*w : y*w+w]
		d := img.Pix[(in.Min.Y-r.Min.Y+y)*img.Stride+(in.Min.X-r.Min.X)*4:]
		d = d[:len(s)]
		for i := 0; i < len(s); i += 4 {
			d[i] = s[i+2]
			d[i+1] = s[i+1]
			d[i+2] = s[i]
			d[i+3] = 255
		}
	}
	return img, ctx.Err()
}

// opaque paints img opaque black (a reused frame may hold an old picture).
func opaque(img *image.RGBA) {
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 0, 0, 0, 255
	}
}

// ensure makes the shared segment at least n bytes.
func (k *capturer) ensure(n int) error {
	if len(k.data) >= n {
		return nil
	}
	k.release()
	id, err := sysvGet(n)
	if err != nil {
		return fmt.Errorf("capture: shared memory: %w", err)
	}
	// Marked for removal at once: the kernel frees it when both we and the X
	// server have detached, even if Tandem crashes.
	defer func() { _ = sysvRm(id) }()
	data, err := sysvAt(id)
	if err != nil {
		return fmt.Errorf("capture: attach shared memory: %w", err)
	}
	seg, err := mshm.NewSegId(k.c)
	if err != nil {
		_ = sysvDt(data)
		return fmt.Errorf("capture: %w", err)
	}
	if err := mshm.AttachChecked(k.c, seg, uint32(id), false).Check(); err != nil {
		_ = sysvDt(data)
		return fmt.Errorf("capture: X server cannot attach shared memory: %w", err)
	}
	k.seg, k.id, k.data = seg, id, data[:n]
	return nil
}

func (k *capturer) release() {
	if k.data == nil {
		return
	}
	_ = mshm.DetachChecked(k.c, k.seg).Check()
	_ = sysvDt(k.data)
	k.data = nil
}

func (k *capturer) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.release()
	k.c.Close()
}
