package desktop

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// A bare X connection for the RECORD extension's data stream. Enabling a
// RECORD context makes the server answer that one request with a reply per
// batch of recorded protocol, for as long as the context is enabled; the X
// library the rest of the driver uses (jezek/xgb) hands a request exactly
// one reply, so the data connection speaks the wire itself: the connection
// set-up with the display's MIT-MAGIC-COOKIE-1 (X Window System Protocol,
// chapter 8 "Connection Setup"; the Xauthority file format of libXau),
// one request, then replies, events and errors read as they come.

// wireConn is a set-up X connection in the client's (little-endian) byte
// order.
type wireConn struct {
	c net.Conn
	r *bufio.Reader
}

// dialWire connects to display ("" means $DISPLAY) and completes the set-up.
func dialWire(ctx context.Context, display string) (*wireConn, error) {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	host, num, err := parseDisplay(display)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var c net.Conn
	if host == "" || host == "unix" {
		c, err = d.DialContext(ctx, "unix", "/tmp/.X11-unix/X"+num)
		if err != nil { // a private /tmp: the server's abstract socket, as Xlib tries
			c, err = d.DialContext(ctx, "unix", "@/tmp/.X11-unix/X"+num)
		}
	} else {
		n, _ := strconv.Atoi(num)
		c, err = d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(6000+n)))
	}
	if err != nil {
		return nil, fmt.Errorf("connect to X display %s: %w", display, err)
	}
	w := &wireConn{c: c, r: bufio.NewReaderSize(c, 1<<16)}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := w.setup(cookie(host, num)); err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("display %s: %w", display, err)
	}
	return w, nil
}

// parseDisplay splits "[host]:N[.screen]" into host and display number.
func parseDisplay(display string) (host, num string, err error) {
	i := strings.LastIndexByte(display, ':')
	if i < 0 || strings.Contains(display[:i], "/") {
		return "", "", fmt.Errorf("display %q is not host:number", display)
	}
	host, num = display[:i], display[i+1:]
	if j := strings.IndexByte(num, '.'); j >= 0 {
		num = num[:j]
	}
	if _, err := strconv.Atoi(num); err != nil {
		return "", "", fmt.Errorf("display %q is not host:number", display)
	}
	return host, num, nil
}

// cookie finds the MIT-MAGIC-COOKIE-1 for display number num in the
// Xauthority file, as libXau's XauGetBestAuthByAddr does for a local
// display: an entry for this host or a wildcard one, for this display or
// any. nil means none (a server started with -ac needs none).
func cookie(host, num string) []byte {
	name := os.Getenv("XAUTHORITY")
	if name == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		name = home + "/.Xauthority"
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if host == "" || host == "unix" || host == "localhost" {
		host, _ = os.Hostname()
	}
	r := bufio.NewReader(f)
	for {
		var family uint16
		if binary.Read(r, binary.BigEndian, &family) != nil {
			return nil
		}
		var fields [4][]byte // address, display number, auth name, auth data
		for i := range fields {
			if fields[i], err = authField(r); err != nil {
				return nil
			}
		}
		const local, wild = 256, 65535
		addrOK := family == wild || family == local && string(fields[0]) == host
		numOK := len(fields[1]) == 0 || string(fields[1]) == num
		if addrOK && numOK && string(fields[2]) == "MIT-MAGIC-COOKIE-1" && len(fields[3]) == 16 {
			return fields[3]
		}
	}
}

func authField(r io.Reader) ([]byte, error) {
	var n uint16
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

func pad4(n int) int { return (n + 3) &^ 3 }

// setup sends the connection set-up and reads the server's answer.
func (w *wireConn) setup(data []byte) error {
	name := ""
	if data != nil {
		name = "MIT-MAGIC-COOKIE-1"
	}
	buf := make([]byte, 12+pad4(len(name))+pad4(len(data)))
	buf[0] = 'l' // little-endian
	binary.LittleEndian.PutUint16(buf[2:], 11)
	binary.LittleEndian.PutUint16(buf[6:], uint16(len(name)))
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(data)))
	copy(buf[12:], name)
	copy(buf[12+pad4(len(name)):], data)
	if _, err := w.c.Write(buf); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(w.r, head); err != nil {
		return err
	}
	rest := make([]byte, 4*int(binary.LittleEndian.Uint16(head[6:])))
	if _, err := io.ReadFull(w.r, rest); err != nil {
		return err
	}
	switch head[0] {
	case 1:
		return nil
	case 0:
		return fmt.Errorf("refused: %s", rest[:min(int(head[1]), len(rest))])
	default:
		return errors.New("the server asks for more authentication than a magic cookie")
	}
}

// send writes one request.
func (w *wireConn) send(req []byte) error {
	_, err := w.c.Write(req)
	return err
}

// next reads the next reply, event or error: its 32-byte head and, for a
// reply or a generic event, the rest it announces.
func (w *wireConn) next() (head, rest []byte, err error) {
	head = make([]byte, 32)
	if _, err := io.ReadFull(w.r, head); err != nil {
		return nil, nil, err
	}
	const reply, genericEvent = 1, 35
	if head[0] == reply || head[0]&0x7f == genericEvent {
		rest = make([]byte, 4*int(binary.LittleEndian.Uint32(head[4:])))
		if _, err := io.ReadFull(w.r, rest); err != nil {
			return nil, nil, err
		}
	}
	return head, rest, nil
}

func (w *wireConn) close() error { return w.c.Close() }
