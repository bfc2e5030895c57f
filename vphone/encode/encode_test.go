package encode

import (
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// turnable is a screen whose picture and orientation the test sets.
type turnable struct {
	mu     sync.Mutex
	w, h   int
	shade  uint8
	pulled int
}

func (s *turnable) Size() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w, s.h
}

func (s *turnable) Key() [3]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return [3]int{s.w, s.h, int(s.shade)}
}

func (s *turnable) Picture() *image.RGBA {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pulled++
	img := image.NewRGBA(image.Rect(0, 0, s.w, s.h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{s.shade, 0x40, 0x80, 0xff}), image.Point{}, draw.Src)
	return img
}

func (s *turnable) turn() {
	s.mu.Lock()
	s.w, s.h = s.h, s.w
	s.mu.Unlock()
}

func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed (make test installs it)")
	}
}

// A turned display ends a scrcpy session (its client restarts the encoder
// at the new size) but only letterboxes a recording, which keeps its size.
func TestATurnEndsTheSessionUnlessLetterboxed(t *testing.T) {
	needFFmpeg(t)
	for _, letterbox := range []bool{false, true} {
		s := &turnable{w: 96, h: 160, shade: 1}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		got := make(chan struct{}, 64)
		done := make(chan error, 1)
		go func() {
			done <- Stream(ctx, s, Options{BitRate: 1_000_000, GOP: 60, Letterbox: letterbox}, func(Packet) error {
				select {
				case got <- struct{}{}:
				default:
				}
				return nil
			})
		}()
		select {
		case <-got: // the first frame goes out at once
		case err := <-done:
			t.Fatalf("letterbox %v: ended before a packet: %v", letterbox, err)
		case <-ctx.Done():
			t.Fatalf("letterbox %v: no packet", letterbox)
		}
		s.turn()
		if !letterbox {
			if err := <-done; !errors.Is(err, ErrRotated) {
				t.Fatalf("a turn without letterbox: %v", err)
			}
			cancel()
			continue
		}
		for s.Key() != [3]int{160, 96, 1} || pulled(s) < 2 {
			select {
			case err := <-done:
				t.Fatalf("a letterboxed recording ended on the turn: %v", err)
			case <-ctx.Done():
				t.Fatal("the turned screen was never encoded")
			case <-time.After(5 * time.Millisecond):
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("a recording ended by its context: %v", err)
		}
	}
}

func pulled(s *turnable) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pulled
}

// A screen that does not change is encoded once; each change once more.
func TestOnlyChangesAreEncoded(t *testing.T) {
	needFFmpeg(t)
	s := &turnable{w: 64, h: 64, shade: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	first := make(chan struct{}, 1)
	go func() {
		done <- Stream(ctx, s, Options{BitRate: 500_000, GOP: 60}, func(Packet) error {
			select {
			case first <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	<-first
	time.Sleep(100 * time.Millisecond) // six vsyncs of a still screen
	if n := pulled(s); n != 1 {
		t.Fatalf("a still screen was drawn %d times", n)
	}
	for shade := uint8(2); shade <= 4; shade++ {
		s.mu.Lock()
		s.shade = shade
		s.mu.Unlock()
		for pulled(s) < int(shade) {
			select {
			case <-ctx.Done():
				t.Fatalf("change %d was not encoded", shade)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// As scrcpy-server asks of its encoder, RepeatAfter draws the last picture
// once more when the screen has been still that long, and only once: a
// still screen after a change is drawn twice in all, then no more.
func TestRepeatAfterDrawsTheLastPictureOnce(t *testing.T) {
	needFFmpeg(t)
	s := &turnable{w: 64, h: 64, shade: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Stream(ctx, s, Options{BitRate: 500_000, GOP: 60, RepeatAfter: 50 * time.Millisecond}, func(Packet) error { return nil })
	}()
	waitPulled := func(n int) {
		t.Helper()
		for pulled(s) < n {
			select {
			case <-ctx.Done():
				t.Fatalf("drawn %d times, want %d", pulled(s), n)
			case <-time.After(5 * time.Millisecond): // polling the screen's count
			}
		}
	}
	waitPulled(2) // the first picture and its copy
	s.mu.Lock()
	s.shade = 2
	s.mu.Unlock()
	waitPulled(4) // the change and its copy
	// A still screen for six times the repeat: no third drawing of it.
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		if n := pulled(s); n != 4 {
			t.Fatalf("a still screen was drawn %d times after its change and copy", n-2)
		}
		time.Sleep(10 * time.Millisecond) // watching the count stay
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
