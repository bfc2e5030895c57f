// Package render is the virtual phone's paint box: fonts (a real CJK font,
// because vision models must read Chinese on the screen), a canvas that
// draws shapes and text in design units, a fast PNG encoder, and the
// rotation and letterbox transforms of a finished picture. It is apart
// from the phone because it knows no screen, node or app: the phone's
// screens are drawn with it.
package render

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"math"
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

// NewFonts is the font at path (a CJK collection: its Simplified Chinese
// member), loaded on first use; without it Go's own font, said once on
// log (nil: slog's default).
func NewFonts(path string, log *slog.Logger) *Fonts {
	if log == nil {
		log = slog.Default()
	}
	return &Fonts{path: path, log: log}
}

// Fonts loads one font lazily and keeps a face per pixel size. Faces are
// not safe for concurrent use; the renderer's lock covers them.
type Fonts struct {
	path  string
	log   *slog.Logger
	once  sync.Once
	font  *sfnt.Font
	faces map[int]font.Face
}

func (fs *Fonts) load() {
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

// Face is the font at px pixels.
func (fs *Fonts) Face(px int) font.Face {
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

// Canvas draws onto an RGBA image in design units scaled to its pixels.
type Canvas struct {
	Img   *image.RGBA
	Fonts *Fonts
	Scale float64 // device pixels per design unit
}

// Px is design units in pixels.
func (c *Canvas) Px(design int) int { return int(float64(design)*c.Scale + 0.5) }

// Fill paints r.
func (c *Canvas) Fill(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.Img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// RoundRect fills r with corners of radius rad.
func (c *Canvas) RoundRect(r image.Rectangle, rad int, col color.RGBA) {
	r = r.Canon()
	rad = min(rad, r.Dx()/2, r.Dy()/2)
	if rad <= 0 {
		c.Fill(r, col)
		return
	}
	c.Fill(image.Rect(r.Min.X, r.Min.Y+rad, r.Max.X, r.Max.Y-rad), col)
	for i := 0; i < rad; i++ {
		dy := float64(rad-i) - 0.5
		inset := rad - int(math.Sqrt(float64(rad*rad)-dy*dy)+0.5)
		c.Fill(image.Rect(r.Min.X+inset, r.Min.Y+i, r.Max.X-inset, r.Min.Y+i+1), col)
		c.Fill(image.Rect(r.Min.X+inset, r.Max.Y-1-i, r.Max.X-inset, r.Max.Y-i), col)
	}
}

// Circle fills a disc.
func (c *Canvas) Circle(cx, cy, rad int, col color.RGBA) {
	c.RoundRect(image.Rect(cx-rad, cy-rad, cx+rad, cy+rad), rad, col)
}

// Measure is the width of s at size.
func (c *Canvas) Measure(s string, size int) int {
	return font.MeasureString(c.Fonts.Face(c.Px(size)), s).Ceil()
}

// Text draws one line with its baseline at y, clipped to clip.
func (c *Canvas) Text(s string, x, y, size int, col color.RGBA, clip image.Rectangle) {
	dst, ok := c.Img.SubImage(clip).(*image.RGBA)
	if !ok || s == "" {
		return
	}
	d := font.Drawer{Dst: dst, Src: image.NewUniform(col), Face: c.Fonts.Face(c.Px(size)), Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// TextIn draws s vertically centred in r, left-padded or centred.
func (c *Canvas) TextIn(s string, r image.Rectangle, size int, col color.RGBA, center bool, pad int) {
	face := c.Fonts.Face(c.Px(size))
	met := face.Metrics()
	asc, desc := met.Ascent.Ceil(), met.Descent.Ceil()
	y := r.Min.Y + (r.Dy()-(asc+desc))/2 + asc
	x := r.Min.X + pad
	if center {
		x = r.Min.X + (r.Dx()-c.Measure(s, size))/2
	}
	c.Text(s, x, y, size, col, r)
}

// Wrap splits s into lines that fit width at size.
func (c *Canvas) Wrap(s string, width, size int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, r := range para {
			if c.Measure(line+string(r), size) > width && line != "" {
				out = append(out, line)
				line = ""
			}
			line += string(r)
		}
		out = append(out, line)
	}
	return out
}

// TextBlock draws wrapped text from the top-left of r; it returns where the
// last line ends (for a cursor).
func (c *Canvas) TextBlock(s string, r image.Rectangle, size int, col color.RGBA) image.Point {
	face := c.Fonts.Face(c.Px(size))
	lineH := face.Metrics().Height.Ceil()
	asc := face.Metrics().Ascent.Ceil()
	y := r.Min.Y + asc
	end := image.Pt(r.Min.X, r.Min.Y)
	for _, line := range c.Wrap(s, r.Dx(), size) {
		c.Text(line, r.Min.X, y, size, col, r)
		end = image.Pt(r.Min.X+c.Measure(line, size), y-asc)
		y += lineH
	}
	return end
}

// Lighten mixes col with white by f (0..1).
func Lighten(col color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f) }
	return color.RGBA{mix(col.R), mix(col.G), mix(col.B), 0xff}
}

// Dim darkens the whole picture behind a dialog.
func (c *Canvas) Dim() {
	p := c.Img.Pix
	for i := 0; i < len(p); i += 4 {
		p[i], p[i+1], p[i+2] = p[i]/2, p[i+1]/2, p[i+2]/2
	}
}

// Line draws a thick straight line clipped to clip.
func (c *Canvas) Line(x0, y0, x1, y1, width int, col color.RGBA, clip image.Rectangle) {
	steps := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= steps; i++ {
		x := x0 + (x1-x0)*i/steps
		y := y0 + (y1-y0)*i/steps
		c.Fill(image.Rect(x, y, x+width, y+width).Intersect(clip), col)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
