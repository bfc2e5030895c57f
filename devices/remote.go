package devices

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"tandem/devices/adb"
	"tandem/engine/device"
)

// Phones on other computers. A rack of phones usually hangs off another
// host, whose adb server listens on the network (`adb -a nodaemon server`)
// or is tunnelled here; the registry lists its phones beside the local
// server's. A phone's ID must stay unique across hosts (two servers may
// each have an emulator-5554), and the local server's IDs must stay as they
// were (records and settings name them): a phone on another server is
// SERIAL@HOST:PORT, its server's address after the last "@" (adb serials
// carry none), and a local phone is its bare serial.

// remoteTimeout bounds listing one other computer's phones, so a host
// that does not answer never holds up the list.
const remoteTimeout = 8 * time.Second

// NormalizeServer returns an adb server's address as host:port (a host
// alone gets adb's port, 5037), or why it is not one, in words.
func NormalizeServer(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	host, port, err := net.SplitHostPort(addr)
	if err != nil { // a host alone: adb's own port
		host, port = strings.Trim(addr, "[]"), strconv.Itoa(adb.DefaultPort)
	}
	n, perr := strconv.Atoi(port)
	if host == "" || strings.ContainsAny(host, " \t/@") || perr != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("%q is not an adb server's address: write it as host:port, like 192.168.1.30:5037", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// SplitID splits a device ID into the phone's serial and the address of
// the other computer's adb server it is on ("" for the local server).
func SplitID(id string) (serial, host string) {
	i := strings.LastIndex(id, "@")
	if i <= 0 {
		return id, ""
	}
	if _, _, err := net.SplitHostPort(id[i+1:]); err != nil {
		return id, ""
	}
	return id[:i], id[i+1:]
}

// RemoteError is what went wrong listing the phones of another computer's
// adb server.
type RemoteError struct {
	Host string // the server's address as given
	Err  error
}

func (e *RemoteError) Error() string {
	switch e.code() {
	case "host_down":
		return fmt.Sprintf("phones on %s: nothing answers there; on that computer, start adb's server for the network (adb -a -P PORT nodaemon server) and let its port through the firewall", e.Host)
	case "host_silent":
		return fmt.Sprintf("phones on %s: no answer within %s; is that computer on, and the address right?", e.Host, remoteTimeout)
	case "host_unknown":
		host, _, _ := net.SplitHostPort(e.Host)
		return fmt.Sprintf("phones on %s: no computer is called %s; check the name, or give its IP address", e.Host, host)
	}
	return fmt.Sprintf("phones on %s: %v", e.Host, e.Err)
}

// code names what went wrong for the UI's words (Entry.ProblemCode).
func (e *RemoteError) code() string {
	var ne net.Error
	var dns *net.DNSError
	var silent *adb.SilentError
	switch {
	case errors.Is(e.Err, adb.ErrNoServer):
		return "host_down"
	case errors.As(e.Err, &dns) && dns.IsNotFound:
		return "host_unknown"
	case errors.Is(e.Err, context.DeadlineExceeded), errors.As(e.Err, &silent), errors.As(e.Err, &ne) && ne.Timeout():
		return "host_silent"
	}
	return ""
}

func (e *RemoteError) Unwrap() error { return e.Err }

// entry is the host as the list shows it while its phones cannot be
// listed: a line that says so, which no run can start on.
func (e *RemoteError) entry() Entry {
	de := Entry{ID: "@" + e.Host, Name: "adb server at " + e.Host, Kind: device.Phone, State: "unavailable", Host: e.Host,
		Problem: e.Error(), ProblemParam: e.Host, ProblemCode: e.code()}
	return de
}

// SetRemote gives the registry the other computers' adb servers: list is
// asked each time (the person's settings may change them meanwhile).
func (d *Registry) SetRemote(list func() []string) {
	d.mu.Lock()
	d.remote = list
	d.mu.Unlock()
}

// remotes returns the other computers' servers, normalized, without the
// local one and without repeats; an address that is not one comes back
// as its error.
func (d *Registry) remotes() (hosts []string, errs []error) {
	d.mu.Lock()
	list := d.remote
	d.mu.Unlock()
	if list == nil {
		return nil, nil
	}
	local, _ := NormalizeServer(d.adb.Addr)
	if d.adb.Addr == "" {
		local = adb.DefaultAddr
	}
	for _, a := range list() {
		h, err := NormalizeServer(a)
		switch {
		case err != nil:
			errs = append(errs, err)
		case h != local && !slices.Contains(hosts, h):
			hosts = append(hosts, h)
		}
	}
	return hosts, errs
}

// Phone returns the adb server and serial of the phone with this ID, and
// where the driver keeps its crash-safe state for it.
func (d *Registry) Phone(id string) (srv adb.Server, serial, stateDir string, err error) {
	serial, host := SplitID(id)
	if host == "" {
		return d.adb, id, d.stateDir, nil
	}
	hosts, _ := d.remotes()
	if !slices.Contains(hosts, host) {
		return adb.Server{}, "", "", fmt.Errorf("%s is a phone on the adb server at %s, which is not one of yours: add it in Settings (or --adb %s)", id, host, host)
	}
	return adb.Server{Addr: host}, serial, d.remoteState(host), nil
}

// remoteState keeps another computer's phones' keyboard notes apart from
// the local ones (their serials may be the same).
func (d *Registry) remoteState(host string) string {
	if d.stateDir == "" {
		return ""
	}
	return filepath.Join(d.stateDir, "hosts", strings.NewReplacer(":", "_", "[", "", "]", "").Replace(host))
}

// remotePhones lists every other computer's phones at once, each host
// within remoteTimeout; a host that fails is one error, worded for the
// person, and one line in the list saying so (the window shows the list,
// not the errors), and hides no other host's phones.
func (d *Registry) remotePhones(ctx context.Context) (out []Entry, errs []error, hosts int) {
	list, errs := d.remotes()
	lists := make([][]Entry, len(list))
	fails := make([]error, len(list))
	var wg sync.WaitGroup
	for i, host := range list {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
			defer cancel()
			srv := adb.Server{Addr: host}
			entries, err := srv.Devices(ctx)
			if err != nil {
				re := &RemoteError{Host: host, Err: err}
				fails[i], lists[i] = re, []Entry{re.entry()}
				return
			}
			for _, e := range sortBySerial(entries) {
				lists[i] = append(lists[i], d.phone(ctx, srv, host, e))
			}
		})
	}
	wg.Wait()
	for i := range list {
		out = append(out, lists[i]...)
		if fails[i] != nil {
			errs = append(errs, fails[i])
		}
	}
	return out, errs, len(list) + len(errs)
}

// watchRemote tells fn the new list when another computer's phones come,
// go or change state: those servers are asked every few seconds (a
// tracking connection to each would hold a socket open across the
// network for as long as the app runs).
func (d *Registry) watchRemote(ctx context.Context, fn func([]Entry)) {
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(3 * time.Second):
		}
		if hosts, errs := d.remotes(); len(hosts) == 0 && len(errs) == 0 && last == "" {
			continue
		}
		list, err := d.List(ctx)
		var b strings.Builder
		for _, e := range list {
			if _, host := SplitID(e.ID); host != "" {
				fmt.Fprintf(&b, "%s %s\n", e.ID, e.State)
			}
		}
		if err != nil {
			b.WriteString(err.Error())
		}
		if sig := b.String(); sig != last {
			last = sig
			fn(list)
		}
	}
}
