package vphone

import (
	"fmt"
	"sort"
	"strings"

	"tandem/vphone/shell"
)

// The system's commands: getprop, wm, settings, ime.

func cmdGetprop(p *Phone, c *shell.IO, args []string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(args) == 0 {
		keys := make([]string, 0, len(p.props))
		for k := range p.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(c.Out, "[%s]: [%s]\n", k, p.props[k])
		}
		return 0
	}
	v, ok := p.props[args[0]]
	if !ok && len(args) > 1 {
		v = args[1]
	}
	fmt.Fprintln(c.Out, v)
	return 0
}

func cmdWm(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Err, "Window manager (window) commands:\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n  density [reset|DENSITY] [-d DISPLAY_ID]")
		return 255
	}
	switch {
	case args[0] == "size" && (len(args) == 1 || args[1] == "reset"):
		if len(args) == 1 {
			w, h := p.opts.Width, p.opts.Height
			if cw, ch, lie := p.faultsNow().claimedScreen(); lie {
				w, h = cw, ch
			}
			fmt.Fprintf(c.Out, "Physical size: %dx%d\n", w, h)
		}
		return 0
	case args[0] == "density" && (len(args) == 1 || args[1] == "reset"):
		if len(args) == 1 {
			fmt.Fprintf(c.Out, "Physical density: %d\n", p.opts.Density)
		}
		return 0
	case args[0] == "size" || args[0] == "density":
		fmt.Fprintf(c.Err, "Error: this virtual phone has a fixed %s\n", args[0])
		return 255
	}
	fmt.Fprintf(c.Err, "Unknown command: %s\n", args[0])
	return 255
}

// settingKey maps "secure default_input_method" to the phone's store.
func settingKey(ns, key string) string { return ns + "/" + key }

func cmdSettings(p *Phone, c *shell.IO, args []string) int {
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		args = args[1:]
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "get" && args[0] != "put" && args[0] != "list" && args[0] != "delete" {
			args = args[1:] // --user N
		}
	}
	if len(args) < 2 {
		fmt.Fprintln(c.Err, "Settings provider (settings) commands:\n  get [--user <USER_ID> | current] NAMESPACE KEY\n  put [--user <USER_ID> | current] NAMESPACE KEY VALUE\n  delete NAMESPACE KEY\n  list NAMESPACE")
		return 255
	}
	verb, ns := args[0], args[1]
	if ns != "system" && ns != "secure" && ns != "global" {
		fmt.Fprintf(c.Err, "Invalid namespace '%s'\n", ns)
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
		fmt.Fprintln(c.Out, v)
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
			p.m.Changed()
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
		fmt.Fprintln(c.Out, "Deleted 1 rows")
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
			fmt.Fprintf(c.Out, "%s=%s\n", strings.TrimPrefix(k, ns+"/"), p.settings[k])
		}
		return 0
	}
	fmt.Fprintf(c.Err, "Invalid command: %s\n", verb)
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

func cmdIme(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Err, "ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n  reset")
		return 255
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch args[0] {
	case "list":
		imeList(p, c, args[1:])
		return 0
	case "enable", "disable", "set":
		return imeChange(p, c, args[0], args[1:])
	case "reset":
		p.imes = map[string]bool{IMELatin: true}
		p.ime = IMELatin
		p.syncIMESettings()
		fmt.Fprintf(c.Out, "Reset current and enabled IMEs for user #0\n  Selected: %s\n", IMELatin)
		return 0
	}
	fmt.Fprintf(c.Err, "Unknown command: %s\n", args[0])
	return 255
}

// imeList is `ime list [-a] [-s]` (p.mu held).
func imeList(p *Phone, c *shell.IO, flags []string) {
	all, short := false, false
	for _, a := range flags {
		all = all || strings.Contains(a, "a") && strings.HasPrefix(a, "-")
		short = short || strings.Contains(a, "s") && strings.HasPrefix(a, "-")
	}
	for _, id := range p.installedIMEs() {
		if !all && !p.imes[id] {
			continue
		}
		if short {
			fmt.Fprintln(c.Out, id)
			continue
		}
		pkg, _, _ := strings.Cut(id, "/")
		fmt.Fprintf(c.Out, "%s:\n  mId=%s mSettingsActivityName=null\n  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name=%s\n      packageName=%s\n      enabled=true exported=true directBootAware=false\n      permission=android.permission.BIND_INPUT_METHOD\n",
			id, id, strings.Replace(id, "/.", "/"+pkg+".", 1)[len(pkg)+1:], pkg)
	}
}

// imeChange is `ime enable|disable|set [--user N] ID` (p.mu held).
func imeChange(p *Phone, c *shell.IO, verb string, ids []string) int {
	for len(ids) > 1 && ids[0] == "--user" {
		ids = ids[2:]
	}
	if len(ids) != 1 {
		fmt.Fprintf(c.Err, "Error: exactly one input method id is needed for %s\n", verb)
		return 255
	}
	id := ids[0]
	if !p.imeInstalled(id) {
		done := map[string]string{"enable": "enabled", "disable": "disabled", "set": "selected"}[verb]
		fmt.Fprintf(c.Err, "Unknown input method %s cannot be %s for user #0\n", id, done)
		return 255
	}
	switch verb {
	case "enable":
		state := "now"
		if p.imes[id] {
			state = "already"
		}
		p.imes[id] = true
		fmt.Fprintf(c.Out, "Input method %s: %s enabled\n", id, state)
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
		fmt.Fprintf(c.Out, "Input method %s: %s disabled\n", id, state)
	case "set":
		if !p.imes[id] {
			fmt.Fprintf(c.Err, "Unknown input method %s cannot be selected for user #0\n", id)
			return 255
		}
		p.ime = id
		fmt.Fprintf(c.Out, "Input method %s selected for user #0\n", id)
	}
	p.syncIMESettings()
	p.m.Changed()
	return 0
}
