package observe

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
)

func TestPrepareScreenshot(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 720, 1608))
	for i := 0; i < len(src.Pix); i += 4 {
		src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = uint8(i), uint8(i>>10), 90, 255
	}
	tests := []struct {
		spec       ImageSpec
		w, h       int
		mime       string
		decodeWith func([]byte) (image.Config, error)
	}{
		{ImageSpec{Factor: 28, MinPixels: QwenMinPixels, MaxPixels: QwenMaxPixels, Format: "png"}, 728, 1596, "image/png", pngCfg},
		{ImageSpec{Factor: 28, MinPixels: QwenMinPixels, MaxPixels: 1000 * 28 * 28}, 588, 1316, "image/jpeg", jpegCfg},
		{ImageSpec{MaxPixels: 720 * 1608 / 4, Format: "jpeg"}, 360, 804, "image/jpeg", jpegCfg},
		{ImageSpec{MaxPixels: 80000}, 189, 422, "image/png", pngCfg},
		{ImageSpec{}, 720, 1608, "image/jpeg", jpegCfg},
	}
	for _, tt := range tests {
		s, err := PrepareScreenshot(src, tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := tt.decodeWith(s.Data)
		if err != nil || s.W != tt.w || s.H != tt.h || cfg.Width != tt.w || cfg.Height != tt.h || s.MIME != tt.mime {
			t.Errorf("%+v: got %dx%d %s (decoded %dx%d, %v)", tt.spec, s.W, s.H, s.MIME, cfg.Width, cfg.Height, err)
		}
	}
	if _, err := PrepareScreenshot(src, ImageSpec{Format: "gif"}); err == nil {
		t.Error("unknown format accepted")
	}
	if _, err := PrepareScreenshot(nil, ImageSpec{}); err == nil {
		t.Error("nil image accepted")
	}
	if got := KeepLast([]int{1, 2, 3, 4}, 2); len(got) != 2 || got[0] != 3 {
		t.Errorf("KeepLast %v", got)
	}
}

func pngCfg(b []byte) (image.Config, error)  { return png.DecodeConfig(bytes.NewReader(b)) }
func jpegCfg(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) }

func TestNeedVision(t *testing.T) {
	d := dumps(t)
	rich, _ := Compress(d["wework_messages_zh"], nil, CompressOptions{})
	game, _ := Compress(d["game_marvel_sparse"], nil, CompressOptions{})
	tests := []struct {
		in   VisionInput
		want bool
	}{
		{VisionInput{Always: true, Compact: rich, SmallModel: true}, true},
		{VisionInput{Compact: rich}, true},
		{VisionInput{Compact: rich, SmallModel: true, Goal: "给张三发消息"}, false},
		{VisionInput{Compact: nil, SmallModel: true}, true},
		{VisionInput{Compact: game, SmallModel: true}, true},
		{VisionInput{Compact: rich, SmallModel: true, RecentFailures: 2}, true},
		{VisionInput{Compact: rich, SmallModel: true, Goal: "把头像图片保存下来"}, true},
		{VisionInput{Compact: rich, SmallModel: true, Goal: "Which icon is red?"}, true},
	}
	for i, tt := range tests {
		if got, why := NeedVision(tt.in); got != tt.want || why == "" {
			t.Errorf("%d: got %v (%s) want %v", i, got, why, tt.want)
		}
	}
}

func TestWindow(t *testing.T) {
	full := func(int) int { return 100 }
	short := func(int) int { return 10 }
	tests := []struct {
		n, verbatim, budget int
		from, fullFrom      int
	}{
		{0, 3, 1000, 0, 0},
		{5, 3, 1000, 0, 2},   // everything fits: 2 summaries + 3 verbatim
		{20, 3, 400, 7, 17},  // 300 verbatim + 10 summaries
		{20, 3, 250, 14, 18}, // verbatim over budget: oldest summarized
		{20, 3, 50, 19, 19},  // the newest step always stays
	}
	for _, tt := range tests {
		from, ff := Window(tt.n, tt.verbatim, tt.budget, full, short)
		if from != tt.from || ff != tt.fullFrom {
			t.Errorf("Window(%d,%d,%d) = %d,%d want %d,%d", tt.n, tt.verbatim, tt.budget, from, ff, tt.from, tt.fullFrom)
		}
	}
	if HistoryBudget(4096) != 512 || HistoryBudget(1000) != 300 || HistoryBudget(200000) != 6000 {
		t.Error("HistoryBudget")
	}
}

func TestScreenSignatureAndCache(t *testing.T) {
	d := dumps(t)
	a, _ := Compress(d["wework_messages_zh"], nil, CompressOptions{})
	b, _ := Compress(d["wework_messages_zh"], nil, CompressOptions{})
	other, _ := Compress(d["google_messages"], nil, CompressOptions{})
	sa, sb := ScreenSignature("wework", a), ScreenSignature("wework", b)
	if sa != sb || sa == ScreenSignature("wework", other) || sa == ScreenSignature("other", a) {
		t.Fatal("signature not stable or not distinguishing")
	}
	b.Elements[0].Bounds[0]++ // a 1-px shift is the same screen
	if ScreenSignature("wework", b) != sa {
		t.Error("1-px shift changed the signature")
	}
	b.Elements[len(b.Elements)-1].Text += "!"
	if ScreenSignature("wework", b) == sa {
		t.Error("new text kept the signature")
	}
	c := NewActionCache[string](2)
	c.Put(sa, "goal", 1, "tap")
	if v, ok := c.Get(sa, "goal", 1); !ok || v != "tap" {
		t.Error("cache miss")
	}
	if _, ok := c.Get(sa, "goal", 2); ok {
		t.Error("hit at another step")
	}
	c.Put("x", "goal", 1, "a")
	c.Put("y", "goal", 1, "b")
	if _, ok := c.Get(sa, "goal", 1); ok || c.Len() != 2 {
		t.Error("oldest not evicted")
	}
}
