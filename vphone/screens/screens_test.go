package screens

import (
	"encoding/xml"
	"image"
	"testing"
	"time"

	"tandem/vphone/render"
)

// Every app's screen paints at the screen's size, dumps well-formed XML,
// and survives a tap on the centre of each of its nodes (the dump and the
// picture stay in step: the version moves when a tap changed something).
func TestEveryScreenPaintsDumpsAndTakesTaps(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	fonts := render.NewFonts(render.DefaultFontPath, nil)
	for _, size := range []image.Point{{1080, 2400}, {720, 1600}} {
		m := New(Config{Width: size.X, Height: size.Y, CaptchaCode: "AB12C", CounterText: 60}, clock)
		for _, app := range append(m.Apps(), App{Package: PkgLauncher}) {
			if !m.Launch(app.Package) {
				t.Fatalf("%s does not launch", app.Package)
			}
			if b := Paint(m, fonts).Bounds(); b.Dx() != size.X || b.Dy() != size.Y {
				t.Fatalf("%s paints %v on a %v screen", app.Package, b, size)
			}
			var centres []image.Point
			m.Window().walk(func(n *node) {
				if n.onTap != nil || n.clickable {
					centres = append(centres, n.bounds.Min.Add(n.bounds.Max).Div(2))
				}
			})
			for _, c := range centres {
				m.Launch(app.Package)
				before := m.Version()
				dump := m.Dump(0, size.X, size.Y)
				if err := xml.Unmarshal(dump, new(struct{})); err != nil {
					t.Fatalf("%s: the dump is not XML: %v", app.Package, err)
				}
				m.Tap(c.X, c.Y)
				now = now.Add(time.Second)
				if m.Version() < before {
					t.Fatalf("%s: the version went back", app.Package)
				}
			}
		}
	}
}
