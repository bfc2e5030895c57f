//go:build cgo && linux

package engine

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"testing"
)

// TestARecordedFrameGoesThroughLibjpegTurbo: on Linux the record's frames
// are encoded by libjpeg-turbo (its JFIF header; image/jpeg writes none).
func TestARecordedFrameGoesThroughLibjpegTurbo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "00001.jpg")
	var buf frameBufs
	if _, err := writeFrame(path, image.NewRGBA(image.Rect(0, 0, 1080, 2400)), &buf); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data[:32], []byte("JFIF")) {
		t.Fatalf("not from libjpeg-turbo (head % x)", data[:20])
	}
}
