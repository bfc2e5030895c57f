package engine

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"tandem/internal/modeltest"
	"tandem/vphone"
)

// A phone that sends its screen as PNG (over Wi-Fi, or one whose raw
// frame is in a vendor's format), with a dialect that sends PNG at the
// phone's size (AutoGLM): the model gets the phone's own bytes, not a
// re-encode made on the step's critical path (issue 31, item 2).
func TestAPhonesPNGGoesOutAsItCame(t *testing.T) {
	g := newRig(t, vphone.WithRawFormat(0x100))
	g.launch(vphone.PkgCounter)
	plus := g.center("+1")
	srv := modeltest.NewFunc(t, func(r modeltest.Request) modeltest.Reply {
		if r.Attempt == 1 {
			return modeltest.Reply{Content: fmt.Sprintf(`<think>Tap +1.</think><answer>do(action="Tap", element=[%d,%d])</answer>`,
				plus.X*1000/g.w, plus.Y*1000/g.h)}
		}
		return modeltest.Reply{Content: `<think>Done.</think><answer>finish(message="The counter shows 1.")</answer>`}
	})
	s := g.start(srv, "Tap +1 once", Settings{}, plannerOpts{dialect: "autoglm"})
	res := s.wait()
	if res.State != Done || g.phone.State().Counter != 1 {
		t.Fatalf("result %+v, counter %d", res, g.phone.State().Counter)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	imgs := reqs[1].Images()
	if len(imgs) != 1 {
		t.Fatalf("%d images in the second request, want 1", len(imgs))
	}
	const prefix = "data:image/png;base64,"
	if !strings.HasPrefix(imgs[0], prefix) {
		t.Fatalf("image %.40q: not a PNG data URL", imgs[0])
	}
	sent, err := base64.StdEncoding.DecodeString(imgs[0][len(prefix):])
	if err != nil {
		t.Fatal(err)
	}
	phone, err := g.phone.ScreenshotPNG() // the screen has not changed since: the counter at 1
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sent, phone) {
		t.Fatalf("the model got %d bytes, the phone sent %d: a re-encode, not the phone's picture", len(sent), len(phone))
	}
}
