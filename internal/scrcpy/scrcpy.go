// Package scrcpy is the wire protocol of scrcpy-server, one pinned version,
// shared by both ends Tandem has: the mirror's client (which talks to a real
// scrcpy-server on a phone) and the virtual phone's fake server (which
// answers it in tests).
//
// Why one package for both ends: the protocol changes between scrcpy
// versions (adb.md §6: 1.x, 2.0–3.3 and 4.x frame differently) and the
// server refuses a client of another version, so the version string, the
// server command line, the video framing and the control messages must agree
// byte for byte. Keeping them in one place, tested once, means the fake
// cannot drift from the client.
//
// Pinned: Version (3.3.4). Its video socket, with tunnel_forward=true,
// starts with one dummy byte, then the device name (64 bytes, NUL-padded),
// the codec id and the initial size (u32 each, big-endian), then packets of
// a 12-byte header — pts u64 whose bit 63 marks a codec-config packet and
// bit 62 a key frame, then the payload size u32 — and the payload. The
// control socket carries the client's messages (big-endian, first byte the
// type) and the device's replies (clipboard acknowledgements).
package scrcpy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Version is the one scrcpy-server version Tandem speaks. A server jar of
// another version refuses the connection.
const Version = "3.3.4"

// DeviceJarPath is where the client pushes the server jar.
const DeviceJarPath = "/data/local/tmp/scrcpy-server.jar"

// ServerClass is the jar's main class.
const ServerClass = "com.genymobile.scrcpy.Server"

// CodecH264 is the codec id of H.264 on the video socket ("h264").
const CodecH264 = 0x68323634

// DeviceNameLen is the size of the device-name field.
const DeviceNameLen = 64

// Packet header flags in the pts field.
const (
	flagConfig = uint64(1) << 63
	flagKey    = uint64(1) << 62
)

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

// VideoHeader is what the video socket sends before its first packet.
type VideoHeader struct {
	DeviceName    string
	Codec         uint32
	Width, Height int
}

// WriteVideoHeader writes the dummy byte (when dummy), the device name and
// the codec meta.
func WriteVideoHeader(w io.Writer, h VideoHeader, dummy bool) error {
	b := make([]byte, 0, 1+DeviceNameLen+12)
	if dummy {
		b = append(b, 0)
	}
	name := []byte(h.DeviceName)
	if len(name) > DeviceNameLen-1 {
		name = name[:DeviceNameLen-1]
		for len(name) > 0 && !utf8.Valid(name) {
			name = name[:len(name)-1]
		}
	}
	field := make([]byte, DeviceNameLen)
	copy(field, name)
	b = append(b, field...)
	b = binary.BigEndian.AppendUint32(b, h.Codec)
	b = binary.BigEndian.AppendUint32(b, uint32(h.Width))
	b = binary.BigEndian.AppendUint32(b, uint32(h.Height))
	_, err := w.Write(b)
	return err
}

// ReadVideoHeader reads what WriteVideoHeader wrote, after the dummy byte
// (the client reads that one alone, to know the server is up).
func ReadVideoHeader(r io.Reader) (VideoHeader, error) {
	var b [DeviceNameLen + 12]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return VideoHeader{}, err
	}
	name := b[:DeviceNameLen]
	if i := strings.IndexByte(string(name), 0); i >= 0 {
		name = name[:i]
	}
	h := VideoHeader{
		DeviceName: string(name),
		Codec:      binary.BigEndian.Uint32(b[DeviceNameLen:]),
		Width:      int(binary.BigEndian.Uint32(b[DeviceNameLen+4:])),
		Height:     int(binary.BigEndian.Uint32(b[DeviceNameLen+8:])),
	}
	if h.Codec == 0 || h.Codec == 1 {
		return h, fmt.Errorf("%w: the server disabled the video stream (code %d)", ErrProtocol, h.Codec)
	}
	return h, nil
}

// Packet is one encoded unit of the video stream.
type Packet struct {
	PTS    uint64 // microseconds; meaningless for config packets
	Config bool   // SPS/PPS
	Key    bool   // an IDR frame
	Data   []byte // Annex-B
}

// MaxPacket bounds a packet's size (a 4K key frame at a high bit rate is
// well under this); larger is a corrupt stream.
const MaxPacket = 64 << 20

// WritePacket writes a packet with its 12-byte header.
func WritePacket(w io.Writer, p Packet) error {
	var h [12]byte
	pts := p.PTS &^ (flagConfig | flagKey)
	switch {
	case p.Config:
		pts = flagConfig
	case p.Key:
		pts |= flagKey
	}
	binary.BigEndian.PutUint64(h[:], pts)
	binary.BigEndian.PutUint32(h[8:], uint32(len(p.Data)))
	buf := make([]byte, 0, 12+len(p.Data))
	buf = append(append(buf, h[:]...), p.Data...)
	_, err := w.Write(buf)
	return err
}

// ReadPacket reads one packet.
func ReadPacket(r io.Reader) (Packet, error) {
	var h [12]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Packet{}, err
	}
	pts := binary.BigEndian.Uint64(h[:])
	n := binary.BigEndian.Uint32(h[8:])
	if n > MaxPacket {
		return Packet{}, fmt.Errorf("%w: packet of %d bytes", ErrProtocol, n)
	}
	p := Packet{Config: pts&flagConfig != 0, Key: pts&flagKey != 0, PTS: pts &^ (flagConfig | flagKey), Data: make([]byte, n)}
	if _, err := io.ReadFull(r, p.Data); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Packet{}, err
	}
	return p, nil
}
