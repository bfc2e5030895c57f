package adb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/electricbubble/gadb"
)

// Entry is one line of `adb devices -l`.
type Entry struct {
	Serial      string `json:"serial"`
	State       string `json:"state"` // device, offline, unauthorized, no permissions ...
	Product     string `json:"product,omitempty"`
	Model       string `json:"model,omitempty"`
	Device      string `json:"device,omitempty"`
	TransportID string `json:"transport_id,omitempty"`
}

// Online reports whether the device can be used.
func (e Entry) Online() bool { return e.State == "device" }

// Devices lists the devices the server knows, in every state (unlike gadb's
// DeviceList, which drops offline and attribute-less lines).
func (s Server) Devices(ctx context.Context) ([]Entry, error) {
	out, err := s.Query(ctx, "host:devices-l")
	if err != nil {
		return nil, err
	}
	return parseDevices(out), nil
}

// maxDevices is the most phones one adb server's list is read for (a
// large USB rack has a few dozen); maxDeviceLine the longest line (a
// serial, a state and four attributes take well under a hundred bytes).
const (
	maxDevices    = 256
	maxDeviceLine = 512
)

// parseDevices reads host:devices-l (or host:devices / track-devices) output.
// The state may contain spaces ("no permissions (...)"), so attributes are
// recognised by their key rather than by position.
//
// The list is bounded: a server that repeats a serial, sends a line no
// server writes, or more phones than one server carries (maxDevices) is
// cut there, so a hostile or broken server costs a bounded list.
func parseDevices(out string) []Entry {
	var list []Entry
	seen := map[string]bool{}
	for line := range strings.SplitSeq(out, "\n") {
		if len(list) == maxDevices {
			break
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(line) > maxDeviceLine || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		e := Entry{Serial: f[0]}
		var state []string
		for _, tok := range f[1:] {
			k, v, ok := strings.Cut(tok, ":")
			switch {
			case ok && k == "product":
				e.Product = v
			case ok && k == "model":
				e.Model = v
			case ok && k == "device":
				e.Device = v
			case ok && k == "transport_id":
				e.TransportID = v
			case ok && (k == "usb" || k == "features"):
			default:
				if e.Product == "" && e.Model == "" && e.TransportID == "" {
					state = append(state, tok)
				}
			}
		}
		e.State = strings.Join(state, " ")
		list = append(list, e)
	}
	return list
}

// Track calls fn with the full device list now and each time a device comes,
// goes or changes state (host:track-devices), until ctx ends or the server
// goes away. It returns ctx.Err() when cancelled.
func (s Server) Track(ctx context.Context, fn func([]Entry)) error {
	c, err := s.request(ctx, "host:track-devices")
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		out, err := c.readString()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("adb track-devices: %w", err)
		}
		fn(parseDevices(out))
	}
}

// ErrConnect is returned when `adb connect` did not give a usable device.
var ErrConnect = errors.New("adb connect failed")

// pairingHint explains the Android 11+ wireless debugging trap.
const pairingHint = "Android 11+ \"Wireless debugging\" needs pairing first (`adb pair`), which " +
	"this adb (Debian's 29.x) cannot do. Instead: plug the phone in by USB once, allow USB " +
	"debugging, run `adb tcpip 5555`, unplug it and connect to <phone-ip>:5555"

// Connect asks the server to connect to a phone over TCP ("ip" or
// "ip:port"; port 5555 by default), like `adb connect`, and returns its
// serial once it is online.
func (s Server) Connect(ctx context.Context, addr string) (string, error) {
	host, port, err := splitHostPort(addr)
	if err != nil {
		return "", err
	}
	cl, err := s.gadb(ctx)
	if err != nil {
		return "", err
	}
	if err := withContext(ctx, func() error { return cl.Connect(host, port) }); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w: %s: %v\n%s", ErrConnect, addr, err, pairingHint)
	}
	serial := net.JoinHostPort(host, strconv.Itoa(port))
	st, err := s.State(ctx, serial)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v\n%s", ErrConnect, serial, err, pairingHint)
	}
	if st != "device" {
		return serial, fmt.Errorf("%w: %s is %s\n%s", ErrConnect, serial, st, pairingHint)
	}
	return serial, nil
}

// Disconnect drops a TCP device ("ip:port").
func (s Server) Disconnect(ctx context.Context, addr string) error {
	host, port, err := splitHostPort(addr)
	if err != nil {
		return err
	}
	cl, err := s.gadb(ctx)
	if err != nil {
		return err
	}
	return withContext(ctx, func() error { return cl.Disconnect(host, port) })
}

func splitHostPort(addr string) (string, int, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", 0, fmt.Errorf("%w: empty address; want ip or ip:port", ErrConnect)
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, gadb.AdbDaemonPort, nil
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("%w: bad port in %q", ErrConnect, addr)
	}
	return host, port, nil
}

// gadb returns a gadb client for this server. gadb covers the simple host
// calls; it takes no context, so its calls run under withContext.
func (s Server) gadb(ctx context.Context) (gadb.Client, error) {
	host, p, err := net.SplitHostPort(s.addr())
	if err != nil {
		return gadb.Client{}, fmt.Errorf("adb server address %q: %w", s.addr(), err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return gadb.Client{}, fmt.Errorf("adb server address %q: bad port", s.addr())
	}
	if _, err := s.Version(ctx); err != nil {
		return gadb.Client{}, err
	}
	var cl gadb.Client
	err = withContext(ctx, func() (err error) { cl, err = gadb.NewClientWith(host, port); return err })
	return cl, err
}

// withContext runs a call that cannot be cancelled (gadb's) and returns when
// it finishes or ctx ends, whichever is first. An abandoned call finishes on
// its own, bounded by gadb's read timeout; the caller does not wait for it.
func withContext(ctx context.Context, call func() error) error {
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
