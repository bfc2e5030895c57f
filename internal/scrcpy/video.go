package scrcpy

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The video socket, per release (see the table in version.go): the dummy
// byte, the device name, the codec meta, then packets.

// Packet header flags in the pts field: 2.x and 3.x (device/Streamer.java
// PACKET_FLAG_CONFIG 1<<63, PACKET_FLAG_KEY_FRAME 1<<62), and 4.x, where a
// session flag takes bit 63 and the others move one down (v4.0
// device/Streamer.java).
const (
	flagConfig   = uint64(1) << 63
	flagKey      = uint64(1) << 62
	flagSession4 = uint64(1) << 63
	flagConfig4  = uint64(1) << 62
	flagKey4     = uint64(1) << 61
)

func (p Proto) flags() (config, key uint64) {
	if p.Sessions {
		return flagConfig4, flagKey4
	}
	return flagConfig, flagKey
}

// VideoHeader is what the video socket sends before its first packet.
// Width and Height are 0 from 4.0 on: the first session packet says them.
type VideoHeader struct {
	DeviceName    string
	Codec         uint32
	Width, Height int
}

// WriteVideoHeader writes the dummy byte (when dummy), the device name and
// the codec meta as release p does.
func (p Proto) WriteVideoHeader(w io.Writer, h VideoHeader, dummy bool) error {
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
	if !p.Sessions {
		b = binary.BigEndian.AppendUint32(b, uint32(h.Width))
		b = binary.BigEndian.AppendUint32(b, uint32(h.Height))
	}
	_, err := w.Write(b)
	return err
}

// ReadVideoHeader reads what WriteVideoHeader wrote, after the dummy byte
// (the client reads that one alone, to know the server is up).
func (p Proto) ReadVideoHeader(r io.Reader) (VideoHeader, error) {
	n := DeviceNameLen + 12
	if p.Sessions {
		n = DeviceNameLen + 4
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return VideoHeader{}, err
	}
	name := b[:DeviceNameLen]
	if i := strings.IndexByte(string(name), 0); i >= 0 {
		name = name[:i]
	}
	h := VideoHeader{DeviceName: string(name), Codec: binary.BigEndian.Uint32(b[DeviceNameLen:])}
	if !p.Sessions {
		h.Width = int(binary.BigEndian.Uint32(b[DeviceNameLen+4:]))
		h.Height = int(binary.BigEndian.Uint32(b[DeviceNameLen+8:]))
	}
	if h.Codec == 0 || h.Codec == 1 {
		return h, fmt.Errorf("%w: the server disabled the video stream (code %d)", ErrProtocol, h.Codec)
	}
	return h, nil
}

// Packet is one unit of the video stream: encoded data, or (4.x) the start
// of a capture session at a new size.
type Packet struct {
	PTS    uint64 // microseconds; meaningless for config packets
	Config bool   // SPS/PPS
	Key    bool   // an IDR frame
	Data   []byte // Annex-B
	// Session: a session packet (4.x): the video is now Width x Height;
	// ClientResize when the client asked for it.
	Session       bool
	Width, Height int
	ClientResize  bool
}

// MaxPacket bounds a packet's size (a 4K key frame at a high bit rate is
// well under this); larger is a corrupt stream.
const MaxPacket = 64 << 20

// WritePacket writes a packet with its 12-byte header as release p does.
func (p Proto) WritePacket(w io.Writer, pk Packet) error {
	var h [12]byte
	be := binary.BigEndian
	if pk.Session {
		if !p.Sessions {
			return fmt.Errorf("%w: scrcpy-server %s has no session packets", ErrProtocol, p.Version)
		}
		flags := uint32(flagSession4 >> 32)
		if pk.ClientResize {
			flags |= 1
		}
		be.PutUint32(h[:], flags)
		be.PutUint32(h[4:], uint32(pk.Width))
		be.PutUint32(h[8:], uint32(pk.Height))
		_, err := w.Write(h[:])
		return err
	}
	config, key := p.flags()
	pts := pk.PTS &^ (flagConfig | flagKey | flagKey4)
	switch {
	case pk.Config:
		pts = config
	case pk.Key:
		pts |= key
	}
	be.PutUint64(h[:], pts)
	be.PutUint32(h[8:], uint32(len(pk.Data)))
	buf := make([]byte, 0, 12+len(pk.Data))
	buf = append(append(buf, h[:]...), pk.Data...)
	_, err := w.Write(buf)
	return err
}

// ReadPacket reads one packet as release p writes it.
func (p Proto) ReadPacket(r io.Reader) (Packet, error) {
	var h [12]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Packet{}, err
	}
	be := binary.BigEndian
	pts := be.Uint64(h[:])
	if p.Sessions && pts&flagSession4 != 0 {
		flags := be.Uint32(h[:])
		return Packet{Session: true, ClientResize: flags&1 != 0, Width: int(be.Uint32(h[4:])), Height: int(be.Uint32(h[8:]))}, nil
	}
	n := be.Uint32(h[8:])
	if n > MaxPacket {
		return Packet{}, fmt.Errorf("%w: packet of %d bytes", ErrProtocol, n)
	}
	config, key := p.flags()
	pk := Packet{Config: pts&config != 0, Key: pts&key != 0, PTS: pts &^ (config | key), Data: make([]byte, n)}
	if _, err := io.ReadFull(r, pk.Data); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Packet{}, err
	}
	return pk, nil
}
