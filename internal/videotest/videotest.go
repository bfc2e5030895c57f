// Package videotest reads a video file as a player would, with ffprobe:
// every frame decoded and counted. Tests of the run's video (the video
// room's writer, tandem run's record) share it; it is a room of its own so
// neither test package reaches into the other.
package videotest

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Probed is what ffprobe reads of a file's video stream.
type Probed struct {
	Codec    string
	Frames   int
	Duration time.Duration
	Size     int64
}

// Probe runs ffprobe on path (skipping the test when it is not installed;
// scripts/setup.sh test installs ffmpeg) and fails the test when it cannot
// read the file.
func Probe(t testing.TB, path string) Probed {
	t.Helper()
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe is not installed (scripts/setup.sh test installs ffmpeg)")
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,nb_read_frames:format=duration,size", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var r struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			Frames string `json:"nb_read_frames"`
		}
		Format struct{ Duration, Size string }
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) != 1 {
		t.Fatalf("ffprobe said %s (%v)", out, err)
	}
	n, _ := strconv.Atoi(r.Streams[0].Frames)
	d, _ := strconv.ParseFloat(r.Format.Duration, 64)
	size, _ := strconv.ParseInt(r.Format.Size, 10, 64)
	return Probed{Codec: r.Streams[0].Codec, Frames: n, Duration: time.Duration(d * float64(time.Second)), Size: size}
}
