package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// Result is what a shell command left behind.
type Result struct {
	Stdout []byte
	Stderr []byte // empty with shell v1, which merges it into Stdout
	Exit   int
}

// Output is stdout and stderr together, for messages.
func (r Result) Output() string {
	return string(bytes.TrimSpace(append(append([]byte{}, r.Stdout...), r.Stderr...)))
}

// Shell v2 packet ids (adb's shell_protocol.h).
const (
	v2Stdin      = 0
	v2Stdout     = 1
	v2Stderr     = 2
	v2Exit       = 3
	v2CloseStdin = 4
)

// maxShellOutput bounds what one command may return (a uiautomator dump is
// well under 1 MB; screenshots go through exec:, not here).
const maxShellOutput = 64 << 20

// Shell runs cmd through the device's /system/bin/sh. With v2 (the shell_v2
// feature, Android 7+) stdout, stderr and the exit code come back
// separately; with v1 stderr is merged and the exit code is read from a
// marker echoed after the command. A stream that ends before the exit code
// is a broken connection (ErrGone when the device went away).
func (s Server) Shell(ctx context.Context, serial string, v2 bool, cmd string) (Result, error) {
	if v2 {
		return s.shellV2(ctx, serial, cmd)
	}
	return s.shellV1(ctx, serial, cmd)
}

func (s Server) shellV2(ctx context.Context, serial, cmd string) (Result, error) {
	st, err := s.Open(ctx, serial, "shell,v2,raw:"+cmd)
	if err != nil {
		return Result{}, err
	}
	defer st.Close()
	s.finite(st)
	// Tell the shell there is no input, as adb does for a command.
	if _, err := st.Write([]byte{v2CloseStdin, 0, 0, 0, 0}); err != nil {
		return Result{}, s.classify(ctx, serial, err)
	}
	var res Result
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(st, hdr[:]); err != nil {
			if err == io.EOF {
				err = errStreamBroken
			}
			return res, s.classify(ctx, serial, fmt.Errorf("shell %q: %w", cmd, err))
		}
		n := binary.LittleEndian.Uint32(hdr[1:])
		if len(res.Stdout)+len(res.Stderr)+int(n) > maxShellOutput {
			return res, fmt.Errorf("shell %q: more than %d bytes of output", cmd, maxShellOutput)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(st, data); err != nil {
			return res, s.classify(ctx, serial, fmt.Errorf("shell %q: %w", cmd, err))
		}
		switch hdr[0] {
		case v2Stdout:
			res.Stdout = append(res.Stdout, data...)
		case v2Stderr:
			res.Stderr = append(res.Stderr, data...)
		case v2Exit:
			if len(data) > 0 {
				res.Exit = int(data[0])
			}
			return res, nil
		}
	}
}

// v1Marker follows a v1 command's output with its exit code.
const v1Marker = ":tandem-exit:"

func (s Server) shellV1(ctx context.Context, serial, cmd string) (Result, error) {
	st, err := s.Open(ctx, serial, "shell:"+cmd+"; echo "+v1Marker+"$?")
	if err != nil {
		return Result{}, err
	}
	defer st.Close()
	s.finite(st)
	out, err := io.ReadAll(io.LimitReader(st, maxShellOutput))
	if err != nil {
		return Result{Stdout: out}, s.classify(ctx, serial, fmt.Errorf("shell %q: %w", cmd, err))
	}
	i := bytes.LastIndex(out, []byte(v1Marker))
	if i < 0 {
		return Result{Stdout: out}, s.classify(ctx, serial, fmt.Errorf("shell %q: %w", cmd, errStreamBroken))
	}
	code, err := strconv.Atoi(string(bytes.TrimSpace(out[i+len(v1Marker):])))
	if err != nil {
		return Result{Stdout: out[:i]}, fmt.Errorf("shell %q: bad exit marker", cmd)
	}
	// Old devices run v1 through a PTY, which turns \n into \r\n.
	return Result{Stdout: bytes.ReplaceAll(out[:i], []byte("\r\n"), []byte("\n")), Exit: code}, nil
}

// Exec runs cmd with the exec: service: raw bytes, no PTY and no shell
// framing, so binary output (a PNG) arrives intact. exec: has no end
// marker; a truncated stream shows up when the caller parses the bytes.
func (s Server) Exec(ctx context.Context, serial, cmd string, limit int64) ([]byte, error) {
	st, err := s.Open(ctx, serial, "exec:"+cmd)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s.finite(st)
	out, err := io.ReadAll(io.LimitReader(st, limit))
	if err != nil {
		return out, s.classify(ctx, serial, fmt.Errorf("exec %q: %w", cmd, err))
	}
	return out, nil
}
