package vphone

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

// The phone's video encoder, behind both `screenrecord` and the scrcpy
// endpoint: Debian's ffmpeg (libx264, baseline, zerolatency, ultrafast) fed
// raw RGBA frames on stdin.
//
// Frames are produced like a real display's: a 60 Hz "vsync" looks at what
// the screen shows and hands a frame to the encoder only when the picture
// changed (an input, an animation step, the secure switch). A static screen
// sends nothing, as on a phone; the first frame is sent at once.
//
// ffmpeg writes FLV, not raw H.264, because FLV keeps packet boundaries and
// key flags: the phone must know where one frame ends to frame it for scrcpy
// without waiting for the next frame to start.

// ErrNoEncoder means ffmpeg is not installed.
var ErrNoEncoder = errors.New("vphone: ffmpeg is not installed (apt-get install ffmpeg)")

// vsync is the display's refresh period.
const vsync = time.Second / 60

// encodeOptions configure one encoding session.
type encodeOptions struct {
	Width, Height int           // output size, even; 0 = the screen's
	BitRate       int           // bits per second
	MaxFPS        int           // 0 = the display's rate
	GOP           int           // frames between key frames
	Limit         time.Duration // 0 = until ctx ends
}

// h264Packet is one encoder output unit, Annex-B.
type h264Packet struct {
	Config bool
	Key    bool
	At     time.Time // capture time of the frame
	Data   []byte
}

// screenKey identifies what the screen shows now (p.mu held by the caller
// of shotKeyNow's lock).
func (p *Phone) screenKey() shotKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return shotKey{version: p.m.version, frame: p.m.frame(p.now()), secure: p.faults.secure}
}

// encodeScreen streams the screen as H.264 packets to emit until ctx ends,
// the time limit passes, or emit fails.
func (p *Phone) encodeScreen(ctx context.Context, o encodeOptions, emit func(h264Packet) error) error {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return ErrNoEncoder
	}
	sw, sh := p.opts.Width, p.opts.Height
	if o.Width == 0 || o.Height == 0 {
		o.Width, o.Height = sw&^1, sh&^1
	}
	if o.BitRate <= 0 {
		o.BitRate = 8_000_000
	}
	if o.GOP <= 0 {
		o.GOP = 600
	}
	if o.Limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Limit)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", sw, sh), "-framerate", "60", "-i", "pipe:0",
		"-vf", fmt.Sprintf("scale=%d:%d:flags=fast_bilinear", o.Width, o.Height),
		"-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-profile:v", "baseline", "-pix_fmt", "yuv420p",
		"-b:v", strconv.Itoa(o.BitRate), "-maxrate", strconv.Itoa(o.BitRate), "-bufsize", strconv.Itoa(o.BitRate/2),
		"-g", strconv.Itoa(o.GOP), "-bf", "0", "-fps_mode", "passthrough",
		"-flush_packets", "1", "-f", "flv", "pipe:1")
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("vphone: start ffmpeg: %w", err)
	}

	// Capture times of the frames in flight: ffmpeg emits one packet per
	// frame, in order (no B-frames, passthrough timing).
	var mu sync.Mutex
	var inFlight []time.Time
	readErr := make(chan error, 1)
	go func() {
		readErr <- readFLV(bufio.NewReaderSize(stdout, 1<<20), func(pk h264Packet) error {
			if !pk.Config {
				mu.Lock()
				if len(inFlight) > 0 {
					pk.At, inFlight = inFlight[0], inFlight[1:]
				}
				mu.Unlock()
			}
			return emit(pk)
		})
		cancel()
	}()

	minGap := time.Duration(0)
	if o.MaxFPS > 0 {
		minGap = time.Second / time.Duration(o.MaxFPS)
	}
	tick := time.NewTicker(vsync)
	defer tick.Stop()
	var last shotKey
	var lastAt time.Time
	first := true
	var feedErr error
	for feedErr == nil {
		key := p.screenKey()
		if (first || key != last) && time.Since(lastAt) >= minGap {
			at := time.Now()
			img := p.Screenshot()
			mu.Lock()
			inFlight = append(inFlight, at)
			mu.Unlock()
			if _, err := stdin.Write(img.Pix); err != nil {
				feedErr = err
				break
			}
			last, lastAt, first = key, at, false
		}
		select {
		case <-ctx.Done():
			feedErr = ctx.Err()
		case <-tick.C:
		}
	}
	stdin.Close()
	rerr := <-readErr
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		// the session ended (time limit, client gone): not an error
		return nil
	case rerr != nil && !errors.Is(rerr, io.EOF):
		return rerr
	case werr != nil:
		return fmt.Errorf("vphone: ffmpeg: %v: %s", werr, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// readFLV reads ffmpeg's FLV output and hands on each video packet as
// Annex-B: the AVC sequence header becomes a config packet (SPS and PPS),
// each frame's length-prefixed NAL units get start codes.
func readFLV(r io.Reader, emit func(h264Packet) error) error {
	var hdr [9]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	if string(hdr[:3]) != "FLV" {
		return fmt.Errorf("vphone: encoder output is not FLV")
	}
	if skip := int64(binary.BigEndian.Uint32(hdr[5:])) - 9; skip > 0 {
		if _, err := io.CopyN(io.Discard, r, skip); err != nil {
			return err
		}
	}
	lengthSize := 4
	var tag [15]byte // previous tag size + tag header
	for {
		if _, err := io.ReadFull(r, tag[:]); err != nil {
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
			if err := emit(h264Packet{Config: true, Data: cfg}); err != nil {
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
					return fmt.Errorf("vphone: NAL unit of %d bytes in a %d-byte packet", n, len(body))
				}
				out = append(append(out, 0, 0, 0, 1), body[:n]...)
				body = body[n:]
			}
			if err := emit(h264Packet{Key: key, Data: out}); err != nil {
				return err
			}
		}
	}
}

// avcCToAnnexB turns an AVCDecoderConfigurationRecord into SPS and PPS with
// start codes, and returns the NAL length size.
func avcCToAnnexB(b []byte) ([]byte, int, error) {
	bad := fmt.Errorf("vphone: bad AVC configuration record")
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
