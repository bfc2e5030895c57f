package vphone

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"tandem/vphone/transport"
	"time"
)

// errNoService refuses an OPEN for a service the phone does not offer.
var errNoService = errors.New("vphone: no such service")

// service resolves a service name from an OPEN.
func (p *Phone) service(name string) (transport.Service, error) {
	switch {
	case name == "sync:":
		return p.serveSync, nil
	case strings.HasPrefix(name, "exec:"):
		cmd := strings.TrimPrefix(name, "exec:")
		return func(ctx context.Context, s *transport.Stream) error { return p.serveRaw(ctx, s, cmd) }, nil
	case strings.HasPrefix(name, "shell"):
		opts, cmd, ok := strings.Cut(strings.TrimPrefix(name, "shell"), ":")
		if !ok || opts != "" && !strings.HasPrefix(opts, ",") {
			return nil, errNoService
		}
		v2 := false
		for _, o := range strings.Split(opts, ",") {
			v2 = v2 || o == "v2"
		}
		if v2 {
			if !p.hasFeature("shell_v2") {
				return nil, errNoService
			}
			return func(ctx context.Context, s *transport.Stream) error { return p.serveShellV2(ctx, s, cmd) }, nil
		}
		return func(ctx context.Context, s *transport.Stream) error { return p.serveRaw(ctx, s, cmd) }, nil
	}
	if _, _, ok := parseForward(name); ok {
		h := p.socketHandler(name)
		if h == nil {
			return nil, fmt.Errorf("%w: nothing listens on %s", errNoService, name)
		}
		return func(ctx context.Context, s *transport.Stream) error { return h(ctx, s) }, nil
	}
	return nil, fmt.Errorf("%w: %q", errNoService, name)
}

// latency sleeps the per-command latency switch.
func (p *Phone) latency(ctx context.Context) error {
	d := p.faultsNow().latency
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// serveRaw is `shell:` (v1) and `exec:`: no framing, stderr mixed into
// stdout, no exit status. An empty command is an interactive shell.
func (p *Phone) serveRaw(ctx context.Context, s *transport.Stream, cmd string) error {
	if err := p.latency(ctx); err != nil {
		return err
	}
	if strings.TrimSpace(cmd) == "" {
		return p.interactive(ctx, s, s)
	}
	w := &lockedWriter{w: s}
	p.shell(ctx, s, w, w, s.Drop).Run(cmd)
	return nil
}

// interactive reads command lines from in and answers after a prompt.
func (p *Phone) interactive(ctx context.Context, in io.Reader, out io.Writer) error {
	prompt := p.opts.Device + ":/ $ "
	w := &lockedWriter{w: out}
	sh := p.shell(ctx, bytes.NewReader(nil), w, w, nil)
	if _, err := io.WriteString(w, prompt); err != nil {
		return err
	}
	var line []byte
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		for _, b := range buf[:n] {
			if b != '\n' && b != '\r' {
				line = append(line, b)
				continue
			}
			if b == '\r' {
				continue
			}
			cmd := strings.TrimSpace(string(line))
			line = line[:0]
			if cmd == "exit" {
				return nil
			}
			if cmd != "" {
				sh.Run(cmd)
			}
			if _, err := io.WriteString(w, prompt); err != nil {
				return err
			}
		}
		if err != nil {
			return nil
		}
	}
}

// Shell protocol v2 packet ids.
const (
	v2Stdin      = 0
	v2Stdout     = 1
	v2Stderr     = 2
	v2Exit       = 3
	v2CloseStdin = 4
	v2Winsize    = 5
)

// v2Writer frames writes as shell v2 packets of one id.
type v2Writer struct {
	mu *sync.Mutex
	s  *transport.Stream
	id byte
}

func (w *v2Writer) Write(b []byte) (int, error) {
	max := w.s.MaxData() - 5
	n := 0
	for len(b) > 0 {
		c := min(len(b), max)
		pk := make([]byte, 5+c)
		pk[0] = w.id
		binary.LittleEndian.PutUint32(pk[1:], uint32(c))
		copy(pk[5:], b[:c])
		w.mu.Lock()
		_, err := w.s.Write(pk)
		w.mu.Unlock()
		if err != nil {
			return n, err
		}
		n += c
		b = b[c:]
	}
	return n, nil
}

// serveShellV2 runs one command with v2 framing: stdout and stderr apart,
// then the exit status.
func (p *Phone) serveShellV2(ctx context.Context, s *transport.Stream, cmd string) error {
	var mu sync.Mutex
	stdout := &v2Writer{mu: &mu, s: s, id: v2Stdout}
	stderr := &v2Writer{mu: &mu, s: s, id: v2Stderr}
	stdinR, stdinW := io.Pipe()
	go demuxV2(s, stdinW)
	defer stdinR.Close()
	if err := p.latency(ctx); err != nil {
		return err
	}
	var status int
	if strings.TrimSpace(cmd) == "" {
		if err := p.interactive(ctx, stdinR, stdout); err != nil {
			return err
		}
	} else {
		status = p.shell(ctx, stdinR, stdout, stderr, s.Drop).Run(cmd)
	}
	mu.Lock()
	defer mu.Unlock()
	_, err := s.Write([]byte{v2Exit, 1, 0, 0, 0, byte(status)})
	return err
}

// demuxV2 reads the host's v2 packets and passes stdin on.
func demuxV2(r io.Reader, stdin *io.PipeWriter) {
	var h [5]byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			stdin.Close()
			return
		}
		n := binary.LittleEndian.Uint32(h[1:])
		if n > transport.HardMaxData {
			stdin.CloseWithError(transport.ErrBadPacket)
			return
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(r, data); err != nil {
			stdin.Close()
			return
		}
		switch h[0] {
		case v2Stdin:
			if _, err := stdin.Write(data); err != nil {
				return
			}
		case v2CloseStdin:
			stdin.Close()
		}
	}
}

// lockedWriter serialises writes from stdout and stderr to one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// parseForward splits "tcp:8080" or "localabstract:name" into its kind and name.
func parseForward(service string) (kind, name string, ok bool) {
	kind, name, ok = strings.Cut(service, ":")
	if !ok {
		return "", "", false
	}
	switch kind {
	case "tcp":
		if _, err := strconv.Atoi(name); err != nil {
			return "", "", false
		}
		return kind, name, true
	case "localabstract", "localreserved", "localfilesystem":
		return kind, name, name != ""
	}
	return "", "", false
}
