package scrcpy

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestControlMessagesRoundTripWithExactSizes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		msg  Msg
		size int
	}{
		{"touch", Msg{Type: TypeInjectTouch, Touch: &Touch{Action: ActionMove, PointerID: PointerFinger, X: 100, Y: -3, Width: 576, Height: 1280, Pressure: 0xffff, Buttons: 1}}, 32},
		{"key", Msg{Type: TypeInjectKeycode, Key: &Key{Action: ActionDown, Code: 4}}, 14},
		{"text", Msg{Type: TypeInjectText, Text: "hello"}, 10},
		{"clipboard", Msg{Type: TypeSetClipboard, Clipboard: &Clipboard{Sequence: 7, Paste: true, Text: "你好"}}, 14 + 6},
		{"scroll", Msg{Type: TypeInjectScroll, Scroll: &Scroll{X: 1, Y: 2, Width: 3, Height: 4, H: -1, V: 5}}, 21},
		{"back", Msg{Type: TypeBackOrScreenOn, Action: ActionDown}, 2},
		{"rotate", Msg{Type: TypeRotateDevice}, 1},
	}
	for _, c := range cases {
		b, err := c.msg.Marshal()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(b) != c.size {
			t.Errorf("%s: %d bytes, want %d", c.name, len(b), c.size)
		}
		got, err := ReadMsg(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: read: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.msg) {
			t.Errorf("%s: round trip %+v, want %+v", c.name, got, c.msg)
		}
	}
}

func TestTouchBytesAreBigEndianAsTheServerReadsThem(t *testing.T) {
	t.Parallel()
	b, _ := Msg{Type: TypeInjectTouch, Touch: &Touch{Action: ActionDown, PointerID: PointerFinger, X: 0x01020304, Y: 5, Width: 0x0240, Height: 0x0500, Pressure: 0xffff}}.Marshal()
	want := []byte{2, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4, 0, 0, 0, 5, 0x02, 0x40, 0x05, 0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0}
	if !bytes.Equal(b, want) {
		t.Fatalf("touch bytes\n got %x\nwant %x", b, want)
	}
}

func TestReadMsgRejectsBadInput(t *testing.T) {
	t.Parallel()
	for name, in := range map[string][]byte{
		"unknown type":   {12, 0, 0},
		"short touch":    {2, 0, 1},
		"text too long":  {1, 0, 0, 0x10, 0},
		"invalid utf8":   {1, 0, 0, 0, 2, 0xff, 0xfe},
		"clipboard huge": {9, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x7f, 0xff, 0xff, 0xff},
	} {
		if _, err := ReadMsg(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCommandParsesBackWithTheServerDefaults(t *testing.T) {
	t.Parallel()
	o := Options{SCID: 0x1234abcd, MaxSize: 1280, MaxFPS: 60, Control: true}
	cmd := o.Command()
	if !strings.HasPrefix(cmd, "CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server 3.3.4 scid=1234abcd ") {
		t.Fatalf("command %q", cmd)
	}
	words := strings.Fields(cmd)
	a, err := ParseServerArgs(pinned(t), words[4:])
	if err != nil {
		t.Fatal(err)
	}
	want := ServerArgs{Version: Version, SCID: 0x1234abcd, HasSCID: true, TunnelForward: true, Audio: false, Control: true, Video: true,
		VideoCodec: "h264", MaxSize: 1280, MaxFPS: 60, BitRate: 8000000, SendDummyByte: true, SendMeta: true}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("parsed %+v\nwant %+v", a, want)
	}
	if _, err := ParseServerArgs(pinned(t), []string{"3.3.4", "max_size=big"}); err == nil {
		t.Fatal("bad integer accepted")
	}
	if _, err := ParseServerArgs(pinned(t), []string{"3.3.4", "scid=ffffffff"}); err == nil {
		t.Fatal("scid out of range accepted")
	}
}

// The video socket as 3.x and as 4.x frame it (device/Streamer.java of
// v3.3.4 and v4.1): the header, then packets whose flags sit where that
// release puts them.
func TestVideoHeaderAndPackets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version    string
		header     int  // bytes after the dummy byte
		configByte byte // the first byte of a config packet's header
	}{{"3.3.4", 64 + 12, 0x80}, {"2.0", 64 + 12, 0x80}, {"4.1", 64 + 4, 0x40}} {
		p, _ := ProtoOf(c.version)
		var buf bytes.Buffer
		long := strings.Repeat("手", 30) // 90 bytes: cut on a rune boundary
		if err := p.WriteVideoHeader(&buf, VideoHeader{DeviceName: long, Codec: CodecH264, Width: 576, Height: 1280}, true); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != 1+c.header || buf.Bytes()[0] != 0 {
			t.Fatalf("%s: header of %d bytes", c.version, buf.Len())
		}
		buf.Next(1)
		h, err := p.ReadVideoHeader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if h.DeviceName != strings.Repeat("手", 21) || h.Codec != CodecH264 || (h.Width == 576) == p.Sessions {
			t.Fatalf("%s: header %+v", c.version, h)
		}
		pk := []Packet{{Config: true, Data: []byte{0, 0, 0, 1, 0x67}}, {PTS: 33000, Key: true, Data: []byte{0, 0, 0, 1, 0x65}}, {PTS: 66000, Data: []byte{0, 0, 0, 1, 0x41}}}
		if p.Sessions {
			pk = append([]Packet{{Session: true, Width: 576, Height: 1280}}, pk...)
			pk = append(pk, Packet{Session: true, Width: 1280, Height: 576, ClientResize: true})
		} else if err := p.WritePacket(io.Discard, Packet{Session: true}); err == nil {
			t.Fatalf("%s wrote a session packet", c.version)
		}
		for _, x := range pk {
			if err := p.WritePacket(&buf, x); err != nil {
				t.Fatal(err)
			}
		}
		if got := buf.Bytes()[12*boolInt(p.Sessions)]; got != c.configByte {
			t.Fatalf("%s: config flag byte %x", c.version, got)
		}
		for _, want := range pk {
			got, err := p.ReadPacket(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: packet %+v, want %+v", c.version, got, want)
			}
		}
		disabled := append(make([]byte, 64), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)
		if _, err := p.ReadVideoHeader(bytes.NewReader(disabled)); !errors.Is(err, ErrProtocol) {
			t.Fatalf("%s: disabled stream: %v", c.version, err)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pinned(t *testing.T) Proto {
	t.Helper()
	p, err := ProtoOf(Version)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
