package vphone

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"math"
	"math/rand"
	"os"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// DefaultFontPath is the CJK font from Debian's fonts-noto-cjk.
const DefaultFontPath = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

// fontSet loads one font lazily and keeps a face per pixel size. Faces are
// not safe for concurrent use; the renderer's lock covers them.
type fontSet struct {
	path  string
	log   *slog.Logger
	once  sync.Once
	font  *sfnt.Font
	faces map[int]font.Face
}

func (fs *fontSet) load() {
	fs.faces = map[int]font.Face{}
	if f, err := loadCJK(fs.path); err == nil {
		fs.font = f
		return
	} else {
		fs.log.Warn("vphone: no CJK font, falling back to Go's font: Chinese text will render as boxes (install fonts-noto-cjk)",
			"path", fs.path, "err", err)
	}
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		// goregular is compiled in; failing to parse it is a broken build.
		panic(fmt.Sprintf("vphone: parsing the built-in Go font: %v", err))
	}
	fs.font = f
}

// loadCJK loads a font file; from a collection it prefers the Simplified
// Chinese member.
func loadCJK(path string) (*sfnt.Font, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := opentype.ParseCollection(data)
	if err != nil {
		return nil, err
	}
	var first *sfnt.Font
	for i := 0; i < c.NumFonts(); i++ {
		f, err := c.Font(i)
		if err != nil {
			continue
		}
		if first == nil {
			first = f
		}
		name, err := f.Name(nil, sfnt.NameIDFamily)
		if err == nil && strings.HasSuffix(name, " SC") {
			return f, nil
		}
	}
	if first == nil {
		return nil, fmt.Errorf("vphone: no usable font in %s", path)
	}
	return first, nil
}

func (fs *fontSet) face(px int) font.Face {
	fs.once.Do(fs.load)
	px = max(px, 6)
	if f, ok := fs.faces[px]; ok {
		return f
	}
	f, err := opentype.NewFace(fs.font, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic(fmt.Sprintf("vphone: face of %d px: %v", px, err))
	}
	fs.faces[px] = f
	return f
}

// canvas draws nodes onto an RGBA image.
type canvas struct {
	img   *image.RGBA
	fonts *fontSet
	scale float64
	m     *model
}

func (c *canvas) px(design int) int { return int(float64(design)*c.scale + 0.5) }

func (c *canvas) fill(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// roundRect fills r with corners of radius rad.
func (c *canvas) roundRect(r image.Rectangle, rad int, col color.RGBA) {
	r = r.Canon()
	rad = min(rad, r.Dx()/2, r.Dy()/2)
	if rad <= 0 {
		c.fill(r, col)
		return
	}
	c.fill(image.Rect(r.Min.X, r.Min.Y+rad, r.Max.X, r.Max.Y-rad), col)
	for i := 0; i < rad; i++ {
		dy := float64(rad-i) - 0.5
		inset := rad - int(math.Sqrt(float64(rad*rad)-dy*dy)+0.5)
		c.fill(image.Rect(r.Min.X+inset, r.Min.Y+i, r.Max.X-inset, r.Min.Y+i+1), col)
		c.fill(image.Rect(r.Min.X+inset, r.Max.Y-1-i, r.Max.X-inset, r.Max.Y-i), col)
	}
}

func (c *canvas) circle(cx, cy, rad int, col color.RGBA) {
	c.roundRect(image.Rect(cx-rad, cy-rad, cx+rad, cy+rad), rad, col)
}

func (c *canvas) measure(s string, size int) int {
	return font.MeasureString(c.fonts.face(c.px(size)), s).Ceil()
}

// text draws one line with its baseline at y, clipped to clip.
func (c *canvas) text(s string, x, y, size int, col color.RGBA, clip image.Rectangle) {
	dst, ok := c.img.SubImage(clip).(*image.RGBA)
	if !ok || s == "" {
		return
	}
	d := font.Drawer{Dst: dst, Src: image.NewUniform(col), Face: c.fonts.face(c.px(size)), Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// textIn draws s vertically centred in r, left-padded or centred.
func (c *canvas) textIn(s string, r image.Rectangle, size int, col color.RGBA, center bool, pad int) {
	face := c.fonts.face(c.px(size))
	met := face.Metrics()
	asc, desc := met.Ascent.Ceil(), met.Descent.Ceil()
	y := r.Min.Y + (r.Dy()-(asc+desc))/2 + asc
	x := r.Min.X + pad
	if center {
		x = r.Min.X + (r.Dx()-c.measure(s, size))/2
	}
	c.text(s, x, y, size, col, r)
}

// wrap splits s into lines that fit width at size.
func (c *canvas) wrap(s string, width, size int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, r := range para {
			if c.measure(line+string(r), size) > width && line != "" {
				out = append(out, line)
				line = ""
			}
			line += string(r)
		}
		out = append(out, line)
	}
	return out
}

// textBlock draws wrapped text from the top-left of r; it returns where the
// last line ends (for a cursor).
func (c *canvas) textBlock(s string, r image.Rectangle, size int, col color.RGBA) image.Point {
	face := c.fonts.face(c.px(size))
	lineH := face.Metrics().Height.Ceil()
	asc := face.Metrics().Ascent.Ceil()
	y := r.Min.Y + asc
	end := image.Pt(r.Min.X, r.Min.Y)
	for _, line := range c.wrap(s, r.Dx(), size) {
		c.text(line, r.Min.X, y, size, col, r)
		end = image.Pt(r.Min.X+c.measure(line, size), y-asc)
		y += lineH
	}
	return end
}

func lighten(col color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f) }
	return color.RGBA{mix(col.R), mix(col.G), mix(col.B), 0xff}
}

// dim darkens the whole picture behind a dialog.
func (c *canvas) dim() {
	p := c.img.Pix
	for i := 0; i < len(p); i += 4 {
		p[i], p[i+1], p[i+2] = p[i]/2, p[i+1]/2, p[i+2]/2
	}
}

// render draws the whole screen for the model's current state.
func render(m *model, fonts *fontSet) *image.RGBA {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, m.w, m.h)), fonts: fonts, scale: m.scale, m: m}
	c.fill(c.img.Bounds(), white)
	if m.fg == PkgDialog && m.dialogOpen && m.screen != scrRecents {
		c.drawTree(m.activityWindow())
		c.statusBar()
		c.dim()
		c.drawTree(m.dialogWindow())
		return c.img
	}
	c.drawTree(m.window())
	if m.fg != PkgGame || m.screen == scrRecents {
		c.statusBar()
		c.navHandle()
	}
	return c.img
}

func (c *canvas) statusBar() {
	bar := image.Rect(0, 0, c.img.Bounds().Dx(), c.px(80))
	c.fill(bar, rgb(0x1c, 0x1c, 0x1c))
	c.textIn("9:41", bar, 36, white, false, c.px(50))
	w := c.img.Bounds().Dx()
	batt := image.Rect(w-c.px(120), c.px(26), w-c.px(60), c.px(54))
	c.roundRect(batt, c.px(6), white)
	c.fill(image.Rect(batt.Max.X, batt.Min.Y+c.px(8), batt.Max.X+c.px(6), batt.Max.Y-c.px(8)), white)
	c.textIn("5G", image.Rect(w-c.px(260), 0, w-c.px(140), c.px(80)), 32, white, false, 0)
}

func (c *canvas) navHandle() {
	w, h := c.img.Bounds().Dx(), c.img.Bounds().Dy()
	c.roundRect(image.Rect(w/2-c.px(140), h-c.px(30), w/2+c.px(140), h-c.px(20)), c.px(5), rgb(0x90, 0x90, 0x90))
}

func (c *canvas) drawTree(n *node) {
	c.drawNode(n)
	for _, ch := range n.children {
		c.drawTree(ch)
	}
}

func (c *canvas) drawNode(n *node) {
	r := n.bounds
	switch n.look {
	case lookNone:
	case lookText:
		if n.bg.A > 0 {
			c.fill(r, n.bg)
		}
		if n.text != "" {
			c.textIn(n.text, r, n.size, n.fg, n.center, 0)
		}
	case lookBar:
		c.fill(r, n.bg)
		c.textIn(n.text, r, n.size, n.fg, n.center, c.px(60))
	case lookButton:
		bg := n.bg
		if n.disabled {
			bg = lighten(bg, 0.5)
		}
		c.roundRect(r, c.px(28), bg)
		c.textIn(n.text, r, n.size, n.fg, true, 0)
	case lookEdit:
		c.drawEdit(n)
	case lookIcon:
		c.drawIcon(n)
	case lookSwitch:
		track := lighten(rgb(0x9e, 0x9e, 0x9e), 0.3)
		if n.checked {
			track = lighten(n.accent, 0.4)
		}
		c.roundRect(r, r.Dy()/2, track)
		rad := r.Dy()/2 - c.px(6)
		cx := r.Min.X + r.Dy()/2
		thumb := rgb(0xfa, 0xfa, 0xfa)
		if n.checked {
			cx, thumb = r.Max.X-r.Dy()/2, n.accent
		}
		c.circle(cx, r.Min.Y+r.Dy()/2, rad, thumb)
	case lookRow:
		if n.paint != nil {
			n.paint(c, n)
			return
		}
		if n.selected {
			c.fill(r, rgb(0xe3, 0xf2, 0xfd))
		}
		c.fill(image.Rect(r.Min.X+c.px(40), r.Max.Y-c.px(2), r.Max.X, r.Max.Y), divider)
		if n.text != "" {
			c.textIn(n.text, r, n.size, n.fg, false, c.px(60))
		}
	case lookCard:
		c.roundRect(r, c.px(32), n.bg)
		if n.glyph != "" {
			head := image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+c.px(90))
			c.roundRect(head, c.px(32), n.accent)
			c.fill(image.Rect(head.Min.X, head.Max.Y-c.px(32), head.Max.X, head.Max.Y), n.accent)
			c.textIn(n.glyph, head, 44, white, false, c.px(40))
			c.textIn("Tap to open", image.Rect(r.Min.X, head.Max.Y, r.Max.X, r.Max.Y), 40, textGrey, true, 0)
		} else if n.text != "" {
			c.textIn(n.text, r, n.size, n.fg, false, c.px(30))
		}
	case lookCustom:
		n.paint(c, n)
	}
}

func (c *canvas) drawEdit(n *node) {
	r := n.bounds
	line := rgb(0xbd, 0xbd, 0xbd)
	if n.focused {
		line = rgb(0x1e, 0x88, 0xe5)
	}
	c.fill(image.Rect(r.Min.X, r.Max.Y-c.px(4), r.Max.X, r.Max.Y), line)
	inner := image.Rect(r.Min.X+c.px(10), r.Min.Y+c.px(10), r.Max.X-c.px(10), r.Max.Y-c.px(10))
	value := ""
	if n.value != nil {
		value = *n.value(c.m)
	}
	var end image.Point
	h := c.fonts.face(c.px(n.size)).Metrics().Height.Ceil()
	switch {
	case value == "" && n.hint != "":
		if n.multi {
			c.textBlock(n.hint, inner, n.size, textGrey)
		} else {
			c.textIn(n.hint, inner, n.size, textGrey, false, 0)
		}
		end = image.Pt(inner.Min.X, inner.Min.Y)
		if !n.multi {
			end.Y = inner.Min.Y + (inner.Dy()-h)/2
		}
	case n.multi:
		end = c.textBlock(value, inner, n.size, n.fg)
	default:
		if w := c.measure(value, n.size); w > inner.Dx() {
			// Scroll a long single line so its end stays visible.
			x := inner.Max.X - w
			face := c.fonts.face(c.px(n.size))
			asc := face.Metrics().Ascent.Ceil()
			y := inner.Min.Y + (inner.Dy()-h)/2 + asc
			c.text(value, x, y, n.size, n.fg, inner)
			end = image.Pt(inner.Max.X, y-asc)
		} else {
			c.textIn(value, inner, n.size, n.fg, false, 0)
			end = image.Pt(inner.Min.X+w, inner.Min.Y+(inner.Dy()-h)/2)
		}
	}
	if n.focused {
		x := min(end.X+c.px(2), inner.Max.X-c.px(3))
		c.fill(image.Rect(x, end.Y, x+c.px(3), min(end.Y+h, inner.Max.Y)), rgb(0x1e, 0x88, 0xe5))
	}
}

func (c *canvas) drawIcon(n *node) {
	r := n.bounds
	if n.size == 0 { // an avatar: the tile fills the node
		c.roundRect(r, c.px(16), n.accent)
		c.textIn(n.glyph, r, int(float64(r.Dy())/c.scale*0.5), white, true, 0)
		return
	}
	side := c.px(170)
	tile := image.Rect(r.Min.X+(r.Dx()-side)/2, r.Min.Y+c.px(20), r.Min.X+(r.Dx()+side)/2, r.Min.Y+c.px(20)+side)
	c.roundRect(tile, c.px(44), n.accent)
	c.textIn(n.glyph, tile, 80, white, true, 0)
	c.textIn(n.text, image.Rect(r.Min.X, tile.Max.Y+c.px(10), r.Max.X, r.Max.Y), n.size, n.fg, true, 0)
}

// rowPaint draws a list row whose full extent is full, clipped to the node.
func rowPaint(full image.Rectangle) func(c *canvas, n *node) {
	return func(c *canvas, n *node) {
		clip := n.bounds
		if n.selected {
			c.fill(clip, rgb(0xe3, 0xf2, 0xfd))
		}
		div := image.Rect(full.Min.X+c.px(40), full.Max.Y-c.px(2), full.Max.X, full.Max.Y).Intersect(clip)
		c.fill(div, divider)
		face := c.fonts.face(c.px(n.size))
		met := face.Metrics()
		y := full.Min.Y + (full.Dy()-(met.Ascent.Ceil()+met.Descent.Ceil()))/2 + met.Ascent.Ceil()
		c.text(n.text, full.Min.X+c.px(60), y, n.size, n.fg, clip)
	}
}

// paintCaptcha draws the login code wavy, in mixed colours, over noise:
// readable by a person, absent from the UI tree.
func (m *model) paintCaptcha(c *canvas, n *node) {
	r := n.bounds
	c.fill(r, rgb(0xf0, 0xeb, 0xe0))
	rng := rand.New(rand.NewSource(int64(len(m.captcha))*7919 + int64(m.captcha[0])))
	tmp := &canvas{img: image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy())), fonts: c.fonts, scale: c.scale, m: m}
	colors := []color.RGBA{rgb(0xc6, 0x28, 0x28), rgb(0x28, 0x35, 0x93), rgb(0x2e, 0x7d, 0x32), rgb(0x6a, 0x1b, 0x9a)}
	x := c.px(30)
	for i, ch := range m.captcha {
		size := 84 + rng.Intn(24)
		y := r.Dy()/2 + c.px(28) + c.px(rng.Intn(40)-20)
		tmp.text(string(ch), x, y, size, colors[i%len(colors)], tmp.img.Bounds())
		x += c.measure(string(ch), size) + c.px(6+rng.Intn(14))
	}
	// Warp: shift each column vertically along a sine wave.
	amp, period := float64(c.px(14)), float64(c.px(110))
	for dx := 0; dx < r.Dx(); dx++ {
		shift := int(amp * math.Sin(float64(dx)/period*2*math.Pi))
		for dy := 0; dy < r.Dy(); dy++ {
			sy := dy - shift
			if sy < 0 || sy >= r.Dy() {
				continue
			}
			o := tmp.img.PixOffset(dx, sy)
			if a := tmp.img.Pix[o+3]; a > 0x40 {
				c.img.Set(r.Min.X+dx, r.Min.Y+dy, color.RGBA{tmp.img.Pix[o], tmp.img.Pix[o+1], tmp.img.Pix[o+2], 0xff})
			}
		}
	}
	for i := 0; i < 7; i++ {
		x0, y0 := r.Min.X+rng.Intn(r.Dx()), r.Min.Y+rng.Intn(r.Dy())
		x1, y1 := r.Min.X+rng.Intn(r.Dx()), r.Min.Y+rng.Intn(r.Dy())
		c.line(x0, y0, x1, y1, c.px(3), colors[rng.Intn(len(colors))], r)
	}
	for i := 0; i < 250; i++ {
		c.img.Set(r.Min.X+rng.Intn(r.Dx()), r.Min.Y+rng.Intn(r.Dy()), colors[rng.Intn(len(colors))])
	}
}

// line draws a thick straight line clipped to clip.
func (c *canvas) line(x0, y0, x1, y1, width int, col color.RGBA, clip image.Rectangle) {
	steps := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= steps; i++ {
		x := x0 + (x1-x0)*i/steps
		y := y0 + (y1-y0)*i/steps
		c.fill(image.Rect(x, y, x+width, y+width).Intersect(clip), col)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// paintAnim draws a ball crossing the stage while the animation runs and a
// still picture once it settled.
func (m *model) paintAnim(c *canvas, n *node) {
	r := n.bounds
	c.fill(r, rgb(0xff, 0xf3, 0xe0))
	now := m.now()
	if !m.animating(now) {
		c.roundRect(image.Rect(r.Min.X+r.Dx()/2-c.px(120), r.Min.Y+r.Dy()/2-c.px(120), r.Min.X+r.Dx()/2+c.px(120), r.Min.Y+r.Dy()/2+c.px(120)),
			c.px(30), rgb(0xff, 0x70, 0x43))
		return
	}
	t := now.Sub(m.animStart).Seconds()
	rad := c.px(70)
	x := r.Min.X + rad + int((0.5+0.5*math.Sin(t*6))*float64(r.Dx()-2*rad))
	y := r.Min.Y + rad + int((0.5+0.5*math.Cos(t*4))*float64(r.Dy()-2*rad))
	hue := uint8(int(t*400) % 256)
	c.circle(x, y, rad, color.RGBA{hue, 0x70, 255 - hue, 0xff})
	bar := int(float64(r.Dx()) * math.Min(1, float64(now.Sub(m.animStart))/float64(max(m.animFor, 1))))
	c.fill(image.Rect(r.Min.X, r.Max.Y-c.px(16), r.Min.X+bar, r.Max.Y), rgb(0xff, 0x70, 0x43))
}

// paintGame draws the canvas game: the only way to see the target is to
// look at the picture.
func (m *model) paintGame(c *canvas, n *node) {
	r := n.bounds
	c.fill(r, rgb(0x10, 0x14, 0x2b))
	rng := rand.New(rand.NewSource(42))
	for i := 0; i < 120; i++ {
		x, y := rng.Intn(r.Dx()), rng.Intn(r.Dy())
		c.fill(image.Rect(x, y, x+c.px(4), y+c.px(4)), rgb(0xcf, 0xd8, 0xdc))
	}
	c.textIn(fmt.Sprintf("SCORE %d", m.gameScore), image.Rect(0, c.px(60), r.Dx(), c.px(200)), 72, rgb(0xff, 0xeb, 0x3b), true, 0)
	cx, cy, rad := m.gameTarget()
	c.circle(cx, cy, rad, rgb(0xe5, 0x39, 0x35))
	c.circle(cx, cy, rad*2/3, white)
	c.circle(cx, cy, rad/3, rgb(0xe5, 0x39, 0x35))
	c.textIn("Tap the target", image.Rect(0, r.Max.Y-c.px(200), r.Dx(), r.Max.Y-c.px(100)), 44, rgb(0x90, 0xa4, 0xae), true, 0)
}
