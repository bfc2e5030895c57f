package render

import "testing"

// The CJK font, when installed, draws Chinese glyphs (not the .notdef box).
func TestCJKFontHasGlyphs(t *testing.T) {
	f, err := loadCJK(DefaultFontPath)
	if err != nil {
		t.Skipf("fonts-noto-cjk not installed: %v", err)
	}
	for _, r := range "微信设置你好¥" {
		if i, err := f.GlyphIndex(nil, r); err != nil || i == 0 {
			t.Errorf("no glyph for %q", r)
		}
	}
}
