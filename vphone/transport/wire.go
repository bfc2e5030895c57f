// Package transport is the device side of the ADB transport protocol
// (adb/protocol.txt): packets, one host connection and its lock-step
// streams. It is apart from the phone because it is a wire, not a phone:
// it knows nothing of shells, files or screens; the device behind it
// answers the host's banner and opens the services the host asks for.
package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ADB transport commands (adb/protocol.txt).
const (
	cmdSYNC = 0x434e5953
	cmdCNXN = 0x4e584e43
	cmdAUTH = 0x48545541
	cmdOPEN = 0x4e45504f
	cmdOKAY = 0x59414b4f
	cmdCLSE = 0x45534c43
	cmdWRTE = 0x45545257
)

const (
	// adbVersion is the protocol version we answer CNXN with; adb 29 sends
	// the same and never checks data_check for it.
	adbVersion = 0x01000001
	// deviceMaxData is the payload size we accept; the host sends 1 MiB, we
	// answer 256 KiB like adbd, and each side writes at most the other's value.
	deviceMaxData = 256 * 1024
	// HardMaxData bounds a payload we are willing to read at all (a
	// packet's, or a shell v2 frame's inside a stream).
	HardMaxData = 1 << 20
)

// packet is one ADB transport message.
type packet struct {
	cmd, arg0, arg1 uint32
	data            []byte
}

// ErrBadPacket is returned when the host sends something that is not an
// ADB transport packet.
var ErrBadPacket = errors.New("vphone: bad adb packet")

func cmdName(c uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], c)
	return string(b[:])
}

func readPacket(r io.Reader) (packet, error) {
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return packet{}, err
	}
	p := packet{
		cmd:  binary.LittleEndian.Uint32(h[0:]),
		arg0: binary.LittleEndian.Uint32(h[4:]),
		arg1: binary.LittleEndian.Uint32(h[8:]),
	}
	n := binary.LittleEndian.Uint32(h[12:])
	magic := binary.LittleEndian.Uint32(h[20:])
	if magic != p.cmd^0xffffffff {
		return packet{}, fmt.Errorf("%w: magic %#x does not match command %#x", ErrBadPacket, magic, p.cmd)
	}
	if n > HardMaxData {
		return packet{}, fmt.Errorf("%w: payload of %d bytes", ErrBadPacket, n)
	}
	if n > 0 {
		p.data = make([]byte, n)
		if _, err := io.ReadFull(r, p.data); err != nil {
			return packet{}, err
		}
	}
	return p, nil
}

// header returns the packet's 24-byte header. data_check is 0, as adbd
// sends it since protocol version 0x01000001 (the version we answer with):
// the host no longer checks it, and summing every byte of a 10 MB frame
// would cost the virtual phone what a real one does not spend.
func (p packet) header() []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[0:], p.cmd)
	binary.LittleEndian.PutUint32(b[4:], p.arg0)
	binary.LittleEndian.PutUint32(b[8:], p.arg1)
	binary.LittleEndian.PutUint32(b[12:], uint32(len(p.data)))
	binary.LittleEndian.PutUint32(b[20:], p.cmd^0xffffffff)
	return b
}

// encode returns the packet's bytes.
func (p packet) encode() []byte {
	return append(p.header(), p.data...)
}
