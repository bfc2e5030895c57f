package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"

	"tandem/engine/observe"
	"tandem/internal/modeltest"
)

func solid(c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 360, 800))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// sentColour decodes the newest image of a request (the line dialect sends
// PNG) and returns its centre pixel.
func sentColour(t *testing.T, r modeltest.Request) color.RGBA {
	t.Helper()
	imgs := r.Images()
	data, ok := strings.CutPrefix(imgs[len(imgs)-1], "data:image/png;base64,")
	if !ok {
		t.Fatalf("not a PNG data URL: %.40s", imgs[len(imgs)-1])
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := img.Bounds().Max.Div(2)
	return color.RGBAModel.Convert(img.At(c.X, c.Y)).(color.RGBA)
}

// TestPrepareIsReused: a screenshot prepared ahead is the one sent (shown
// by changing its pixels after Prepare: the prepared encoding goes out); a
// different image is prepared afresh.
func TestPrepareIsReused(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "tap 1 1"}, modeltest.Reply{Content: "tap 1 1"})
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{})
	prep, ok := pl.(Preparer)
	if !ok {
		t.Fatal("the chat planner does not implement Preparer")
	}
	red, blue := color.RGBA{200, 0, 0, 255}, color.RGBA{0, 0, 200, 255}
	img := solid(red)
	prep.Prepare(img)
	<-pl.(*chatPlanner).prep.done  // the encode runs in the background
	copy(img.Pix, solid(blue).Pix) // after Prepare: must not be re-encoded
	in := Input{Goal: "g", Observation: Observation{Screenshot: img}}
	if _, err := pl.Plan(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	if c := sentColour(t, s.Requests()[0]); c.R < 150 || c.B > 50 {
		t.Fatalf("sent %v: the prepared (red) encoding was not reused", c)
	}
	other := solid(blue)
	in.Observation.Screenshot = other
	in.History = []Step{{N: 1, Result: "ok"}}
	if _, err := pl.Plan(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	if c := sentColour(t, s.Requests()[1]); c.B < 150 || c.R > 50 {
		t.Fatalf("sent %v for a new image: a stale preparation was used", c)
	}
}

// Prepare is safe alongside Plan (run with -race), and an image held by
// value is never compared with == (that could panic).
func TestPrepareConcurrentAndValueImages(t *testing.T) {
	s := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Content: "tap 1 1"} })
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{})
	prep := pl.(Preparer)
	imgs := []*image.RGBA{solid(color.RGBA{1, 2, 3, 255}), solid(color.RGBA{9, 9, 9, 255})}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prep.Prepare(imgs[i%2])
		}()
	}
	for i := range 4 {
		in := Input{Goal: "g", Observation: Observation{Screenshot: imgs[i%2]}}
		if _, err := pl.Plan(context.Background(), in, nil); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	prep.Prepare(valueImage{imgs[0], nil})
	if _, err := pl.Plan(context.Background(), Input{Goal: "g", Observation: Observation{Screenshot: valueImage{imgs[0], nil}}}, nil); err != nil {
		t.Fatal(err)
	}
}

// valueImage is an image held by value, with an uncomparable field (==
// on two of them in interfaces panics).
type valueImage struct {
	*image.RGBA
	tags []string
}

// TestAnUnchangedScreenIsNotEncodedAgain: a screenshot with the pixels of
// the one sent before (a run resumed on the same screen, an action that
// changed nothing: another capture, another image) goes out as it was
// encoded, with no second shrink and encode; one pixel changed is
// encoded afresh, whether prepared ahead or not.
func TestAnUnchangedScreenIsNotEncodedAgain(t *testing.T) {
	s := modeltest.New(t, modeltest.Reply{Content: "tap 1 1"}, modeltest.Reply{Content: "tap 1 1"},
		modeltest.Reply{Content: "tap 1 1"}, modeltest.Reply{Content: "tap 1 1"})
	pl := NewPlanner(newTestClient(t, s.URL, nil), lineDialect{vlmBudget()}, PlannerOptions{})
	cp := pl.(*chatPlanner)
	var mu sync.Mutex
	encodes := 0
	encode := cp.encode
	cp.encode = func(img image.Image, spec observe.ImageSpec) (observe.Shot, error) {
		mu.Lock()
		encodes++
		mu.Unlock()
		return encode(img, spec)
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return encodes
	}
	red := color.RGBA{200, 0, 0, 255}
	plan := func(img image.Image, prepare bool) {
		t.Helper()
		if prepare {
			cp.Prepare(img)
		}
		in := Input{Goal: "g", Observation: Observation{Screenshot: img}}
		for i := range len(s.Requests()) {
			in.History = append(in.History, Step{N: i + 1, Result: "ok"})
		}
		if _, err := pl.Plan(context.Background(), in, nil); err != nil {
			t.Fatal(err)
		}
	}
	plan(solid(red), true)
	plan(solid(red), false) // the same pixels, another capture
	if n := count(); n != 1 {
		t.Fatalf("%d encodes for two captures of one unchanged screen, want 1", n)
	}
	reqs := s.Requests()
	if a, b := reqs[0].Images(), reqs[1].Images(); a[len(a)-1] != b[len(b)-1] {
		t.Fatal("the unchanged screen went out as another picture")
	}
	changed := solid(red)
	changed.Pix[len(changed.Pix)/2] = 0 // one pixel's red, mid-screen
	plan(changed, true)
	again := solid(red)
	again.Pix[4] = 0 // another pixel, not prepared ahead
	plan(again, false)
	if n := count(); n != 3 {
		t.Fatalf("%d encodes after two changed screens, want 3 (a changed screen was sent as the old picture)", n)
	}
	reqs = s.Requests()
	for i := 2; i < 4; i++ {
		a, b := reqs[i-1].Images(), reqs[i].Images()
		if a[len(a)-1] == b[len(b)-1] {
			t.Fatalf("request %d sent the picture of the screen before it", i+1)
		}
	}
}
