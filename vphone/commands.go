package vphone

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

func cmdTrue(*Phone, *cmdIO, []string) int  { return 0 }
func cmdFalse(*Phone, *cmdIO, []string) int { return 1 }

func cmdID(_ *Phone, c *cmdIO, _ []string) int {
	fmt.Fprintln(c.out, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),3003(inet) context=u:r:shell:s0")
	return 0
}

func cmdWhoami(_ *Phone, c *cmdIO, _ []string) int {
	fmt.Fprintln(c.out, "shell")
	return 0
}

func cmdEcho(_ *Phone, c *cmdIO, args []string) int {
	nl, esc := true, false
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-ne" || args[0] == "-en") {
		nl = nl && !strings.Contains(args[0], "n")
		esc = esc || strings.Contains(args[0], "e")
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if esc {
		s = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(s)
	}
	if nl {
		s += "\n"
	}
	io.WriteString(c.out, s)
	return 0
}

func cmdSleep(_ *Phone, c *cmdIO, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(c.err, "sleep: Need 1 argument")
		return 1
	}
	sec, err := strconv.ParseFloat(args[0], 64)
	if err != nil || sec < 0 || math.IsInf(sec, 0) {
		fmt.Fprintf(c.err, "sleep: bad duration '%s'\n", args[0])
		return 1
	}
	t := time.NewTimer(time.Duration(sec * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-c.ctx.Done():
		return 130
	}
}

func cmdCat(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 || len(args) == 1 && args[0] == "-" {
		io.Copy(c.out, c.in)
		return 0
	}
	status := 0
	for _, a := range args {
		data, err := p.fs.read(a)
		if err != nil {
			fmt.Fprintf(c.err, "cat: %s: %s\n", a, errText(err))
			status = 1
			continue
		}
		c.out.Write(data)
	}
	return status
}

func cmdRm(p *Phone, c *cmdIO, args []string) int {
	force, status := false, 0
	var files []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-") && len(a) > 1:
			force = force || strings.Contains(a, "f")
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 && !force {
		fmt.Fprintln(c.err, "rm: Needs 1 argument")
		return 1
	}
	for _, f := range files {
		if err := p.fs.remove(f); err != nil && !(force && !p.fs.isDir(f)) {
			fmt.Fprintf(c.err, "rm: %s: %s\n", f, errText(err))
			status = 1
		}
	}
	return status
}

func cmdLs(p *Phone, c *cmdIO, args []string) int {
	long := false
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			long = long || strings.Contains(a, "l")
			continue
		}
		paths = append(paths, a)
	}
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	status := 0
	for _, pa := range paths {
		st, err := p.fs.stat(pa)
		if err != nil {
			fmt.Fprintf(c.err, "ls: %s: %s\n", pa, errText(err))
			status = 1
			continue
		}
		entries := []fileInfo{st}
		if st.mode&0o40000 != 0 {
			entries, _ = p.fs.list(pa)
		} else {
			entries[0].name = pa
		}
		for _, e := range entries {
			if long {
				kind := "-rw-rw----"
				if e.mode&0o40000 != 0 {
					kind = "drwxrwx--x"
				}
				fmt.Fprintf(c.out, "%s 1 shell shell %d %s %s\n", kind, e.size, e.mtime.Format("2006-01-02 15:04"), e.name)
			} else {
				fmt.Fprintln(c.out, e.name)
			}
		}
	}
	return status
}

func cmdMkdir(p *Phone, _ *cmdIO, args []string) int {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			p.fs.mkdirAll(a)
		}
	}
	return 0
}

// breToRE turns a basic regular expression into Go syntax: in BRE,
// ( ) { } | + ? are literal and their backslashed forms are operators.
func breToRE(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			n := s[i+1]
			if strings.IndexByte("(){}|+?", n) >= 0 {
				b.WriteByte(n)
			} else {
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			i++
			continue
		}
		if strings.IndexByte("(){}|+?", ch) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(ch)
	}
	return b.String()
}

func cmdGrep(p *Phone, c *cmdIO, args []string) int {
	var ext, fixed, icase, only, invert, count, quiet, word bool
	var patterns, files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-e" && i+1 < len(args) {
			patterns = append(patterns, args[i+1])
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && a != "--" {
			for _, f := range a[1:] {
				switch f {
				case 'E':
					ext = true
				case 'F':
					fixed = true
				case 'i':
					icase = true
				case 'o':
					only = true
				case 'v':
					invert = true
				case 'c':
					count = true
				case 'q':
					quiet = true
				case 'w':
					word = true
				default:
					fmt.Fprintf(c.err, "grep: Unknown option '%c'\n", f)
					return 2
				}
			}
			continue
		}
		if len(patterns) == 0 {
			patterns = append(patterns, a)
		} else {
			files = append(files, a)
		}
	}
	if len(patterns) == 0 {
		fmt.Fprintln(c.err, "grep: Need 1 argument")
		return 2
	}
	var alts []string
	for _, pat := range patterns {
		switch {
		case fixed:
			pat = regexp.QuoteMeta(pat)
		case !ext:
			pat = breToRE(pat)
		}
		if word {
			pat = `\b(?:` + pat + `)\b`
		}
		alts = append(alts, "(?:"+pat+")")
	}
	expr := strings.Join(alts, "|")
	if icase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		fmt.Fprintf(c.err, "grep: bad regex '%s': %v\n", strings.Join(patterns, " "), err)
		return 2
	}
	var input []byte
	if len(files) == 0 {
		input, _ = io.ReadAll(c.in)
	} else {
		for _, f := range files {
			data, err := p.fs.read(f)
			if err != nil {
				fmt.Fprintf(c.err, "grep: %s: %s\n", f, errText(err))
				continue
			}
			input = append(input, data...)
		}
	}
	matches := 0
	sc := bufio.NewScanner(bytes.NewReader(input))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		hit := re.MatchString(line)
		if hit == invert {
			continue
		}
		matches++
		switch {
		case quiet || count:
		case only && !invert:
			for _, m := range re.FindAllString(line, -1) {
				if m != "" {
					fmt.Fprintln(c.out, m)
				}
			}
		default:
			fmt.Fprintln(c.out, line)
		}
	}
	if count {
		fmt.Fprintln(c.out, matches)
	}
	if matches == 0 {
		return 1
	}
	return 0
}

func lineCount(args []string) (int, []string, error) {
	n := 10
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-n" && i+1 < len(args):
			v, err := strconv.Atoi(args[i+1])
			if err != nil {
				return 0, nil, err
			}
			n = v
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
			v, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(a, "-n"), "-"))
			if err != nil {
				return 0, nil, err
			}
			n = v
		default:
			rest = append(rest, a)
		}
	}
	return n, rest, nil
}

func readInput(p *Phone, c *cmdIO, files []string) ([]string, error) {
	var data []byte
	if len(files) == 0 {
		data, _ = io.ReadAll(c.in)
	}
	for _, f := range files {
		d, err := p.fs.read(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", f, errText(err))
		}
		data = append(data, d...)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

func cmdHead(p *Phone, c *cmdIO, args []string) int { return headTail(p, c, args, "head") }
func cmdTail(p *Phone, c *cmdIO, args []string) int { return headTail(p, c, args, "tail") }

func headTail(p *Phone, c *cmdIO, args []string, name string) int {
	n, files, err := lineCount(args)
	if err != nil {
		fmt.Fprintf(c.err, "%s: bad -n\n", name)
		return 1
	}
	lines, err := readInput(p, c, files)
	if err != nil {
		fmt.Fprintf(c.err, "%s: %v\n", name, err)
		return 1
	}
	if name == "head" {
		lines = lines[:min(n, len(lines))]
	} else {
		lines = lines[max(0, len(lines)-n):]
	}
	for _, l := range lines {
		fmt.Fprintln(c.out, l)
	}
	return 0
}

func cmdWc(p *Phone, c *cmdIO, args []string) int {
	var files []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
		}
	}
	lines, err := readInput(p, c, files)
	if err != nil {
		fmt.Fprintf(c.err, "wc: %v\n", err)
		return 1
	}
	fmt.Fprintln(c.out, len(lines))
	return 0
}

func cmdGetprop(p *Phone, c *cmdIO, args []string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(args) == 0 {
		keys := make([]string, 0, len(p.props))
		for k := range p.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(c.out, "[%s]: [%s]\n", k, p.props[k])
		}
		return 0
	}
	v, ok := p.props[args[0]]
	if !ok && len(args) > 1 {
		v = args[1]
	}
	fmt.Fprintln(c.out, v)
	return 0
}

func cmdWm(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.err, "Window manager (window) commands:\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n  density [reset|DENSITY] [-d DISPLAY_ID]")
		return 255
	}
	switch {
	case args[0] == "size" && (len(args) == 1 || args[1] == "reset"):
		if len(args) == 1 {
			fmt.Fprintf(c.out, "Physical size: %dx%d\n", p.opts.Width, p.opts.Height)
		}
		return 0
	case args[0] == "density" && (len(args) == 1 || args[1] == "reset"):
		if len(args) == 1 {
			fmt.Fprintf(c.out, "Physical density: %d\n", p.opts.Density)
		}
		return 0
	case args[0] == "size" || args[0] == "density":
		fmt.Fprintf(c.err, "Error: this virtual phone has a fixed %s\n", args[0])
		return 255
	}
	fmt.Fprintf(c.err, "Unknown command: %s\n", args[0])
	return 255
}

// settingKey maps "secure default_input_method" to the phone's store.
func settingKey(ns, key string) string { return ns + "/" + key }

func cmdSettings(p *Phone, c *cmdIO, args []string) int {
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		args = args[1:]
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "get" && args[0] != "put" && args[0] != "list" && args[0] != "delete" {
			args = args[1:] // --user N
		}
	}
	if len(args) < 2 {
		fmt.Fprintln(c.err, "Settings provider (settings) commands:\n  get [--user <USER_ID> | current] NAMESPACE KEY\n  put [--user <USER_ID> | current] NAMESPACE KEY VALUE\n  delete NAMESPACE KEY\n  list NAMESPACE")
		return 255
	}
	verb, ns := args[0], args[1]
	if ns != "system" && ns != "secure" && ns != "global" {
		fmt.Fprintf(c.err, "Invalid namespace '%s'\n", ns)
		return 255
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.syncIMESettings()
	switch verb {
	case "get":
		if len(args) < 3 {
			break
		}
		v, ok := p.settings[settingKey(ns, args[2])]
		if !ok {
			v = "null"
		}
		fmt.Fprintln(c.out, v)
		return 0
	case "put":
		if len(args) < 4 {
			break
		}
		key := settingKey(ns, args[2])
		p.settings[key] = args[3]
		switch key {
		case "system/user_rotation", "system/accelerometer_rotation":
			p.syncRotation()
		case "secure/default_input_method":
			p.ime = args[3]
			p.m.changed()
		case "secure/enabled_input_methods":
			p.imes = map[string]bool{}
			for _, id := range strings.Split(args[3], ":") {
				if id != "" {
					p.imes[id] = true
				}
			}
		}
		return 0
	case "delete":
		if len(args) < 3 {
			break
		}
		delete(p.settings, settingKey(ns, args[2]))
		fmt.Fprintln(c.out, "Deleted 1 rows")
		return 0
	case "list":
		var keys []string
		for k := range p.settings {
			if strings.HasPrefix(k, ns+"/") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(c.out, "%s=%s\n", strings.TrimPrefix(k, ns+"/"), p.settings[k])
		}
		return 0
	}
	fmt.Fprintf(c.err, "Invalid command: %s\n", verb)
	return 255
}

// syncIMESettings mirrors the input-method state into the settings store.
func (p *Phone) syncIMESettings() {
	p.settings["secure/default_input_method"] = p.ime
	var ids []string
	for id := range p.imes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	p.settings["secure/enabled_input_methods"] = strings.Join(ids, ":")
}

// installedIMEs lists the input methods on the phone.
func (p *Phone) installedIMEs() []string {
	if p.opts.NoADBKeyboard {
		return []string{IMELatin}
	}
	return []string{IMEADB, IMELatin}
}

func (p *Phone) imeInstalled(id string) bool {
	for _, x := range p.installedIMEs() {
		if x == id {
			return true
		}
	}
	return false
}

func cmdIme(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.err, "ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n  reset")
		return 255
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch args[0] {
	case "list":
		all, short := false, false
		for _, a := range args[1:] {
			all = all || strings.Contains(a, "a") && strings.HasPrefix(a, "-")
			short = short || strings.Contains(a, "s") && strings.HasPrefix(a, "-")
		}
		for _, id := range p.installedIMEs() {
			if !all && !p.imes[id] {
				continue
			}
			if short {
				fmt.Fprintln(c.out, id)
				continue
			}
			pkg, _, _ := strings.Cut(id, "/")
			fmt.Fprintf(c.out, "%s:\n  mId=%s mSettingsActivityName=null\n  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name=%s\n      packageName=%s\n      enabled=true exported=true directBootAware=false\n      permission=android.permission.BIND_INPUT_METHOD\n",
				id, id, strings.Replace(id, "/.", "/"+pkg+".", 1)[len(pkg)+1:], pkg)
		}
		return 0
	case "enable", "disable", "set":
		ids := args[1:]
		for len(ids) > 1 && ids[0] == "--user" {
			ids = ids[2:]
		}
		if len(ids) != 1 {
			fmt.Fprintf(c.err, "Error: exactly one input method id is needed for %s\n", args[0])
			return 255
		}
		id := ids[0]
		if !p.imeInstalled(id) {
			verb := map[string]string{"enable": "enabled", "disable": "disabled", "set": "selected"}[args[0]]
			fmt.Fprintf(c.err, "Unknown input method %s cannot be %s for user #0\n", id, verb)
			return 255
		}
		switch args[0] {
		case "enable":
			state := "now"
			if p.imes[id] {
				state = "already"
			}
			p.imes[id] = true
			fmt.Fprintf(c.out, "Input method %s: %s enabled\n", id, state)
		case "disable":
			state := "now"
			if !p.imes[id] {
				state = "already"
			}
			delete(p.imes, id)
			if p.ime == id {
				p.imes[IMELatin] = true
				p.ime = IMELatin
			}
			fmt.Fprintf(c.out, "Input method %s: %s disabled\n", id, state)
		case "set":
			if !p.imes[id] {
				fmt.Fprintf(c.err, "Unknown input method %s cannot be selected for user #0\n", id)
				return 255
			}
			p.ime = id
			fmt.Fprintf(c.out, "Input method %s selected for user #0\n", id)
		}
		p.syncIMESettings()
		p.m.changed()
		return 0
	case "reset":
		p.imes = map[string]bool{IMELatin: true}
		p.ime = IMELatin
		p.syncIMESettings()
		fmt.Fprintf(c.out, "Reset current and enabled IMEs for user #0\n  Selected: %s\n", IMELatin)
		return 0
	}
	fmt.Fprintf(c.err, "Unknown command: %s\n", args[0])
	return 255
}

// shortComponent writes "pkg/.Act" when the activity is inside the package.
func shortComponent(pkg, activity string) string {
	if rest, ok := strings.CutPrefix(activity, pkg+"."); ok {
		return pkg + "/." + rest
	}
	return pkg + "/" + activity
}

// resolveComponent finds the app for "pkg/.Act" or "pkg/pkg.Act".
func (p *Phone) resolveComponent(comp string) (App, bool) {
	pkg, act, ok := strings.Cut(comp, "/")
	if !ok {
		return App{}, false
	}
	if strings.HasPrefix(act, ".") {
		act = pkg + act
	}
	a, found := p.m.app(pkg)
	if !found || a.Activity != act || pkg == PkgLauncher {
		return App{}, false
	}
	return a, true
}

func cmdAm(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.err, "Activity manager (activity) commands:\n  start [-W] [-S] -n <COMPONENT> | -a <ACTION> [-d <DATA>]\n  force-stop <PACKAGE>\n  broadcast -a <ACTION> [--es <KEY> <VALUE>]")
		return 255
	}
	switch args[0] {
	case "start", "start-activity":
		return amStart(p, c, args[1:])
	case "force-stop", "kill":
		if len(args) < 2 {
			fmt.Fprintln(c.err, "Error: no package specified")
			return 255
		}
		pkg := args[len(args)-1]
		p.mu.Lock()
		p.record("force_stop", args[1:], 0, 0)
		if _, ok := p.m.app(pkg); ok && pkg != PkgLauncher {
			p.m.forceStop(pkg)
		}
		p.mu.Unlock()
		return 0
	case "broadcast":
		return amBroadcast(p, c, args[1:])
	}
	fmt.Fprintf(c.err, "Unknown command: %s\n", args[0])
	return 255
}

func amStart(p *Phone, c *cmdIO, args []string) int {
	var comp, act, data, wait string
	var cats []string
	for i := 0; i < len(args); i++ {
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch args[i] {
		case "-n":
			comp = next()
		case "-a":
			act = next()
		case "-d":
			data = next()
		case "-c":
			cats = append(cats, next())
		case "-W":
			wait = "yes"
		case "--user", "-f", "--display":
			next()
		case "--es", "--ei", "--ez":
			next()
			next()
		case "-S", "-R", "--activity-clear-task", "--activity-new-task":
		default:
			if !strings.HasPrefix(args[i], "-") && comp == "" && strings.Contains(args[i], "/") {
				comp = args[i]
			}
		}
	}
	var desc []string
	if act != "" {
		desc = append(desc, "act="+act)
	}
	if len(cats) > 0 {
		desc = append(desc, "cat=["+strings.Join(cats, ",")+"]")
	}
	if data != "" {
		desc = append(desc, "dat="+data)
	}
	if comp != "" {
		desc = append(desc, "cmp="+comp)
	}
	intent := "Intent { " + strings.Join(desc, " ") + " }"
	fmt.Fprintf(c.out, "Starting: %s\n", intent)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("launch", args, 0, 0)
	if comp == "" {
		fmt.Fprintf(c.err, "Error: Activity not started, unable to resolve %s\n", intent)
		return 1
	}
	a, ok := p.resolveComponent(comp)
	if !ok {
		pkg, cls, _ := strings.Cut(comp, "/")
		if strings.HasPrefix(cls, ".") {
			cls = pkg + cls
		}
		fmt.Fprintf(c.err, "Error type 3\nError: Activity class {%s/%s} does not exist.\n", pkg, cls)
		return 1
	}
	if p.m.fg == a.Package && p.m.screen == scrMain {
		fmt.Fprintln(c.out, "Warning: Activity not started, intent has been delivered to currently running top-most instance.")
	} else {
		p.m.launch(a.Package)
	}
	if wait != "" {
		fmt.Fprintf(c.out, "Status: ok\nLaunchState: COLD\nActivity: %s\nTotalTime: 212\nWaitTime: 215\nComplete\n", shortComponent(a.Package, a.Activity))
	}
	return 0
}

func amBroadcast(p *Phone, c *cmdIO, args []string) int {
	var act string
	extras := map[string]string{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-a":
			if i+1 < len(args) {
				act = args[i+1]
				i++
			}
		case "--es", "--ei", "--ez", "--el", "--eia":
			if i+2 < len(args) {
				extras[args[i+1]] = args[i+2]
				i += 2
			}
		case "--user", "-n", "-p", "-f":
			i++
		}
	}
	desc := "Intent { "
	if act != "" {
		desc += "act=" + act + " "
	}
	desc += "flg=0x400000"
	if len(extras) > 0 {
		desc += " (has extras)"
	}
	desc += " }"
	fmt.Fprintf(c.out, "Broadcasting: %s\n", desc)
	p.mu.Lock()
	p.record("broadcast", args, 0, 0)
	// ADB Keyboard only listens while it is the current input method.
	if p.ime == IMEADB && !p.opts.NoADBKeyboard {
		switch act {
		case "ADB_INPUT_TEXT":
			p.m.typeText(extras["msg"])
		case "ADB_INPUT_B64":
			if b, err := base64.StdEncoding.DecodeString(extras["msg"]); err == nil {
				p.m.typeText(string(b))
			}
		case "ADB_INPUT_CHARS":
			var sb strings.Builder
			for _, f := range strings.Split(extras["chars"], ",") {
				if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && utf8.ValidRune(rune(n)) {
					sb.WriteRune(rune(n))
				}
			}
			p.m.typeText(sb.String())
		case "ADB_CLEAR_TEXT":
			p.m.clearText()
		case "ADB_INPUT_CODE":
			if n, err := strconv.Atoi(extras["code"]); err == nil {
				p.key(n)
			}
		case "ADB_EDITOR_CODE":
			p.m.enter()
		}
	}
	p.mu.Unlock()
	fmt.Fprintln(c.out, "Broadcast completed: result=0")
	return 0
}

func cmdMonkey(p *Phone, c *cmdIO, args []string) int {
	var pkg, cat string
	count := -1
	for _, a := range args {
		fmt.Fprintf(c.out, "  bash arg: %s\n", a)
	}
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-p" && i+1 < len(args):
			pkg = args[i+1]
			i++
		case args[i] == "-c" && i+1 < len(args):
			cat = args[i+1]
			i++
		case args[i] == "--throttle" || args[i] == "-s" || strings.HasPrefix(args[i], "--pct-"):
			i++
		default:
			if n, err := strconv.Atoi(args[i]); err == nil {
				count = n
			}
		}
	}
	if count < 0 {
		fmt.Fprintln(c.err, "** Error: Count not specified")
		return 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.m.app(pkg)
	if !ok || pkg == PkgLauncher || cat != "" && cat != "android.intent.category.LAUNCHER" {
		fmt.Fprintln(c.out, "** No activities found to run, monkey aborted.")
		return 252
	}
	p.record("launch", args, 0, 0)
	p.m.launch(a.Package)
	fmt.Fprintf(c.out, "Events injected: %d\n## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n", count)
	return 0
}

func (p *Phone) packages() []string {
	pkgs := systemPackages()
	for _, a := range p.m.apps {
		pkgs = append(pkgs, a.Package)
	}
	if !p.opts.NoADBKeyboard {
		pkgs = append(pkgs, "com.android.adbkeyboard")
	}
	sort.Strings(pkgs)
	return pkgs
}

func isSystemPackage(pkg string) bool {
	for _, s := range systemPackages() {
		if s == pkg {
			return true
		}
	}
	return pkg == PkgSettings
}

func cmdPm(p *Phone, c *cmdIO, args []string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case len(args) >= 2 && args[0] == "list" && args[1] == "packages":
		var third, sys bool
		filter := ""
		for _, a := range args[2:] {
			switch a {
			case "-3":
				third = true
			case "-s":
				sys = true
			default:
				if !strings.HasPrefix(a, "-") {
					filter = a
				}
			}
		}
		for _, pkg := range p.packages() {
			s := isSystemPackage(pkg)
			if third && s || sys && !s || !strings.Contains(pkg, filter) {
				continue
			}
			fmt.Fprintf(c.out, "package:%s\n", pkg)
		}
		return 0
	case len(args) == 2 && args[0] == "path":
		for _, pkg := range p.packages() {
			if pkg == args[1] {
				fmt.Fprintf(c.out, "package:/data/app/~~vphone==/%s-1/base.apk\n", pkg)
				return 0
			}
		}
		return 1
	}
	fmt.Fprintln(c.err, "usage: pm list packages [-3] [-s] [FILTER]\n       pm path PACKAGE")
	return 255
}

// cmdCmd is `cmd SERVICE ...`, the binder shell the `cmd` feature announces.
func cmdCmd(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.err, "cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.")
		return 20
	}
	switch args[0] {
	case "package":
		return cmdPm(p, c, args[1:])
	case "input":
		return cmdInput(p, c, args[1:])
	case "settings":
		return cmdSettings(p, c, args[1:])
	case "activity":
		return cmdAm(p, c, args[1:])
	case "window":
		return cmdWm(p, c, args[1:])
	case "input_method":
		return cmdIme(p, c, args[1:])
	}
	fmt.Fprintf(c.err, "cmd: Can't find service: %s\n", args[0])
	return 20
}

func cmdDumpsys(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.out, "Currently running services:\n  activity\n  input\n  input_method\n  package\n  window")
		return 0
	}
	p.mu.Lock()
	a := p.m.activity()
	rot := p.rotation
	dw, dh := p.displaySize()
	p.mu.Unlock()
	orient := "port"
	if rot%2 == 1 {
		orient = "land"
	}
	full := a.Package + "/" + a.Activity
	short := shortComponent(a.Package, a.Activity)
	switch args[0] {
	case "window":
		fmt.Fprintln(c.out, "WINDOW MANAGER WINDOWS (dumpsys window windows)")
		fmt.Fprintf(c.out, "  Window #0 Window{7d0c9a1 u0 %s}:\n    mDisplayId=0 rootTaskId=12 mSession=Session{3a4b5c6 2310:u0a10123} mClient=android.os.BinderProxy@1e2f3a4\n", full)
		fmt.Fprintf(c.out, "    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSLUCENT}\n    Requested w=%d h=%d mLayoutSeq=212\n", dw, dh)
		fmt.Fprintln(c.out, "  Window #1 Window{1b2c3d4 u0 StatusBar}:")
		fmt.Fprintln(c.out, "    mDisplayId=0 mSession=Session{9a8b7c6 1512:u0a10042}")
		fmt.Fprintln(c.out)
		fmt.Fprintf(c.out, "  mGlobalConfiguration={1.0 ?mcc?mnc [zh_CN] ldltr sw%ddp w%ddp h%ddp %ddpi nrml %s finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - %d, %d) mAppBounds=Rect(0, 0 - %d, %d) mWindowingMode=fullscreen mDisplayWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_%d}}\n",
			min(dw, dh)*160/p.opts.Density, dw*160/p.opts.Density, dh*160/p.opts.Density, p.opts.Density, orient, dw, dh, dw, dh, rot*90)
		// A dialog's window carries its activity's name too.
		fmt.Fprintf(c.out, "  mCurrentFocus=Window{7d0c9a1 u0 %s}\n", full)
		fmt.Fprintf(c.out, "  mFocusedApp=ActivityRecord{5e6f7a8 u0 %s t12}\n", short)
		fmt.Fprintf(c.out, "  mInputMethodTarget=null\n  mDisplayFrozen=false windows=0 client=false apps=0  mRotation=%d  mLastOrientation=-1\n", rot)
		return 0
	case "input":
		fmt.Fprintf(c.out, "INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n\nInput Reader State (Nums of device: 1):\n  Device 2: virtual-touchscreen\n    Sources: 0x00001002\n    Touch Input Mapper (mode - DIRECT):\n      Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, orientation=%d, logicalFrame=[0, 0, %d, %d], physicalFrame=[0, 0, %d, %d], deviceSize=[%d, %d], isActive=[1]\n      SurfaceWidth: %dpx\n      SurfaceHeight: %dpx\n      SurfaceOrientation: %d\n",
			rot, dw, dh, dw, dh, p.opts.Width, p.opts.Height, dw, dh, rot)
		return 0
	case "activity":
		fmt.Fprintln(c.out, "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)")
		fmt.Fprintf(c.out, "Display #0 (activities from top to bottom):\n  * Task{c1d2e3f #12 type=standard A=10123:%s U=0 visible=true mode=fullscreen translucent=false sz=1}\n", a.Package)
		fmt.Fprintf(c.out, "    mResumedActivity: ActivityRecord{5e6f7a8 u0 %s t12}\n  ResumedActivity: ActivityRecord{5e6f7a8 u0 %s t12}\n", short, short)
		return 0
	case "display":
		fmt.Fprintf(c.out, "DISPLAY MANAGER (dumpsys display)\n  mBaseDisplayInfo=DisplayInfo{\"Built-in Screen\", displayId 0, real %d x %d, rotation %d, density %d}\n", dw, dh, rot, p.opts.Density)
		return 0
	}
	fmt.Fprintf(c.err, "Can't find service: %s\n", args[0])
	return 0
}

// keyCodes maps KeyEvent names (without KEYCODE_) to codes.
func keyCodes() map[string]int {
	k := map[string]int{
		"UNKNOWN": 0, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "DPAD_UP": 19, "DPAD_DOWN": 20,
		"DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25,
		"POWER": 26, "CAMERA": 27, "CLEAR": 28, "COMMA": 55, "PERIOD": 56, "TAB": 61, "SPACE": 62,
		"ENTER": 66, "DEL": 67, "MINUS": 69, "EQUALS": 70, "SLASH": 76, "AT": 77, "MENU": 82,
		"SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111,
		"FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123, "VOLUME_MUTE": 164, "APP_SWITCH": 187,
		"SLEEP": 223, "WAKEUP": 224, "PASTE": 279, "COPY": 278, "CUT": 277,
	}
	for i := 0; i < 10; i++ {
		k[strconv.Itoa(i)] = 7 + i
	}
	for ch := 'A'; ch <= 'Z'; ch++ {
		k[string(ch)] = 29 + int(ch-'A')
	}
	return k
}

// parseKey reads a key code given as a number or a name with or without
// the KEYCODE_ prefix; unknown names are KEYCODE_UNKNOWN, as on Android.
func parseKey(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return keyCodes()[strings.TrimPrefix(strings.ToUpper(s), "KEYCODE_")]
}

// key applies a key press to the model (p.mu held).
func (p *Phone) key(code int) {
	m := p.m
	switch {
	case code == 3:
		m.home()
	case code == 4 || code == 111:
		m.back()
	case code == 66 || code == 23 || code == 160:
		m.enter()
	case code == 67:
		m.deleteBack()
	case code == 187:
		m.appSwitch()
	case code == 62:
		m.typeText(" ")
	case code >= 7 && code <= 16:
		m.typeText(string(rune('0' + code - 7)))
	case code >= 29 && code <= 54:
		m.typeText(string(rune('a' + code - 29)))
	case code == 55:
		m.typeText(",")
	case code == 56:
		m.typeText(".")
	case code == 69:
		m.typeText("-")
	case code == 70:
		m.typeText("=")
	case code == 76:
		m.typeText("/")
	case code == 77:
		m.typeText("@")
	case code == 61:
		if m.focused() != nil && !m.focused().multi {
			m.enter()
		}
	}
}

// inputSources are the optional first words of `input`.
func inputSources() map[string]bool {
	return map[string]bool{"keyboard": true, "mouse": true, "joystick": true, "touchpad": true, "touchnavigation": true,
		"dpad": true, "gamepad": true, "stylus": true, "trackball": true, "touchscreen": true, "rotaryencoder": true}
}

const inputUsage = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
`

// javaException prints what `input` prints when a command throws.
func javaException(c *cmdIO, cmd, exc string) int {
	fmt.Fprintf(c.err, "Exception occurred while executing '%s':\n%s\n", cmd, exc)
	return 255
}

func cmdInput(p *Phone, c *cmdIO, args []string) int {
	if len(args) > 0 && inputSources()[args[0]] {
		args = args[1:]
	}
	if len(args) >= 2 && args[0] == "-d" {
		args = args[2:]
	}
	if len(args) == 0 {
		io.WriteString(c.err, inputUsage)
		return 1
	}
	verb, rest := args[0], args[1:]
	nums := func(n, opt int) ([]int, int, bool) {
		if len(rest) < n || len(rest) > n+opt {
			fmt.Fprintf(c.err, "Error: Invalid arguments for command: %s\n%s", verb, inputUsage)
			return nil, 1, false
		}
		out := make([]int, len(rest))
		for i, s := range rest {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, javaException(c, verb, fmt.Sprintf("java.lang.NumberFormatException: For input string: \"%s\"", s)), false
			}
			out[i] = int(math.Round(f))
		}
		return out, 0, true
	}
	switch verb {
	case "tap", "swipe", "draganddrop", "text", "keyevent", "press", "roll", "motionevent":
	default:
		fmt.Fprintf(c.err, "Error: Unknown command: %s\n%s", verb, inputUsage)
		return 1
	}
	if p.faultsNow().injectDenied {
		return javaException(c, verb, "java.lang.SecurityException: Injecting to another application requires INJECT_EVENTS permission\n"+
			"\tat com.android.server.input.InputManagerService.injectInputEventInternal(InputManagerService.java:1141)\n"+
			"\tat com.android.server.input.InputManagerService.injectInputEventToTarget(InputManagerService.java:1112)")
	}
	switch verb {
	case "tap":
		v, code, ok := nums(2, 0)
		if !ok {
			return code
		}
		p.mu.Lock()
		p.record("tap", rest, v[0], v[1])
		x, y := p.toModel(v[0], v[1])
		p.m.tap(x, y)
		p.mu.Unlock()
	case "swipe", "draganddrop":
		v, code, ok := nums(4, 1)
		if !ok {
			return code
		}
		dur := 300
		if len(v) == 5 {
			dur = max(v[4], 0)
		}
		// The gesture takes its duration; the state changes at its end.
		t := time.NewTimer(time.Duration(dur) * time.Millisecond)
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			return 130
		}
		p.mu.Lock()
		p.record(verb, rest, v[0], v[1])
		dist := math.Hypot(float64(v[2]-v[0]), float64(v[3]-v[1]))
		x1, y1 := p.toModel(v[0], v[1])
		x2, y2 := p.toModel(v[2], v[3])
		switch {
		case dist < 16*p.m.scale && dur >= 500:
			p.m.longPress(x1, y1)
		case dist < 16*p.m.scale:
			p.m.tap(x1, y1)
		default:
			p.m.swipe(x1, y1, x2, y2)
		}
		p.mu.Unlock()
	case "text":
		if len(rest) == 0 {
			fmt.Fprintf(c.err, "Error: Invalid arguments for command: text\n%s", inputUsage)
			return 1
		}
		s := rest[0]
		for _, r := range s {
			if r > 0x7e || r < 0x20 && r != '\n' && r != '\t' {
				return javaException(c, "text", "java.lang.NullPointerException: Attempt to get length of null array\n"+
					"\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:297)\n"+
					"\tat com.android.server.input.InputShellCommand.runText(InputShellCommand.java:282)")
			}
		}
		s = strings.ReplaceAll(s, "%s", " ")
		p.mu.Lock()
		p.record("text", rest[:1], 0, 0)
		p.m.typeText(s)
		p.mu.Unlock()
	case "keyevent":
		var codes []int
		for _, a := range rest {
			if a == "--longpress" || a == "--doubletap" || a == "--delay" {
				continue
			}
			codes = append(codes, parseKey(a))
		}
		if len(codes) == 0 {
			fmt.Fprintf(c.err, "Error: Invalid arguments for command: keyevent\n%s", inputUsage)
			return 1
		}
		p.mu.Lock()
		for _, code := range codes {
			p.record("key", []string{strconv.Itoa(code)}, 0, 0)
			p.key(code)
		}
		p.mu.Unlock()
	case "motionevent":
		if len(rest) != 3 {
			fmt.Fprintf(c.err, "Error: Invalid arguments for command: motionevent\n%s", inputUsage)
			return 1
		}
		action := strings.ToUpper(rest[0])
		rest = rest[1:]
		v, code, ok := nums(2, 0)
		if !ok {
			return code
		}
		p.mu.Lock()
		p.record("motion_"+strings.ToLower(action), rest, v[0], v[1])
		x, y := p.toModel(v[0], v[1])
		p.motion(action, x, y)
		p.mu.Unlock()
	case "press", "roll":
		p.mu.Lock()
		p.record(verb, rest, 0, 0)
		p.mu.Unlock()
	}
	return 0
}

// motion turns DOWN/MOVE/UP into a tap or a swipe (p.mu held). Once the
// pointer has moved beyond the tap slop, each MOVE scrolls by its own step,
// so content follows the finger live (scrcpy drags) and the whole gesture
// adds up to the same swipe as `input swipe` from DOWN to UP.
func (p *Phone) motion(action string, x, y int) {
	slop := 16 * p.m.scale
	switch action {
	case "DOWN":
		p.down, p.last, p.downAt, p.isDown, p.dragging = [2]int{x, y}, [2]int{x, y}, p.now(), true, false
	case "MOVE":
		if !p.isDown {
			return
		}
		if !p.dragging && math.Hypot(float64(x-p.down[0]), float64(y-p.down[1])) >= slop {
			p.dragging = true
		}
		if p.dragging {
			p.m.swipe(p.last[0], p.last[1], x, y)
			p.last = [2]int{x, y}
		}
	case "UP":
		if !p.isDown {
			return
		}
		p.isDown = false
		d := math.Hypot(float64(x-p.down[0]), float64(y-p.down[1]))
		switch {
		case p.dragging:
			p.m.swipe(p.last[0], p.last[1], x, y)
		case d < slop && p.now().Sub(p.downAt) >= 500*time.Millisecond:
			p.m.longPress(x, y)
		case d < slop:
			p.m.tap(x, y)
		default:
			p.m.swipe(p.down[0], p.down[1], x, y)
		}
		p.dragging = false
	case "CANCEL":
		p.isDown, p.dragging = false, false
	}
}

func cmdScreencap(p *Phone, c *cmdIO, args []string) int {
	asPNG := false
	file := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-"):
			for _, f := range a[1:] {
				switch f {
				case 'p':
					asPNG = true
				case 'h':
					fmt.Fprintln(c.err, "usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the physical display ID to capture (default: 0)\nIf FILENAME ends with .png it will be saved as a png.\nIf FILENAME is not given, the results will be printed to stdout.")
					return 0
				}
			}
		default:
			file = a
		}
	}
	if strings.HasSuffix(file, ".png") {
		asPNG = true
	}
	var data []byte
	if asPNG {
		var err error
		data, err = p.ScreenshotPNG()
		if err != nil {
			fmt.Fprintln(c.err, "Error: failed to capture the screen")
			return 1
		}
	} else {
		img := p.Screenshot()
		b := img.Bounds()
		data = make([]byte, 16, 16+len(img.Pix))
		binary.LittleEndian.PutUint32(data[0:], uint32(b.Dx()))
		binary.LittleEndian.PutUint32(data[4:], uint32(b.Dy()))
		binary.LittleEndian.PutUint32(data[8:], 1)  // PIXEL_FORMAT_RGBA_8888
		binary.LittleEndian.PutUint32(data[12:], 1) // dataspace sRGB
		data = append(data, img.Pix...)
	}
	if file != "" {
		if err := p.fs.write(file, data, 0o660, false); err != nil {
			fmt.Fprintf(c.err, "Error opening file: %s (%s).\n", file, errText(err))
			return 1
		}
		return 0
	}
	if p.faultsNow().dropScreencap && c.drop != nil {
		c.out.Write(data[:len(data)/2])
		c.drop()
		return 1
	}
	c.out.Write(data)
	return 0
}

func cmdUiautomator(p *Phone, c *cmdIO, args []string) int {
	if len(args) == 0 || args[0] != "dump" {
		fmt.Fprintln(c.err, "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n      [file]: the location where the dumped XML should be stored, default is\n      /sdcard/window_dump.xml")
		return 1
	}
	file := "/sdcard/window_dump.xml"
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			file = a
		}
	}
	p.mu.Lock()
	idle := p.faults.idleError
	var dump []byte
	if !idle {
		dump = p.dumpLocked()
	}
	p.mu.Unlock()
	if idle {
		fmt.Fprintln(c.err, "ERROR: could not get idle state.")
		return 0
	}
	if file == "/dev/tty" || file == "/proc/self/fd/1" {
		c.out.Write(dump)
	} else if err := p.fs.write(file, dump, 0o660, false); err != nil {
		fmt.Fprintf(c.err, "ERROR: could not write %s: %s\n", file, errText(err))
		return 1
	}
	fmt.Fprintf(c.out, "UI hierchary dumped to: %s\n", file)
	return 0
}
