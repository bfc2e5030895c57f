// Package scrcpy is the wire protocol of scrcpy-server, every release from
// 2.0 to 4.1, shared by both ends Tandem has: the mirror's client (which
// talks to a real scrcpy-server on a phone) and the virtual phone's fake
// server (which answers it in tests).
//
// Why one package for both ends: the protocol changes between scrcpy
// releases (adb.md §6: 1.x, 2.0–3.3 and 4.x frame differently) and the
// server refuses a client of another version, so the version string, the
// server command line, the video framing and the control messages must agree
// byte for byte. Keeping them in one place, tested once, means the fake
// cannot drift from the client.
//
// A release is a Proto (version.go holds the table of what differs, each
// row read in that tag's own Java and client code); the client learns the
// release from the jar itself (jar.go: BuildConfig.VERSION_NAME in its
// classes.dex) or from the server's refusal, and sends that exact string.
// The video socket, with tunnel_forward=true, starts with one dummy byte,
// then the device name (64 bytes, NUL-padded), the codec id and, up to 3.x,
// the initial size (u32 each, big-endian), then packets of a 12-byte header
// and the payload (video.go). The control socket carries the client's
// messages (big-endian, first byte the type) and the device's replies
// (clipboard acknowledgements); the ones Tandem sends read the same in
// every release (control.go).
//
// Version (3.3.4) is what a jar that hides its release is first started as.
package scrcpy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is the release a jar that hides its own is first started as
// (its refusal then names the right one), and the fake's default.
const Version = "3.3.4"

// DeviceJarPath is where the client pushes the server jar.
const DeviceJarPath = "/data/local/tmp/scrcpy-server.jar"

// ServerClass is the jar's main class.
const ServerClass = "com.genymobile.scrcpy.Server"

// CodecH264 is the codec id of H.264 on the video socket ("h264").
const CodecH264 = 0x68323634

// DeviceNameLen is the size of the device-name field.
const DeviceNameLen = 64

// ErrProtocol is a malformed message or header.
var ErrProtocol = errors.New("scrcpy: protocol error")

// SocketName is the abstract socket a server with this scid listens on.
func SocketName(scid uint32) string { return fmt.Sprintf("scrcpy_%08x", scid) }

// Options are the server options Tandem uses.
type Options struct {
	SCID     uint32 // 31-bit session id; names the socket
	MaxSize  int    // longer side of the video; 0 = native
	MaxFPS   int    // 0 = unlimited
	BitRate  int    // video bit rate; 0 = the server's default (8 Mbps)
	Control  bool   // open the control socket
	Version  string // "" = Version
	LogLevel string // "" = info
}

// Command is the shell command line that starts the server on the phone.
func (o Options) Command() string {
	v := o.Version
	if v == "" {
		v = Version
	}
	args := []string{
		"CLASSPATH=" + DeviceJarPath, "app_process", "/", ServerClass, v,
		fmt.Sprintf("scid=%08x", o.SCID),
		"log_level=" + orDefault(o.LogLevel, "info"),
		"tunnel_forward=true", "audio=false", "video_codec=h264",
		"control=" + strconv.FormatBool(o.Control),
		"cleanup=true", "send_dummy_byte=true",
	}
	if o.MaxSize > 0 {
		args = append(args, "max_size="+strconv.Itoa(o.MaxSize))
	}
	if o.MaxFPS > 0 {
		args = append(args, "max_fps="+strconv.Itoa(o.MaxFPS))
	}
	if o.BitRate > 0 {
		args = append(args, "video_bit_rate="+strconv.Itoa(o.BitRate))
	}
	return strings.Join(args, " ")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// ServerArgs are the arguments a server received, as the fake parses them.
type ServerArgs struct {
	Version       string
	SCID          uint32
	HasSCID       bool
	TunnelForward bool
	Audio         bool
	Control       bool
	Video         bool
	VideoCodec    string
	MaxSize       int
	MaxFPS        int
	BitRate       int
	SendDummyByte bool
	SendMeta      bool     // device and codec meta, frame headers
	Unknown       []string // options the release does not know (it warns)
}

// ParseServerArgs reads the arguments after the class name (the client's
// version first, then key=value pairs) as the release p does, with its
// defaults (Options.java parse of each tag).
func ParseServerArgs(p Proto, args []string) (ServerArgs, error) {
	a := ServerArgs{Audio: true, Control: true, Video: true, VideoCodec: "h264", SendDummyByte: true, SendMeta: true, BitRate: 8000000}
	if len(args) == 0 {
		return a, fmt.Errorf("missing client version")
	}
	a.Version = args[0]
	for _, kv := range args[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return a, fmt.Errorf("invalid key=value pair: \"%s\"", kv)
		}
		if err := a.set(p, k, v); err != nil {
			return a, err
		}
	}
	return a, nil
}

// set applies one option as release p reads it.
func (a *ServerArgs) set(p Proto, k, v string) error {
	boolean := func() bool { return v == "true" } // Boolean.parseBoolean
	integer := func() (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid integer for %s: %q", k, v)
		}
		return n, nil
	}
	var err error
	switch k {
	case "scid":
		var n uint64
		n, err = strconv.ParseUint(v, 16, 32)
		if err == nil && n > 0x7fffffff {
			err = fmt.Errorf("scid %q out of range", v)
		}
		a.SCID, a.HasSCID = uint32(n), true
	case "tunnel_forward":
		a.TunnelForward = boolean()
	case "audio":
		a.Audio = boolean()
	case "control":
		a.Control = boolean()
	case "video_codec":
		a.VideoCodec = v
	case "max_size":
		a.MaxSize, err = integer()
	case "max_fps":
		// Integer.parseInt up to 2.6.1, parseFloat from 2.7.
		if f, ferr := strconv.ParseFloat(v, 32); p.MaxFPSFloat && ferr == nil && f >= 0 {
			a.MaxFPS = int(f)
		} else {
			a.MaxFPS, err = integer()
		}
	case "video_bit_rate":
		a.BitRate, err = integer()
	case "send_dummy_byte":
		a.SendDummyByte = boolean()
	case "send_device_meta", "send_codec_meta", "send_frame_meta":
		a.SendMeta = a.SendMeta && boolean()
	case "log_level", "cleanup", "audio_codec", "audio_bit_rate", "display_id", "show_touches", "stay_awake",
		"power_off_on_close", "clipboard_autosync", "downsize_on_error", "power_on", "crop":
		// Known to every release; the fake has nothing to do with them.
	default:
		return a.setSince(p, k, v)
	}
	return err
}

// setSince applies the options that came or went with a release.
func (a *ServerArgs) setSince(p Proto, k, v string) error {
	switch {
	case k == "video" && p.VideoOption:
		a.Video = v == "true"
	case k == "raw_video_stream" && !p.VideoOption, k == "raw_stream" && p.VideoOption:
		// raw_video_stream in 2.0, raw_stream from 2.1.
		if v == "true" {
			a.SendMeta, a.SendDummyByte = false, false
		}
	default:
		a.Unknown = append(a.Unknown, k)
	}
	return nil
}
