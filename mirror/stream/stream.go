// Package stream gets a phone's screen as live H.264 through the adb server,
// for the mirror: scrcpy-server when a scrcpy installation provides its jar,
// else `screenrecord --output-format=h264`, else nothing (the caller polls
// `screencap`). Open picks the best path that works and says why.
//
// Why a package of its own, in the mirror's room and not in the app or the
// driver: it is the phone's side of the mirror (adb services, the scrcpy
// protocol, H.264 framing) with no UI in it, it is tested against the
// virtual phone through the real adb server like the driver, and the app
// only forwards its packets to the mirror's frame server (package mirror). It is apart from the driver because a stream lives as long as
// the mirror is watched, independent of any run, and must never slow the
// agent's own lossless `screencap -p` screenshots.
//
// Both paths deliver Packets: a codec-config packet (SPS and PPS) before
// the first frame and whenever the video size changes (rotation), then one
// access unit per frame, Annex-B, key frames flagged. The web view decodes
// them with WebCodecs.
package stream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tandem/devices/adb"
	"tandem/engine/action"
	"tandem/internal/scrcpy"
)

// Packet is one unit of the video.
type Packet struct {
	Config bool      // SPS and PPS
	Key    bool      // holds an IDR slice
	At     time.Time // when it was received (or captured, when the path says)
	Data   []byte    // Annex-B
	// Width and Height are the video size from the newest SPS (0 before
	// the first config).
	Width, Height int
}

// Path names a way to get the screen.
type Path string

// The paths, best first.
const (
	PathScrcpy       Path = "scrcpy"
	PathScreenrecord Path = "screenrecord"
	PathScreencap    Path = "screencap"
)

// Source is a running stream.
type Source interface {
	// Path says which path this is.
	Path() Path
	// Done is closed when the stream ended; Err then says why.
	Done() <-chan struct{}
	Err() error
	// Close stops the stream and waits for it to end.
	Close() error
}

// Toucher is a Source that takes the person's input live.
type Toucher interface {
	// Touch sends a pointer event in screen pixels (action: scrcpy.ActionDown,
	// ActionMove, ActionUp).
	Touch(ctx context.Context, action byte, x, y int) error
	// Key presses an Android key code.
	Key(ctx context.Context, code int) error
	// Paste types any Unicode text through the clipboard.
	Paste(ctx context.Context, text string) error
}

// Options configure Open.
type Options struct {
	Server adb.Server
	Serial string
	// Screen is the phone's screen size (touch coordinates); MaxSide bounds
	// the video's longer side (0 = 1280).
	Screen  [2]int
	MaxSide int
	MaxFPS  int // 0 = 60
	BitRate int // 0 = 8 Mbps
	// ScrcpyJar is the scrcpy-server jar to push; "" skips scrcpy.
	ScrcpyJar string
	// Versions remembers each jar's release (nil: read it each time).
	Versions *JarVersions
	// NoScreenrecord skips the screenrecord path (tests of the fallback).
	NoScreenrecord bool
	// RecordFor is how long each screenrecord runs before the next one
	// takes over (0 = 170 s, under AOSP's 180 s limit).
	RecordFor time.Duration
}

func (o *Options) defaults() {
	if o.MaxSide == 0 {
		o.MaxSide = 1280
	}
	if o.MaxFPS == 0 {
		o.MaxFPS = 60
	}
	if o.BitRate == 0 {
		o.BitRate = 8_000_000
	}
	if o.RecordFor == 0 {
		o.RecordFor = 170 * time.Second
	}
}

// ErrNoPath means no video path works; poll screencap.
var ErrNoPath = errors.New("no video stream on this phone")

// Why says why Open took its path.
type Why struct {
	Text string // one sentence, in English, with the errors' own words
	// Scrcpy is the scrcpy-server release the stream speaks, or the one
	// found too old or too new (ScrcpyErr then wraps scrcpy.ErrTooOld or
	// ErrTooNew); "" when none was learned.
	Scrcpy    string
	ScrcpyErr error // why the scrcpy path was not taken; nil when it was, or no jar
}

// Open starts the best path that works and returns it with the reason it
// was chosen (what the better paths lacked). emit receives packets from
// the stream's own goroutine, in order; it must not block for long.
// With no video path it returns ErrNoPath and the reason.
func Open(ctx context.Context, o Options, emit func(Packet)) (Source, string, error) {
	src, why, err := OpenWhy(ctx, o, emit)
	return src, why.Text, err
}

// OpenWhy is Open, with the scrcpy release and error apart.
func OpenWhy(ctx context.Context, o Options, emit func(Packet)) (Source, Why, error) {
	o.defaults()
	var why []string
	var w Why
	if o.ScrcpyJar == "" {
		why = append(why, "no scrcpy-server found (install scrcpy 2.0 or newer, choose its server file in Settings, or set TANDEM_SCRCPY_SERVER)")
	} else {
		s, err := StartScrcpy(ctx, o, emit)
		if err == nil {
			w.Scrcpy, w.Text = s.Version(), fmt.Sprintf("scrcpy-server %s from %s", s.Version(), o.ScrcpyJar)
			return s, w, nil
		}
		if ctx.Err() != nil {
			return nil, Why{}, ctx.Err()
		}
		w.ScrcpyErr = err
		if ve := (*scrcpy.VersionError)(nil); errors.As(err, &ve) {
			w.Scrcpy = ve.Version
		}
		why = append(why, "scrcpy-server failed: "+err.Error())
	}
	if !o.NoScreenrecord {
		r, err := StartScreenrecord(ctx, o, emit)
		if err == nil {
			w.Text = joinWhy(why, "screenrecord streams H.264")
			return r, w, nil
		}
		if ctx.Err() != nil {
			return nil, Why{}, ctx.Err()
		}
		why = append(why, "screenrecord failed: "+err.Error())
	}
	w.Text = joinWhy(why, "polling screencap")
	return nil, w, ErrNoPath
}

func joinWhy(why []string, then string) string {
	s := ""
	for _, w := range why {
		s += w + "; "
	}
	return s + then
}

// videoSize fits the screen in maxSide, both sides multiples of 16 (sizes
// every hardware encoder accepts).
func videoSize(w, h, maxSide int) (int, int) {
	if maxSide > 0 && max(w, h) > maxSide {
		if w >= h {
			h, w = h*maxSide/w, maxSide
		} else {
			w, h = w*maxSide/h, maxSide
		}
	}
	return max(w&^15, 16), max(h&^15, 16)
}

// phases are the pointer phases the mirror sends, as scrcpy's actions.
var phases = map[string]byte{"down": scrcpy.ActionDown, "move": scrcpy.ActionMove, "up": scrcpy.ActionUp, "cancel": scrcpy.ActionCancel}

// TouchPhase sends one pointer phase ("down", "move", "up", "cancel") at
// screen pixels through t.
func TouchPhase(ctx context.Context, t Toucher, phase string, x, y int) error {
	act, ok := phases[phase]
	if !ok {
		return fmt.Errorf("unknown touch phase %q (down, move, up, cancel)", phase)
	}
	return t.Touch(ctx, act, x, y)
}

// Do performs what the control socket can do better than the driver:
// text of any script through the clipboard (Enter after it when the action
// submits) and a named key, with no ADB Keyboard and no `input` process.
// handled is false for anything else, which the driver then performs.
func Do(ctx context.Context, t Toucher, a action.Action) (handled bool, err error) {
	switch a.Type {
	case action.TypeText:
		if err := t.Paste(ctx, a.Text); err != nil || !a.Submit {
			return true, err
		}
		enter, _ := adb.KeyCode("enter")
		return true, t.Key(ctx, enter)
	case action.Key:
		code, err := adb.KeyCode(a.Key)
		if err != nil {
			return false, nil // a key the phone has no code for: the driver says why
		}
		return true, t.Key(ctx, code)
	case action.Tap, action.DoubleTap, action.LongPress, action.Swipe, action.Drag, action.RightClick, action.Scroll,
		action.Hotkey, action.Launch, action.Wait, action.Finish, action.Fail, action.AskUser, action.TakeOver:
		return false, nil // the driver's
	default: // not a type: the driver says why
		return false, nil
	}
}
