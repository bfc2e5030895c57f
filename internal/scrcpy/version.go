package scrcpy

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Versions. The server refuses a client whose version string differs from
// its own BuildConfig.VERSION_NAME (Server.java createOptions in 2.0,
// Options.java parse from 2.1), so the client must send the jar's own
// string, and speak that release's protocol. What Tandem sends and reads,
// per release, read in each tag of github.com/Genymobile/scrcpy:
//
//	release    refusal (stderr, then the stack trace)                   max_fps  control  device  video socket
//	2.0–2.1.1  "[server] ERROR: Exception on thread Thread[main,5,main]"  int      0–11     0–1     name, codec+w+h, flags 63/62
//	           then "java.lang.IllegalArgumentException: The server version (V) does not match the client (C)"
//	2.2–2.3.1  "[server] ERROR: The server version (V) does not match    int      0–11     0–1     same
//	           the client (C)", then the exception
//	2.4–2.6.1  same                                                      int      0–14     0–2     same
//	2.7        same                                                      float    0–15     0–2     same
//	3.0–3.3.4  same                                                      float    0–17     0–2     same
//	4.0        same                                                      float    0–21     0–2     name, codec; sessions; 62/61
//	4.1        same                                                      float    0–22     0–2     same as 4.0
//
// (control: the message types the release reads; device: the message types
// it writes; flags: the pts bits of a config packet and a key frame.)
//
// Sources: v2.0 server/.../Server.java (createOptions, main's uncaught
// handler), v2.2 and v3.3.4 .../Server.java main (`Ln.e(t.getMessage(), t)`)
// and .../Options.java parse; .../ControlMessage.java and DeviceMessage.java
// (TYPE_ constants) in v2.0, v2.4, v2.7, v3.0; max_fps is
// Integer.parseInt up to v2.6.1 and parseFloat from v2.7 (Options.java).
//
// What is the same from 2.0 to 4.1, so one client speaks them all:
//   - the options Tandem passes (scid, log_level, tunnel_forward, audio,
//     video_codec, control, cleanup, send_dummy_byte, max_size, max_fps as
//     an integer, video_bit_rate) exist in every release; an unknown option
//     is only a warning ("Unknown server option"); each release's own client
//     (app/src/server.c execute_server) passes them in the same words;
//   - the handshake (device/DesktopConnection.java open, sendDeviceMeta):
//     the forward tunnel's socket scrcpy_<scid>, video then control
//     socket, one dummy byte, the 64-byte device name; up to 3.3.4
//     (device/Streamer.java writeVideoHeader, writeFrameMeta) codec id +
//     width + height (u32 each), then 12-byte frame headers (bit 63
//     config, bit 62 key frame); 4.x below;
//   - the control messages Tandem sends (ControlMessageReader.java):
//     INJECT_KEYCODE 0 (13-byte payload), INJECT_TOUCH_EVENT 2 (31),
//     SET_CLIPBOARD 9 (9 + length-prefixed text); the device's
//     ACK_CLIPBOARD 1 (sequence u64), which Tandem does not ask for.
//
// What differs is the fake's business (refusal wording, the message types a
// release knows) and the version string itself: the 2.2 jar calls itself
// "v2.2" and the 3.0.1 jar "3.0" (server/build.gradle versionName).
//
// 4.0 and 4.1 change the video socket only (v4.0 device/Streamer.java
// writeVideoHeader, writeSessionMeta, writeFrameMeta; video/SurfaceEncoder.java
// streamScreen): after the device name comes the codec id alone; each
// capture session (the start, a rotation) then begins with a 12-byte
// session packet (u32 flags, bit 31 set, bit 0 "the client resized";
// width u32, height u32), and a media packet's pts has bit 63 clear, bit
// 62 config, bit 61 key frame. The options and the control messages Tandem
// uses are as before (send_codec_meta became send_stream_meta; Tandem
// sends neither).
//
// 1.x (a 64-byte name plus u16 sizes, no codec meta, socket "scrcpy") is
// too old to speak; a 5.x would be new.

// Proto is what one server release needs from a client, and how it
// answers.
type Proto struct {
	Version      string // the jar's own VERSION_NAME, sent as-is
	Major, Minor int
	Patch        int
	// MaxControlType is the last control message type the release reads.
	MaxControlType byte
	// MaxFPSFloat: max_fps is parsed as a float (from 2.7).
	MaxFPSFloat bool
	// VideoOption: the server knows video=false (from 2.1).
	VideoOption bool
	// RefusalInHandler: the refusal is logged by the uncaught-exception
	// handler as "Exception on thread ..." (2.0–2.1.1), not as itself.
	RefusalInHandler bool
	// Sessions: the video header has no size; session packets carry it
	// (from 4.0).
	Sessions bool
}

// Supported range, said in errors.
const (
	OldestSupported = "2.0"
	NewestSupported = "4.1"
)

// ErrTooOld is a 1.x server: Tandem needs 2.0 or newer.
var ErrTooOld = errors.New("too old")

// ErrTooNew is a server newer than the protocols Tandem speaks.
var ErrTooNew = errors.New("too new")

// VersionError is a server release Tandem does not speak.
type VersionError struct {
	Version string
	Err     error // ErrTooOld or ErrTooNew
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("scrcpy-server %s is %v (Tandem speaks %s to %s)", e.Version, e.Err, OldestSupported, NewestSupported)
}

func (e *VersionError) Unwrap() error { return e.Err }

var versionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+))?`)

// ProtoOf is the protocol of the server whose VERSION_NAME is v. A 1.x
// server is ErrTooOld, a 4.x one ErrTooNew; both errors name the version.
func ProtoOf(v string) (Proto, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return Proto{}, fmt.Errorf("%w: %q is not a scrcpy-server version", ErrProtocol, v)
	}
	p := Proto{Version: v}
	p.Major, _ = strconv.Atoi(m[1])
	p.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		p.Patch, _ = strconv.Atoi(m[3])
	}
	switch {
	case p.Major < 2:
		return p, &VersionError{Version: v, Err: ErrTooOld}
	case p.Major > 4:
		return p, &VersionError{Version: v, Err: ErrTooNew}
	}
	p.VideoOption = p.atLeast(2, 1)
	p.RefusalInHandler = !p.atLeast(2, 2)
	p.MaxFPSFloat = p.atLeast(2, 7)
	p.Sessions = p.Major >= 4
	switch {
	case p.atLeast(4, 1):
		p.MaxControlType = 22 // SCAN_FILE
	case p.atLeast(4, 0):
		p.MaxControlType = 21 // RESIZE_DISPLAY
	case p.atLeast(3, 0):
		p.MaxControlType = TypeResetVideo
	case p.atLeast(2, 7):
		p.MaxControlType = 15
	case p.atLeast(2, 4):
		p.MaxControlType = 14
	default:
		p.MaxControlType = TypeRotateDevice
	}
	return p, nil
}

func (p Proto) atLeast(major, minor int) bool {
	return p.Major > major || p.Major == major && p.Minor >= minor
}

// Refusal is what the release prints on stderr when a client of version
// client starts it (Ln.e's "[server] ERROR: " line, then the exception's
// first line as printStackTrace writes it).
func (p Proto) Refusal(client string) string {
	msg := fmt.Sprintf("The server version (%s) does not match the client (%s)", p.Version, client)
	first := msg
	if p.RefusalInHandler {
		first = "Exception on thread Thread[main,5,main]"
	}
	at := "com.genymobile.scrcpy.Options.parse(Options.java)"
	if p.Major == 2 && p.Minor == 0 {
		at = "com.genymobile.scrcpy.Server.createOptions(Server.java)"
	}
	return "[server] ERROR: " + first + "\njava.lang.IllegalArgumentException: " + msg + "\n\tat " + at + "\n"
}

var refusalRE = regexp.MustCompile(`The server version \(([^)\s]+)\) does not match the client`)

// RefusedBy reads a server's refusal (every release that checks the
// version, 1.x included, words it the same) and returns the server's own version; ok is false when out holds
// no refusal.
func RefusedBy(out string) (version string, ok bool) {
	m := refusalRE.FindStringSubmatch(out)
	if m == nil {
		return "", false
	}
	return m[1], true
}
