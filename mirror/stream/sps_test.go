package stream

import (
	"encoding/hex"
	"testing"
)

// TestSPSSizeOfRealStreams: SPS NAL units x264 wrote (ffmpeg -f lavfi -i
// color=size=WxH -frames 1 -c:v libx264 -profile:v P -f h264), with the
// picture sizes they were made for: cropping in 4:2:0 and 4:4:4, high
// profile's chroma format, baseline and main.
func TestSPSSizeOfRealStreams(t *testing.T) {
	for _, c := range []struct {
		name string
		nal  string
		w, h int
	}{
		{"high, a phone's 1080x2400 (width cropped)", "67640032acd94044012de5f011000003000100000300320f183196", 1080, 2400},
		{"baseline 720x1280", "6742c01fd900b40a1b011000000300100000030320f1832480", 720, 1280},
		{"high 4:4:4 1920x1080 (height cropped by luma rows)", "67f40028919b280f0044fc4e0220000003002000000641e30632c0", 1920, 1080},
		{"main 642x362 (both cropped)", "674d401eeca05217f1126022000003000200000300641e2c5b2c", 642, 362},
	} {
		nal, err := hex.DecodeString(c.nal)
		if err != nil {
			t.Fatal(err)
		}
		w, h, err := spsSize(nal)
		if err != nil || w != c.w || h != c.h {
			t.Errorf("%s: %dx%d, %v; want %dx%d", c.name, w, h, err, c.w, c.h)
		}
	}
}
