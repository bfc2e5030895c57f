package adb

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"time"
)

// syncChunk is the largest DATA chunk of the sync protocol.
const syncChunk = 64 * 1024

// Push writes data to remote on the device with the file mode (sync:
// SEND, SYNC.TXT v1), as `adb push` does. The mirror uses it to put
// scrcpy-server's jar on the phone.
func (s Server) Push(ctx context.Context, serial string, data []byte, remote string, mode uint32) error {
	st, err := s.Open(ctx, serial, "sync:")
	if err != nil {
		return err
	}
	defer st.Close()
	req := func(id string, n int) []byte {
		b := make([]byte, 8)
		copy(b, id)
		binary.LittleEndian.PutUint32(b[4:], uint32(n))
		return b
	}
	path := fmt.Sprintf("%s,%d", remote, mode&0o7777|0o100000)
	if len(path) > 1024 {
		return fmt.Errorf("adb push: remote path too long")
	}
	msg := append(req("SEND", len(path)), path...)
	for rest := data; ; {
		c := min(len(rest), syncChunk)
		if c == 0 {
			break
		}
		msg = append(append(msg, req("DATA", c)...), rest[:c]...)
		rest = rest[c:]
		if _, err := st.Write(msg); err != nil {
			return s.classify(ctx, serial, fmt.Errorf("adb push %s: %w", remote, err))
		}
		msg = msg[:0]
	}
	msg = append(msg, req("DONE", int(time.Now().Unix()))...)
	if _, err := st.Write(msg); err != nil {
		return s.classify(ctx, serial, fmt.Errorf("adb push %s: %w", remote, err))
	}
	var reply [8]byte
	if _, err := io.ReadFull(st, reply[:]); err != nil {
		return s.classify(ctx, serial, fmt.Errorf("adb push %s: reading reply: %w", remote, err))
	}
	switch string(reply[:4]) {
	case "OKAY":
		_, _ = st.Write(req("QUIT", 0))
		return nil
	case "FAIL":
		n := binary.LittleEndian.Uint32(reply[4:])
		if n > 4096 {
			n = 4096
		}
		text := make([]byte, n)
		_, _ = io.ReadFull(st, text)
		return fmt.Errorf("adb push %s: %s", remote, text)
	}
	return fmt.Errorf("adb push %s: unexpected reply %q", remote, reply[:4])
}

// KeyCode resolves a key name as Do does ("back", "KEYCODE_BACK", "a", a
// number) to its Android key code, for other channels to the phone (the
// mirror's scrcpy control socket).
func KeyCode(name string) (int, error) {
	s, err := keyCode(name)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}
