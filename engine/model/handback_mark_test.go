package model_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // the tools dialect sends JPEG
	"image/png"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
	"tandem/internal/modeltest"
)

// sentImage decodes the image data URL u of a request.
func sentImage(t *testing.T, u string) image.Image {
	t.Helper()
	_, data, ok := strings.Cut(u, ";base64,")
	if !ok {
		t.Fatalf("not a base64 data URL: %.40s", u)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// isRed is the outline's colour after a lossy encoding.
func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 170 && g>>8 < 100 && b>>8 < 100
}

// outlineSeen samples img, sent for a device screen, along the four sides
// of region (device pixels), 2 px outside it where the outline lies: it
// returns how many samples are red, how many there are, and whether the
// inside of the region or a band 12 px further out is red (an outline is
// neither a fill nor a smear).
func outlineSeen(img image.Image, screen action.Size, region image.Rectangle) (red, all int, spilled bool) {
	b := img.Bounds()
	sx := func(x int) int { return b.Min.X + (x*b.Dx()+screen.W/2)/screen.W }
	sy := func(y int) int { return b.Min.Y + (y*b.Dy()+screen.H/2)/screen.H }
	x1, y1, x2, y2 := sx(region.Min.X), sy(region.Min.Y), sx(region.Max.X), sy(region.Max.Y)
	const n = 12
	for i := 1; i < n; i++ {
		x, y := x1+(x2-x1)*i/n, y1+(y2-y1)*i/n
		for _, p := range []image.Point{{x, y1 - 2}, {x, y2 + 2}, {x1 - 2, y}, {x2 + 2, y}} {
			all++
			if isRed(img.At(p.X, p.Y)) {
				red++
			}
		}
		for _, p := range []image.Point{{x, y1 - 14}, {x, y2 + 14}, {x1 - 14, y}, {x2 + 14, y}, {x, (y1 + y2) / 2}} {
			spilled = spilled || isRed(img.At(p.X, p.Y))
		}
	}
	return red, all, spilled
}

// grey is a plain mid-grey screen (nothing red on it).
func grey(s action.Size) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, s.W, s.H))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{128, 128, 128, 255}), image.Point{}, draw.Src)
	return img
}

// The region the person marked on hand back is drawn on the screenshot of
// the next request, in the model's own image (after the dialect's resize,
// at the scaled place), and on no other: not before, not on the later
// requests' replays of that screen, not after a hand back without a
// region. The words stay too.
func TestHandBackRegionIsDrawnOnTheNextScreenshot(t *testing.T) {
	tap := modeltest.Reply{ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: "tap", Arguments: `{"x":500,"y":500}`}}}}
	tars := modeltest.Reply{Content: "Thought: t\nAction: click(start_box='<|box_start|>(10,10)<|box_end|>')"}
	glm := modeltest.Reply{Content: `<think>t</think><answer>do(action="Tap", element=[10,10])</answer>`}
	screen := action.Size{W: 1080, H: 2400}
	region := image.Rect(240, 900, 760, 1300)
	for _, c := range []struct {
		dialect, variant string
		reply            modeltest.Reply
	}{
		{"tools", "rel1000", tap}, {"tools", "abs", tap}, {"uitars", "1.5", tars}, {"uitars", "1.0", tars}, {"autoglm", "", glm},
	} {
		t.Run(c.dialect+c.variant, func(t *testing.T) {
			s := modeltest.New(t, c.reply, c.reply, c.reply, c.reply)
			d, err := dialect.New(c.dialect, c.variant)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := model.NewClient(model.ClientConfig{BaseURL: s.URL, APIKey: "sk-x", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			p := model.NewPlanner(cl, d, model.PlannerOptions{})
			in := model.Input{Goal: "g", Supported: action.All}
			plan := func(h ...model.Step) modeltest.Request {
				t.Helper()
				in.History = append(in.History, h...)
				in.Observation = model.Observation{Screenshot: grey(screen), Screen: screen}
				if _, err := p.Plan(context.Background(), in, nil); err != nil {
					t.Fatal(err)
				}
				reqs := s.Requests()
				return reqs[len(reqs)-1]
			}
			modelStep := func() model.Step {
				return model.Step{N: len(in.History) + 1, Thought: "t", Actions: []action.Action{{Type: action.Tap, X: 10, Y: 10}}, Result: "ok", Reply: c.reply.Content}
			}
			person := func(r *image.Rectangle) model.Step {
				return model.Step{N: len(in.History) + 1, Actions: []action.Action{{Type: action.Key, Key: "home"}},
					Result: "done by the person", ByPerson: true, Note: "here", Region: r}
			}
			noOutline := func(what string, req modeltest.Request) {
				t.Helper()
				for i, u := range req.Images() {
					if red, _, spilled := outlineSeen(sentImage(t, u), screen, region); red > 0 || spilled {
						t.Errorf("%s: image %d has %d red samples (spilled %v): the region is drawn where it must not be", what, i, red, spilled)
					}
				}
			}

			noOutline("before any hand back", plan())
			after := plan(modelStep(), person(&region))
			imgs := after.Images()
			last := sentImage(t, imgs[len(imgs)-1])
			red, all, spilled := outlineSeen(last, screen, region)
			if red != all || spilled {
				t.Errorf("after the hand back: %d of %d samples on the outline are red (spilled %v) in the %v image sent",
					red, all, spilled, last.Bounds().Size())
			}
			if !strings.Contains(after.Text(), "outlined in red") {
				t.Errorf("the model is not told what the red outline is:\n%s", after.Text())
			}
			noOutline("the request after that", plan(modelStep()))
			noOutline("after a hand back with no region", plan(person(nil)))
		})
	}
}

// The outline is found by outlineSeen only where it is drawn: a check of
// the checker on a hand-made image.
func TestOutlineSeenFindsOnlyTheOutline(t *testing.T) {
	screen := action.Size{W: 1080, H: 2400}
	region := image.Rect(240, 900, 760, 1300)
	img := grey(action.Size{W: 540, H: 1200})
	red := image.NewUniform(color.RGBA{255, 0, 0, 255})
	r := image.Rect(120, 450, 380, 650)
	for _, bar := range []image.Rectangle{{r.Min.Sub(image.Pt(5, 5)), image.Pt(r.Max.X+5, r.Min.Y)}, {image.Pt(r.Min.X-5, r.Max.Y), r.Max.Add(image.Pt(5, 5))},
		{image.Pt(r.Min.X-5, r.Min.Y), image.Pt(r.Min.X, r.Max.Y)}, {image.Pt(r.Max.X, r.Min.Y), image.Pt(r.Max.X+5, r.Max.Y)}} {
		draw.Draw(img, bar, red, image.Point{}, draw.Src)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	u := fmt.Sprintf("data:image/png;base64,%s", base64.StdEncoding.EncodeToString(buf.Bytes()))
	if red, all, spilled := outlineSeen(sentImage(t, u), screen, region); red != all || spilled {
		t.Fatalf("drawn outline: %d of %d red, spilled %v", red, all, spilled)
	}
	if red, all, _ := outlineSeen(sentImage(t, u), screen, region.Add(image.Pt(100, 100))); red == all {
		t.Fatal("an outline elsewhere is taken for this one")
	}
}
