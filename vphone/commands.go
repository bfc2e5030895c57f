package vphone

import (
	"bytes"
	"fmt"
	"strings"
)

// command is one shell command of the phone.
type command func(p *Phone, c *cmdIO, args []string) int

// commands is the phone's /system/bin, by exact name.
func commands() map[string]command {
	return map[string]command{
		"echo": cmdEcho, "sleep": cmdSleep, "true": cmdTrue, "false": cmdFalse,
		"cat": cmdCat, "rm": cmdRm, "ls": cmdLs, "mkdir": cmdMkdir,
		"grep": cmdGrep, "head": cmdHead, "tail": cmdTail, "wc": cmdWc,
		"getprop": cmdGetprop, "wm": cmdWm, "settings": cmdSettings, "ime": cmdIme,
		"am": cmdAm, "monkey": cmdMonkey, "pm": cmdPm, "cmd": cmdCmd, "dumpsys": cmdDumpsys,
		"input": cmdInput, "screencap": cmdScreencap, "uiautomator": cmdUiautomator,
		"id": cmdID, "whoami": cmdWhoami,
		"screenrecord": cmdScreenrecord, "app_process": cmdAppProcess,
	}
}

func (p *Phone) runCommand(c *cmdIO, args []string) int {
	name := args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 && strings.HasPrefix(name, "/system/bin/") {
		name = name[i+1:]
	}
	fn, ok := p.cmds[name]
	if !ok {
		fmt.Fprintf(c.err, "/system/bin/sh: %s: inaccessible or not found\n", args[0])
		return 127
	}
	if name == "screencap" || name == "cat" || name == "sleep" || name == "screenrecord" || name == "app_process" {
		return fn(p, c, args[1:]) // big or slow output goes straight out
	}
	// Commands write while holding the phone's lock; buffering keeps a slow
	// host from stalling the phone, and flushes after the lock is released.
	out, errOut := c.out, c.err
	var bo, be bytes.Buffer
	bc := *c
	bc.out, bc.err = &bo, &be
	if out == errOut {
		bc.err = &bo
	}
	status := fn(p, &bc, args[1:])
	out.Write(bo.Bytes())
	if be.Len() > 0 {
		errOut.Write(be.Bytes())
	}
	return status
}
