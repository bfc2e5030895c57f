package vphone

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"tandem/vphone/shell"
)

// command is one shell command of the phone.
type command func(p *Phone, c *shell.IO, args []string) int

// commands is the phone's /system/bin, by exact name.
func commands() map[string]command {
	return map[string]command{
		"echo": cmdEcho, "sleep": cmdSleep, "true": cmdTrue, "false": cmdFalse,
		"cat": cmdCat, "rm": cmdRm, "ls": cmdLs, "mkdir": cmdMkdir,
		"grep": cmdGrep, "head": cmdHead, "tail": cmdTail, "wc": cmdWc,
		"getprop": cmdGetprop, "wm": cmdWm, "settings": cmdSettings, "ime": cmdIme,
		"am": cmdAm, "monkey": cmdMonkey, "pm": cmdPm, "cmd": cmdCmd, "dumpsys": cmdDumpsys,
		"input": cmdInput, "screencap": cmdScreencap, "uiautomator": cmdUiautomator,
		"id": cmdID, "whoami": cmdWhoami, "content": cmdContent, "cksum": cmdCksum,
		"screenrecord": cmdScreenrecord, "app_process": cmdAppProcess,
	}
}

// shell is a shell on this phone: its commands and its files.
func (p *Phone) shell(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, drop func()) *shell.Shell {
	return shell.New(ctx, p.runCommand, phoneFiles{p.fs}, stdin, stdout, stderr, drop)
}

// phoneFiles are the phone's files as the shell's redirections see them,
// failing with the toolbox's words.
type phoneFiles struct{ fs *memFS }

func (f phoneFiles) Read(path string) ([]byte, error) {
	data, err := f.fs.read(path)
	if err != nil {
		return nil, errors.New(errText(err))
	}
	return data, nil
}

func (f phoneFiles) Write(path string, data []byte, appendTo bool) error {
	if err := f.fs.write(path, data, 0o644, appendTo); err != nil {
		return errors.New(errText(err))
	}
	return nil
}

func (p *Phone) runCommand(c *shell.IO, args []string) int {
	name := args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 && strings.HasPrefix(name, "/system/bin/") {
		name = name[i+1:]
	}
	fn, ok := p.cmds[name]
	if !ok {
		fmt.Fprintf(c.Err, "/system/bin/sh: %s: inaccessible or not found\n", args[0])
		return 127
	}
	if name == "screencap" || name == "cat" || name == "sleep" || name == "screenrecord" || name == "app_process" {
		return fn(p, c, args[1:]) // big or slow output goes straight out
	}
	// Commands write while holding the phone's lock; buffering keeps a slow
	// host from stalling the phone, and flushes after the lock is released.
	out, errOut := c.Out, c.Err
	var bo, be bytes.Buffer
	bc := *c
	bc.Out, bc.Err = &bo, &be
	if out == errOut {
		bc.Err = &bo
	}
	status := fn(p, &bc, args[1:])
	out.Write(bo.Bytes())
	if be.Len() > 0 {
		errOut.Write(be.Bytes())
	}
	return status
}
