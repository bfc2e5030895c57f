package screens

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand"

	"tandem/vphone/render"
)

// canvas draws the phone's nodes: the render canvas and the model the
// nodes' values and paints read.
type canvas struct {
	*render.Canvas
	m *Model
}

// Paint draws the whole screen for the model's current state.
func Paint(m *Model, fonts *render.Fonts) *image.RGBA {
	c := &canvas{Canvas: &render.Canvas{Img: image.NewRGBA(image.Rect(0, 0, m.w, m.h)), Fonts: fonts, Scale: m.scale}, m: m}
	c.Fill(c.Img.Bounds(), white)
	if d := m.modal(); d != nil && m.screen != scrRecents {
		c.drawTree(m.shift(m.activityWindow()))
		c.statusBar()
		c.Dim()
		c.drawTree(d)
		return c.Img
	}
	c.drawTree(m.Window())
	if m.fg != PkgGame || m.screen == scrRecents {
		c.statusBar()
		c.navHandle()
	}
	return c.Img
}

func (c *canvas) statusBar() {
	bar := image.Rect(0, 0, c.Img.Bounds().Dx(), c.Px(80))
	c.Fill(bar, rgb(0x1c, 0x1c, 0x1c))
	c.TextIn("9:41", bar, 36, white, false, c.Px(50))
	w := c.Img.Bounds().Dx()
	batt := image.Rect(w-c.Px(120), c.Px(26), w-c.Px(60), c.Px(54))
	c.RoundRect(batt, c.Px(6), white)
	c.Fill(image.Rect(batt.Max.X, batt.Min.Y+c.Px(8), batt.Max.X+c.Px(6), batt.Max.Y-c.Px(8)), white)
	c.TextIn("5G", image.Rect(w-c.Px(260), 0, w-c.Px(140), c.Px(80)), 32, white, false, 0)
}

func (c *canvas) navHandle() {
	w, h := c.Img.Bounds().Dx(), c.Img.Bounds().Dy()
	c.RoundRect(image.Rect(w/2-c.Px(140), h-c.Px(30), w/2+c.Px(140), h-c.Px(20)), c.Px(5), rgb(0x90, 0x90, 0x90))
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
			c.Fill(r, n.bg)
		}
		if n.text != "" {
			c.TextIn(n.text, r, n.size, n.fg, n.center, 0)
		}
	case lookBar:
		c.Fill(r, n.bg)
		c.TextIn(n.text, r, n.size, n.fg, n.center, c.Px(60))
	case lookButton:
		bg := n.bg
		if n.disabled {
			bg = render.Lighten(bg, 0.5)
		}
		c.RoundRect(r, c.Px(28), bg)
		c.TextIn(n.text, r, n.size, n.fg, true, 0)
	case lookEdit:
		c.drawEdit(n)
	case lookIcon:
		c.drawIcon(n)
	case lookSwitch:
		track := render.Lighten(rgb(0x9e, 0x9e, 0x9e), 0.3)
		if n.checked {
			track = render.Lighten(n.accent, 0.4)
		}
		c.RoundRect(r, r.Dy()/2, track)
		rad := r.Dy()/2 - c.Px(6)
		cx := r.Min.X + r.Dy()/2
		thumb := rgb(0xfa, 0xfa, 0xfa)
		if n.checked {
			cx, thumb = r.Max.X-r.Dy()/2, n.accent
		}
		c.Circle(cx, r.Min.Y+r.Dy()/2, rad, thumb)
	case lookRow:
		if n.paint != nil {
			n.paint(c, n)
			return
		}
		if n.selected {
			c.Fill(r, rgb(0xe3, 0xf2, 0xfd))
		}
		c.Fill(image.Rect(r.Min.X+c.Px(40), r.Max.Y-c.Px(2), r.Max.X, r.Max.Y), divider)
		if n.text != "" {
			c.TextIn(n.text, r, n.size, n.fg, false, c.Px(60))
		}
	case lookCard:
		c.RoundRect(r, c.Px(32), n.bg)
		if n.glyph != "" {
			head := image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+c.Px(90))
			c.RoundRect(head, c.Px(32), n.accent)
			c.Fill(image.Rect(head.Min.X, head.Max.Y-c.Px(32), head.Max.X, head.Max.Y), n.accent)
			c.TextIn(n.glyph, head, 44, white, false, c.Px(40))
			c.TextIn("Tap to open", image.Rect(r.Min.X, head.Max.Y, r.Max.X, r.Max.Y), 40, textGrey, true, 0)
		} else if n.text != "" {
			c.TextIn(n.text, r, n.size, n.fg, false, c.Px(30))
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
	c.Fill(image.Rect(r.Min.X, r.Max.Y-c.Px(4), r.Max.X, r.Max.Y), line)
	inner := image.Rect(r.Min.X+c.Px(10), r.Min.Y+c.Px(10), r.Max.X-c.Px(10), r.Max.Y-c.Px(10))
	value := ""
	if n.value != nil {
		value = *n.value(c.m)
	}
	var end image.Point
	h := c.Fonts.Face(c.Px(n.size)).Metrics().Height.Ceil()
	switch {
	case value == "" && n.hint != "":
		if n.multi {
			c.TextBlock(n.hint, inner, n.size, textGrey)
		} else {
			c.TextIn(n.hint, inner, n.size, textGrey, false, 0)
		}
		end = image.Pt(inner.Min.X, inner.Min.Y)
		if !n.multi {
			end.Y = inner.Min.Y + (inner.Dy()-h)/2
		}
	case n.multi:
		end = c.TextBlock(value, inner, n.size, n.fg)
	default:
		if w := c.Measure(value, n.size); w > inner.Dx() {
			// Scroll a long single line so its end stays visible.
			x := inner.Max.X - w
			face := c.Fonts.Face(c.Px(n.size))
			asc := face.Metrics().Ascent.Ceil()
			y := inner.Min.Y + (inner.Dy()-h)/2 + asc
			c.Text(value, x, y, n.size, n.fg, inner)
			end = image.Pt(inner.Max.X, y-asc)
		} else {
			c.TextIn(value, inner, n.size, n.fg, false, 0)
			end = image.Pt(inner.Min.X+w, inner.Min.Y+(inner.Dy()-h)/2)
		}
	}
	if n.focused {
		x := min(end.X+c.Px(2), inner.Max.X-c.Px(3))
		c.Fill(image.Rect(x, end.Y, x+c.Px(3), min(end.Y+h, inner.Max.Y)), rgb(0x1e, 0x88, 0xe5))
	}
}

func (c *canvas) drawIcon(n *node) {
	r := n.bounds
	if n.size == 0 { // an avatar: the tile fills the node
		c.RoundRect(r, c.Px(16), n.accent)
		c.TextIn(n.glyph, r, int(float64(r.Dy())/c.Scale*0.5), white, true, 0)
		return
	}
	side := c.Px(170)
	tile := image.Rect(r.Min.X+(r.Dx()-side)/2, r.Min.Y+c.Px(20), r.Min.X+(r.Dx()+side)/2, r.Min.Y+c.Px(20)+side)
	c.RoundRect(tile, c.Px(44), n.accent)
	c.TextIn(n.glyph, tile, 80, white, true, 0)
	c.TextIn(n.text, image.Rect(r.Min.X, tile.Max.Y+c.Px(10), r.Max.X, r.Max.Y), n.size, n.fg, true, 0)
}

// rowPaint draws a list row whose full extent is full, clipped to the node.
func rowPaint(full image.Rectangle) func(c *canvas, n *node) {
	return func(c *canvas, n *node) {
		clip := n.bounds
		if n.selected {
			c.Fill(clip, rgb(0xe3, 0xf2, 0xfd))
		}
		div := image.Rect(full.Min.X+c.Px(40), full.Max.Y-c.Px(2), full.Max.X, full.Max.Y).Intersect(clip)
		c.Fill(div, divider)
		face := c.Fonts.Face(c.Px(n.size))
		met := face.Metrics()
		y := full.Min.Y + (full.Dy()-(met.Ascent.Ceil()+met.Descent.Ceil()))/2 + met.Ascent.Ceil()
		c.Text(n.text, full.Min.X+c.Px(60), y, n.size, n.fg, clip)
	}
}

// paintCaptcha draws the login code wavy, in mixed colours, over noise:
// readable by a person, absent from the UI tree.
func (m *Model) paintCaptcha(c *canvas, n *node) {
	r := n.bounds
	c.Fill(r, rgb(0xf0, 0xeb, 0xe0))
	rng := rand.New(rand.NewSource(int64(len(m.captcha))*7919 + int64(m.captcha[0])))
	tmp := &render.Canvas{Img: image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy())), Fonts: c.Fonts, Scale: c.Scale}
	colors := []color.RGBA{rgb(0xc6, 0x28, 0x28), rgb(0x28, 0x35, 0x93), rgb(0x2e, 0x7d, 0x32), rgb(0x6a, 0x1b, 0x9a)}
	x := c.Px(30)
	for i, ch := range m.captcha {
		size := 84 + rng.Intn(24)
		y := r.Dy()/2 + c.Px(28) + c.Px(rng.Intn(40)-20)
		tmp.Text(string(ch), x, y, size, colors[i%len(colors)], tmp.Img.Bounds())
		x += c.Measure(string(ch), size) + c.Px(6+rng.Intn(14))
	}
	// Warp: shift each column vertically along a sine wave.
	amp, period := float64(c.Px(14)), float64(c.Px(110))
	for dx := 0; dx < r.Dx(); dx++ {
		shift := int(amp * math.Sin(float64(dx)/period*2*math.Pi))
		for dy := 0; dy < r.Dy(); dy++ {
			sy := dy - shift
			if sy < 0 || sy >= r.Dy() {
				continue
			}
			o := tmp.Img.PixOffset(dx, sy)
			if a := tmp.Img.Pix[o+3]; a > 0x40 {
				c.Img.Set(r.Min.X+dx, r.Min.Y+dy, color.RGBA{tmp.Img.Pix[o], tmp.Img.Pix[o+1], tmp.Img.Pix[o+2], 0xff})
			}
		}
	}
	for i := 0; i < 7; i++ {
		x0, y0 := r.Min.X+rng.Intn(r.Dx()), r.Min.Y+rng.Intn(r.Dy())
		x1, y1 := r.Min.X+rng.Intn(r.Dx()), r.Min.Y+rng.Intn(r.Dy())
		c.Line(x0, y0, x1, y1, c.Px(3), colors[rng.Intn(len(colors))], r)
	}
	for i := 0; i < 250; i++ {
		c.Img.Set(r.Min.X+rng.Intn(r.Dx()), r.Min.Y+rng.Intn(r.Dy()), colors[rng.Intn(len(colors))])
	}
}

// paintAnim draws a ball crossing the stage while the animation runs and a
// still picture once it settled.
func (m *Model) paintAnim(c *canvas, n *node) {
	r := n.bounds
	c.Fill(r, rgb(0xff, 0xf3, 0xe0))
	now := m.now()
	if !m.Animating(now) {
		c.RoundRect(image.Rect(r.Min.X+r.Dx()/2-c.Px(120), r.Min.Y+r.Dy()/2-c.Px(120), r.Min.X+r.Dx()/2+c.Px(120), r.Min.Y+r.Dy()/2+c.Px(120)),
			c.Px(30), rgb(0xff, 0x70, 0x43))
		return
	}
	t := now.Sub(m.animStart).Seconds()
	rad := c.Px(70)
	x := r.Min.X + rad + int((0.5+0.5*math.Sin(t*6))*float64(r.Dx()-2*rad))
	y := r.Min.Y + rad + int((0.5+0.5*math.Cos(t*4))*float64(r.Dy()-2*rad))
	hue := uint8(int(t*400) % 256)
	c.Circle(x, y, rad, color.RGBA{hue, 0x70, 255 - hue, 0xff})
	bar := int(float64(r.Dx()) * math.Min(1, float64(now.Sub(m.animStart))/float64(max(m.animFor, 1))))
	c.Fill(image.Rect(r.Min.X, r.Max.Y-c.Px(16), r.Min.X+bar, r.Max.Y), rgb(0xff, 0x70, 0x43))
}

// paintGame draws the canvas game: the only way to see the target is to
// look at the picture.
func (m *Model) paintGame(c *canvas, n *node) {
	r := n.bounds
	c.Fill(r, rgb(0x10, 0x14, 0x2b))
	rng := rand.New(rand.NewSource(42))
	for i := 0; i < 120; i++ {
		x, y := rng.Intn(r.Dx()), rng.Intn(r.Dy())
		c.Fill(image.Rect(x, y, x+c.Px(4), y+c.Px(4)), rgb(0xcf, 0xd8, 0xdc))
	}
	c.TextIn(fmt.Sprintf("SCORE %d", m.gameScore), image.Rect(0, c.Px(60), r.Dx(), c.Px(200)), 72, rgb(0xff, 0xeb, 0x3b), true, 0)
	cx, cy, rad := m.gameTarget()
	c.Circle(cx, cy, rad, rgb(0xe5, 0x39, 0x35))
	c.Circle(cx, cy, rad*2/3, white)
	c.Circle(cx, cy, rad/3, rgb(0xe5, 0x39, 0x35))
	c.TextIn("Tap the target", image.Rect(0, r.Max.Y-c.Px(200), r.Dx(), r.Max.Y-c.Px(100)), 44, rgb(0x90, 0xa4, 0xae), true, 0)
}
