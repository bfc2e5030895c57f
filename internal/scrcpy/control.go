package scrcpy

import (
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf8"
)

// Control message types (client to device).
const (
	TypeInjectKeycode    = 0
	TypeInjectText       = 1
	TypeInjectTouch      = 2
	TypeInjectScroll     = 3
	TypeBackOrScreenOn   = 4
	TypeExpandNotif      = 5
	TypeExpandSettings   = 6
	TypeCollapsePanels   = 7
	TypeGetClipboard     = 8
	TypeSetClipboard     = 9
	TypeSetDisplayPower  = 10
	TypeRotateDevice     = 11
	TypeOpenKbdSettings  = 15
	TypeResetVideo       = 17
	deviceMsgAckClipbord = 1
)

// Android MotionEvent and KeyEvent actions.
const (
	ActionDown   = 0
	ActionUp     = 1
	ActionMove   = 2
	ActionCancel = 3
)

// PointerFinger is the pointer id scrcpy uses for a generic finger.
const PointerFinger = ^uint64(1) // -2

// MaxTextLen bounds INJECT_TEXT and SET_CLIPBOARD payloads (the server's
// own limits are 300 bytes and 256 KiB).
const (
	MaxInjectText = 300
	MaxClipboard  = 1<<18 - 14
)

// Msg is one control message; exactly one of its fields is set.
type Msg struct {
	Type      byte
	Touch     *Touch
	Key       *Key
	Text      string // INJECT_TEXT
	Clipboard *Clipboard
	Scroll    *Scroll
	Action    byte // BACK_OR_SCREEN_ON, GET_CLIPBOARD copy key, SET_DISPLAY_POWER on
}

// Touch is INJECT_TOUCH_EVENT. Width and Height are the video size the
// coordinates refer to; the server ignores events whose size differs from
// the current video size (the phone rotated).
type Touch struct {
	Action        byte
	PointerID     uint64
	X, Y          int32
	Width, Height uint16
	Pressure      uint16 // 0xffff = 1.0
	ActionButton  uint32
	Buttons       uint32
}

// Key is INJECT_KEYCODE.
type Key struct {
	Action    byte
	Code      uint32
	Repeat    uint32
	MetaState uint32
}

// Clipboard is SET_CLIPBOARD; Paste also injects KEYCODE_PASTE.
type Clipboard struct {
	Sequence uint64 // non-zero: the device acknowledges it
	Paste    bool
	Text     string
}

// Scroll is INJECT_SCROLL_EVENT (amounts in 1/0x7fff units of a step).
type Scroll struct {
	X, Y          int32
	Width, Height uint16
	H, V          int16
	Buttons       uint32
}

// Marshal encodes a message.
func (m Msg) Marshal() ([]byte, error) {
	b := []byte{m.Type}
	be := binary.BigEndian
	switch m.Type {
	case TypeInjectTouch:
		t := m.Touch
		if t == nil {
			return nil, fmt.Errorf("%w: touch message without a touch", ErrProtocol)
		}
		b = append(b, t.Action)
		b = be.AppendUint64(b, t.PointerID)
		b = be.AppendUint32(b, uint32(t.X))
		b = be.AppendUint32(b, uint32(t.Y))
		b = be.AppendUint16(b, t.Width)
		b = be.AppendUint16(b, t.Height)
		b = be.AppendUint16(b, t.Pressure)
		b = be.AppendUint32(b, t.ActionButton)
		b = be.AppendUint32(b, t.Buttons)
	case TypeInjectKeycode:
		k := m.Key
		if k == nil {
			return nil, fmt.Errorf("%w: key message without a key", ErrProtocol)
		}
		b = append(b, k.Action)
		b = be.AppendUint32(b, k.Code)
		b = be.AppendUint32(b, k.Repeat)
		b = be.AppendUint32(b, k.MetaState)
	case TypeInjectText:
		if len(m.Text) > MaxInjectText {
			return nil, fmt.Errorf("%w: text of %d bytes (at most %d)", ErrProtocol, len(m.Text), MaxInjectText)
		}
		b = be.AppendUint32(b, uint32(len(m.Text)))
		b = append(b, m.Text...)
	case TypeSetClipboard:
		c := m.Clipboard
		if c == nil {
			return nil, fmt.Errorf("%w: clipboard message without text", ErrProtocol)
		}
		if len(c.Text) > MaxClipboard {
			return nil, fmt.Errorf("%w: clipboard text of %d bytes", ErrProtocol, len(c.Text))
		}
		b = be.AppendUint64(b, c.Sequence)
		paste := byte(0)
		if c.Paste {
			paste = 1
		}
		b = append(b, paste)
		b = be.AppendUint32(b, uint32(len(c.Text)))
		b = append(b, c.Text...)
	case TypeInjectScroll:
		s := m.Scroll
		if s == nil {
			return nil, fmt.Errorf("%w: scroll message without a scroll", ErrProtocol)
		}
		b = be.AppendUint32(b, uint32(s.X))
		b = be.AppendUint32(b, uint32(s.Y))
		b = be.AppendUint16(b, s.Width)
		b = be.AppendUint16(b, s.Height)
		b = be.AppendUint16(b, uint16(s.H))
		b = be.AppendUint16(b, uint16(s.V))
		b = be.AppendUint32(b, s.Buttons)
	case TypeBackOrScreenOn, TypeGetClipboard, TypeSetDisplayPower:
		b = append(b, m.Action)
	case TypeExpandNotif, TypeExpandSettings, TypeCollapsePanels, TypeRotateDevice, TypeOpenKbdSettings, TypeResetVideo:
	default:
		return nil, fmt.Errorf("%w: unknown control message type %d", ErrProtocol, m.Type)
	}
	return b, nil
}

// ReadMsg reads one control message as the pinned Version reads it.
func ReadMsg(r io.Reader) (Msg, error) {
	p, _ := ProtoOf(Version)
	return ReadMsgOf(p, r)
}

// ReadMsgOf reads one control message as release p reads it: a type the
// release does not know is a protocol error, as are the types Tandem never
// sends (UHID, start app); the fake then closes the socket, as the real
// server does on a message it cannot parse (ControlProtocolException).
func ReadMsgOf(p Proto, r io.Reader) (Msg, error) {
	var t [1]byte
	if _, err := io.ReadFull(r, t[:]); err != nil {
		return Msg{}, err
	}
	m := Msg{Type: t[0]}
	if m.Type > p.MaxControlType {
		return m, fmt.Errorf("%w: unknown control message type %d (scrcpy-server %s)", ErrProtocol, m.Type, p.Version)
	}
	if p.emptyType(m.Type) {
		return m, nil
	}
	mr := msgReader{r}
	be := binary.BigEndian
	var err error
	switch m.Type {
	case TypeInjectTouch:
		m.Touch, err = mr.touch()
	case TypeInjectKeycode:
		var b []byte
		if b, err = mr.read(13); err == nil {
			m.Key = &Key{Action: b[0], Code: be.Uint32(b[1:]), Repeat: be.Uint32(b[5:]), MetaState: be.Uint32(b[9:])}
		}
	case TypeInjectText:
		m.Text, err = mr.text(MaxInjectText)
	case TypeSetClipboard:
		m.Clipboard, err = mr.clipboard()
	case TypeInjectScroll:
		m.Scroll, err = mr.scroll()
	case TypeBackOrScreenOn, TypeGetClipboard, TypeSetDisplayPower:
		var b []byte
		if b, err = mr.read(1); err == nil {
			m.Action = b[0]
		}
	default:
		return m, fmt.Errorf("%w: control message type %d is not read by this fake", ErrProtocol, m.Type)
	}
	return m, err
}

// emptyType: a message of this type has no payload in release p
// (OPEN_HARD_KEYBOARD_SETTINGS is 14 in 2.4–2.6.1 and 15 from 2.7, when
// UHID_DESTROY took 14; RESET_VIDEO 17 came with 3.0).
func (p Proto) emptyType(t byte) bool {
	switch t {
	case TypeExpandNotif, TypeExpandSettings, TypeCollapsePanels, TypeRotateDevice:
		return true
	case 14:
		return p.MaxControlType == 14
	case TypeOpenKbdSettings:
		return p.MaxControlType >= TypeOpenKbdSettings
	case TypeResetVideo:
		return p.MaxControlType >= TypeResetVideo
	case 19, 20: // CAMERA_ZOOM_IN, CAMERA_ZOOM_OUT (4.0)
		return p.Sessions
	}
	return false
}

// msgReader reads the fields of one control message.
type msgReader struct{ r io.Reader }

// read reads n bytes; a message cut short is io.ErrUnexpectedEOF.
func (mr msgReader) read(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := io.ReadFull(mr.r, b)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// text reads a length-prefixed UTF-8 text of at most limit bytes.
func (mr msgReader) text(limit int) (string, error) {
	lb, err := mr.read(4)
	if err != nil {
		return "", err
	}
	n := binary.BigEndian.Uint32(lb)
	if n > uint32(limit) {
		return "", fmt.Errorf("%w: text of %d bytes", ErrProtocol, n)
	}
	s, err := mr.read(int(n))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(s) {
		return "", fmt.Errorf("%w: text is not UTF-8", ErrProtocol)
	}
	return string(s), nil
}

func (mr msgReader) touch() (*Touch, error) {
	b, err := mr.read(31)
	if err != nil {
		return nil, err
	}
	be := binary.BigEndian
	return &Touch{Action: b[0], PointerID: be.Uint64(b[1:]), X: int32(be.Uint32(b[9:])), Y: int32(be.Uint32(b[13:])),
		Width: be.Uint16(b[17:]), Height: be.Uint16(b[19:]), Pressure: be.Uint16(b[21:]),
		ActionButton: be.Uint32(b[23:]), Buttons: be.Uint32(b[27:])}, nil
}

func (mr msgReader) clipboard() (*Clipboard, error) {
	b, err := mr.read(9)
	if err != nil {
		return nil, err
	}
	s, err := mr.text(MaxClipboard)
	if err != nil {
		return nil, err
	}
	return &Clipboard{Sequence: binary.BigEndian.Uint64(b), Paste: b[8] != 0, Text: s}, nil
}

func (mr msgReader) scroll() (*Scroll, error) {
	b, err := mr.read(20)
	if err != nil {
		return nil, err
	}
	be := binary.BigEndian
	return &Scroll{X: int32(be.Uint32(b)), Y: int32(be.Uint32(b[4:])), Width: be.Uint16(b[8:]), Height: be.Uint16(b[10:]),
		H: int16(be.Uint16(b[12:])), V: int16(be.Uint16(b[14:])), Buttons: be.Uint32(b[16:])}, nil
}

// WriteAckClipboard is the device's acknowledgement of SET_CLIPBOARD.
func WriteAckClipboard(w io.Writer, seq uint64) error {
	b := binary.BigEndian.AppendUint64([]byte{deviceMsgAckClipbord}, seq)
	_, err := w.Write(b)
	return err
}

// DrainDeviceMessages reads the device's messages (clipboard
// acknowledgements, clipboard contents, UHID output) until r ends, so the
// device never blocks writing to a client that does not care.
func DrainDeviceMessages(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	return err
}
