// Package h264enc encodes raw RGBA frames to H.264 with Debian's ffmpeg
// (libx264: baseline, zerolatency, ultrafast), one packet out per frame in.
//
// Why a subprocess and not cgo: ffmpeg is one apt package away on every
// Linux the app targets, keeps the Go build pure, and libx264 at ultrafast
// encodes a 1280x720 frame in a few milliseconds — far under what Go's
// image/jpeg needs (≈70 ms at 1280x720 on the 2-core build machine), which
// is what made the desktop mirror move here. The virtual phone's
// screenrecord and scrcpy endpoint use it too.
//
// ffmpeg writes FLV, not raw H.264, because FLV keeps packet boundaries and
// key flags: the caller learns a frame is complete the moment it is, rather
// than when the next frame's start code arrives (a frame late — and on a
// static screen, never).
package h264enc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// ErrNoFFmpeg means ffmpeg is not installed.
var ErrNoFFmpeg = errors.New("ffmpeg is not installed (apt-get install ffmpeg)")

// Options configure an encoder.
type Options struct {
	SrcW, SrcH    int // size of the RGBA frames written to Encode
	Width, Height int // output size (even); 0 = the source's, rounded down to even
	BitRate       int // bits per second; 0 = 8 Mbps
	GOP           int // frames between key frames; 0 = 600
}

// Packet is one encoded unit, Annex-B.
type Packet struct {
	Config bool      // SPS and PPS
	Key    bool      // an IDR frame
	At     time.Time // the capture time given to Encode
	Data   []byte
}

// Encoder is a running ffmpeg.
type Encoder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer
	frame  int // bytes per frame
	done   chan struct{}

	mu       sync.Mutex
	inFlight []time.Time // capture times of frames not yet out
	err      error
}

// Start starts ffmpeg; emit is called from the encoder's own goroutine with
// each packet, in order, until the encoder ends. ctx kills ffmpeg.
func Start(ctx context.Context, o Options, emit func(Packet) error) (*Encoder, error) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, ErrNoFFmpeg
	}
	if o.SrcW <= 0 || o.SrcH <= 0 {
		return nil, fmt.Errorf("h264enc: source size %dx%d", o.SrcW, o.SrcH)
	}
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = o.SrcW, o.SrcH
	}
	o.Width, o.Height = max(o.Width&^1, 2), max(o.Height&^1, 2)
	if o.BitRate <= 0 {
		o.BitRate = 8_000_000
	}
	if o.GOP <= 0 {
		o.GOP = 600
	}
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", o.SrcW, o.SrcH), "-framerate", "60", "-i", "pipe:0",
		"-vf", fmt.Sprintf("scale=%d:%d:flags=fast_bilinear", o.Width, o.Height),
		"-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-profile:v", "baseline", "-pix_fmt", "yuv420p",
		"-b:v", strconv.Itoa(o.BitRate), "-maxrate", strconv.Itoa(o.BitRate), "-bufsize", strconv.Itoa(o.BitRate/2),
		"-g", strconv.Itoa(o.GOP), "-bf", "0", "-fps_mode", "passthrough",
		"-flush_packets", "1", "-f", "flv", "pipe:1")
	cmd.WaitDelay = 2 * time.Second
	e := &Encoder{cmd: cmd, frame: o.SrcW * o.SrcH * 4, done: make(chan struct{})}
	cmd.Stderr = &lockedBuffer{mu: &e.mu, b: &e.stderr}
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("h264enc: start ffmpeg: %w", err)
	}
	go func() {
		defer close(e.done)
		rerr := ReadFLV(bufio.NewReaderSize(stdout, 1<<20), func(p Packet) error {
			if !p.Config {
				e.mu.Lock()
				if len(e.inFlight) > 0 {
					p.At, e.inFlight = e.inFlight[0], e.inFlight[1:]
				}
				e.mu.Unlock()
			}
			return emit(p)
		})
		// ReadFLV always ends with an error; io.EOF is ffmpeg's clean end.
		failed := !errors.Is(rerr, io.EOF)
		if failed {
			e.stdin.Close()
			cmd.Process.Kill()
		}
		werr := cmd.Wait()
		e.mu.Lock()
		switch {
		case failed:
			e.err = rerr
		case werr != nil && ctx.Err() == nil:
			e.err = fmt.Errorf("h264enc: ffmpeg: %v: %s", werr, bytes.TrimSpace(e.stderr.Bytes()))
		}
		e.mu.Unlock()
	}()
	return e, nil
}

// lockedBuffer guards ffmpeg's stderr buffer.
type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 4096 {
		l.b.Write(p)
	}
	return len(p), nil
}

// Encode writes one frame (RGBA, SrcW x SrcH) captured at at.
func (e *Encoder) Encode(pix []byte, at time.Time) error {
	if len(pix) != e.frame {
		return fmt.Errorf("h264enc: frame of %d bytes, want %d", len(pix), e.frame)
	}
	e.mu.Lock()
	e.inFlight = append(e.inFlight, at)
	e.mu.Unlock()
	_, err := e.stdin.Write(pix)
	return err
}

// Done is closed when the encoder ended (Close, an emit error, ffmpeg died).
func (e *Encoder) Done() <-chan struct{} { return e.done }

// Close ends the input, waits for the last packets and returns the first
// error the encoder met.
func (e *Encoder) Close() error {
	e.stdin.Close()
	<-e.done
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// ReadFLV reads ffmpeg's FLV output and hands on each video packet as
// Annex-B: the AVC sequence header becomes a config packet (SPS and PPS),
// each frame's length-prefixed NAL units get start codes. It returns io.EOF
// at the stream's clean end, or the first error.
func ReadFLV(r io.Reader, emit func(Packet) error) error {
	var hdr [9]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	if string(hdr[:3]) != "FLV" {
		return fmt.Errorf("h264enc: encoder output is not FLV")
	}
	if skip := int64(binary.BigEndian.Uint32(hdr[5:])) - 9; skip > 0 {
		if _, err := io.CopyN(io.Discard, r, skip); err != nil {
			return err
		}
	}
	lengthSize := 4
	var tag [15]byte // previous tag size + tag header
	for {
		// The stream ends after a previous-tag-size field.
		if _, err := io.ReadFull(r, tag[:4]); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, tag[4:]); err != nil {
			return err
		}
		typ := tag[4]
		size := int(tag[5])<<16 | int(tag[6])<<8 | int(tag[7])
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return err
		}
		if typ != 9 || len(data) < 5 || data[0]&0x0f != 7 {
			continue // script data (metadata) or not AVC
		}
		key := data[0]>>4 == 1
		body := data[5:]
		switch data[1] {
		case 0: // AVCDecoderConfigurationRecord
			cfg, ls, err := avcCToAnnexB(body)
			if err != nil {
				return err
			}
			lengthSize = ls
			if err := emit(Packet{Config: true, Data: cfg}); err != nil {
				return err
			}
		case 1:
			var out []byte
			for len(body) >= lengthSize {
				n := 0
				for i := 0; i < lengthSize; i++ {
					n = n<<8 | int(body[i])
				}
				body = body[lengthSize:]
				if n > len(body) {
					return fmt.Errorf("h264enc: NAL unit of %d bytes in a %d-byte packet", n, len(body))
				}
				out = append(append(out, 0, 0, 0, 1), body[:n]...)
				body = body[n:]
			}
			if err := emit(Packet{Key: key, Data: out}); err != nil {
				return err
			}
		}
	}
}

// avcCToAnnexB turns an AVCDecoderConfigurationRecord into SPS and PPS with
// start codes, and returns the NAL length size.
func avcCToAnnexB(b []byte) ([]byte, int, error) {
	bad := fmt.Errorf("h264enc: bad AVC configuration record")
	if len(b) < 6 || b[0] != 1 {
		return nil, 0, bad
	}
	ls := int(b[4]&3) + 1
	var out []byte
	p := 5
	for set := 0; set < 2; set++ {
		if p >= len(b) {
			return nil, 0, bad
		}
		count := int(b[p])
		if set == 0 {
			count &= 0x1f
		}
		p++
		for i := 0; i < count; i++ {
			if p+2 > len(b) {
				return nil, 0, bad
			}
			n := int(binary.BigEndian.Uint16(b[p:]))
			p += 2
			if p+n > len(b) {
				return nil, 0, bad
			}
			out = append(append(out, 0, 0, 0, 1), b[p:p+n]...)
			p += n
		}
	}
	return out, ls, nil
}
