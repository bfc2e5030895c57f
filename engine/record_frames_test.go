package engine

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A frame file is whole from the moment it can be opened: the window's
// timeline asks for a step's frame as soon as the step's event comes, while
// the record's writer may still be writing it (issue 30 item 1: a step's
// thumbnail was blank though the recorded frame was fine).
func TestAFrameIsWholeOnceItCanBeOpened(t *testing.T) {
	dir := t.TempDir()
	rec, err := openRecorder(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7) // noise: a large JPEG, slow to write
	}
	img.Set(0, 0, color.RGBA{A: 255})
	var torn atomic.Int32
	var reads atomic.Int32
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the frames server's side: open what is there, decode it
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ents, _ := os.ReadDir(filepath.Join(dir, framesDir))
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".jpg") {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, framesDir, e.Name()))
				if err != nil {
					continue
				}
				reads.Add(1)
				if _, err := jpeg.Decode(bytes.NewReader(b)); err != nil {
					torn.Add(1)
				}
			}
		}
	}()
	for range 40 {
		rec.frame(context.Background(), img)
	}
	if err := rec.close(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	if n := torn.Load(); n > 0 {
		t.Fatalf("%d of %d reads found a frame not yet whole", n, reads.Load())
	}
	t.Logf("%d reads, none torn", reads.Load())
}
