package stream

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// needFFmpeg skips without Debian's ffmpeg (failing under CI=true).
func needFFmpeg(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg is not installed (apt-get install ffmpeg)")
		}
		t.Skip("ffmpeg is not installed")
	}
}

// encode makes an Annex-B stream of n frames of size WxH with a key frame
// every gop frames, as x264 writes it (several slices per frame).
func encode(t *testing.T, w, h, n, gop int) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc=size="+itoa(w)+"x"+itoa(h)+":rate=30", "-frames:v", itoa(n), "-c:v", "libx264", "-preset", "ultrafast",
		"-tune", "zerolatency", "-x264-params", "slices=3", "-g", itoa(gop), "-bf", "0", "-pix_fmt", "yuv420p", "-f", "h264", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg: %v", err)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestSplitterCutsFramesInAnyChunking(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	data := encode(t, 360, 200, 12, 5)
	for _, chunk := range []int{1, 7, 4096, len(data)} {
		var got []Packet
		sp := newSplitter(time.Millisecond, func(p Packet) { got = append(got, p) })
		rng := rand.New(rand.NewSource(int64(chunk)))
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.Intn(chunk))
			sp.write(rest[:n])
			rest = rest[n:]
		}
		sp.flush()
		var configs, frames, keys int
		var joined []byte
		for _, p := range got {
			joined = append(joined, p.Data...)
			switch {
			case p.Config:
				configs++
			default:
				frames++
				if p.Key {
					keys++
				}
			}
			if p.Width != 360 || p.Height != 200 {
				t.Fatalf("chunk %d: size %dx%d from the SPS, want 360x200 (cropped)", chunk, p.Width, p.Height)
			}
		}
		if !bytes.Equal(joined, data) {
			t.Fatalf("chunk %d: packets do not add up to the stream", chunk)
		}
		// x264 repeats SPS and PPS before every IDR frame.
		if configs != 3 || frames != 12 || keys != 3 {
			t.Fatalf("chunk %d: %d configs, %d frames, %d keys; want 3, 12, 3", chunk, configs, frames, keys)
		}
		if !got[1].Key || got[0].Data[4]&0x1f != nalSPS {
			t.Fatalf("chunk %d: stream must start config, key", chunk)
		}
	}
}

func TestSplitterFlushesTheLastFrameWhenTheStreamGoesQuiet(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	data := encode(t, 320, 240, 2, 30)
	var got []Packet
	sp := newSplitter(time.Millisecond, func(p Packet) { got = append(got, p) })
	sp.write(data)
	if len(got) != 2 { // config + frame 1; frame 2 waits for a start code
		t.Fatalf("%d packets before the idle flush", len(got))
	}
	sp.flush()
	if len(got) != 3 || got[2].Key {
		t.Fatalf("after the flush: %d packets", len(got))
	}
	// A wrong guess: bytes that continue a NAL unit after the flush are
	// dropped up to the next start code, and the wait doubles.
	sp.write([]byte{0x11, 0x22})
	sp.write(data[:8])
	if sp.cuts != 1 || sp.idle != 2*time.Millisecond {
		t.Fatalf("cuts %d, idle %v", sp.cuts, sp.idle)
	}
}

func TestSPSSizeRejectsJunk(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{nil, {0x67}, {0x67, 0x42, 0, 0}, {0x68, 1, 2, 3, 4}} {
		if _, _, err := spsSize(b); err == nil {
			t.Errorf("% x: no error", b)
		}
	}
}
