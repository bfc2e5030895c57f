package vphone

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"tandem/vphone/screens"
	"tandem/vphone/shell"
)

// Apps and services: am, monkey, pm, cmd, dumpsys.

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
	a, found := p.m.App(pkg)
	if !found || a.Activity != act || pkg == PkgLauncher {
		return App{}, false
	}
	return a, true
}

func cmdAm(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Err, "Activity manager (activity) commands:\n  start [-W] [-S] -n <COMPONENT> | -a <ACTION> [-d <DATA>]\n  force-stop <PACKAGE>\n  broadcast -a <ACTION> [--es <KEY> <VALUE>]")
		return 255
	}
	switch args[0] {
	case "start", "start-activity":
		return amStart(p, c, args[1:])
	case "force-stop", "kill":
		if len(args) < 2 {
			fmt.Fprintln(c.Err, "Error: no package specified")
			return 255
		}
		pkg := args[len(args)-1]
		p.mu.Lock()
		p.record("force_stop", args[1:], 0, 0)
		if _, ok := p.m.App(pkg); ok && pkg != PkgLauncher {
			p.m.ForceStop(pkg)
		}
		p.mu.Unlock()
		return 0
	case "broadcast":
		return amBroadcast(p, c, args[1:])
	}
	fmt.Fprintf(c.Err, "Unknown command: %s\n", args[0])
	return 255
}

func amStart(p *Phone, c *shell.IO, args []string) int {
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
	fmt.Fprintf(c.Out, "Starting: %s\n", intent)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record("launch", args, 0, 0)
	if comp == "" {
		fmt.Fprintf(c.Err, "Error: Activity not started, unable to resolve %s\n", intent)
		return 1
	}
	a, ok := p.resolveComponent(comp)
	if !ok {
		pkg, cls, _ := strings.Cut(comp, "/")
		if strings.HasPrefix(cls, ".") {
			cls = pkg + cls
		}
		fmt.Fprintf(c.Err, "Error type 3\nError: Activity class {%s/%s} does not exist.\n", pkg, cls)
		return 1
	}
	if p.m.Showing(a.Package) {
		fmt.Fprintln(c.Out, "Warning: Activity not started, intent has been delivered to currently running top-most instance.")
	} else {
		p.m.Launch(a.Package)
	}
	if wait != "" {
		fmt.Fprintf(c.Out, "Status: ok\nLaunchState: COLD\nActivity: %s\nTotalTime: 212\nWaitTime: 215\nComplete\n", shortComponent(a.Package, a.Activity))
	}
	return 0
}

func amBroadcast(p *Phone, c *shell.IO, args []string) int {
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
	fmt.Fprintf(c.Out, "Broadcasting: %s\n", desc)
	p.mu.Lock()
	p.record("broadcast", args, 0, 0)
	// ADB Keyboard only listens while it is the current input method.
	if p.ime == IMEADB && !p.opts.NoADBKeyboard {
		switch act {
		case "ADB_INPUT_TEXT":
			p.m.TypeText(extras["msg"])
		case "ADB_INPUT_B64":
			if b, err := base64.StdEncoding.DecodeString(extras["msg"]); err == nil {
				p.m.TypeText(string(b))
			}
		case "ADB_INPUT_CHARS":
			var sb strings.Builder
			for _, f := range strings.Split(extras["chars"], ",") {
				if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && utf8.ValidRune(rune(n)) {
					sb.WriteRune(rune(n))
				}
			}
			p.m.TypeText(sb.String())
		case "ADB_CLEAR_TEXT":
			p.m.ClearText()
		case "ADB_INPUT_CODE":
			if n, err := strconv.Atoi(extras["code"]); err == nil {
				p.key(n)
			}
		case "ADB_EDITOR_CODE":
			p.m.Enter()
		}
	}
	p.mu.Unlock()
	fmt.Fprintln(c.Out, "Broadcast completed: result=0")
	return 0
}

func cmdMonkey(p *Phone, c *shell.IO, args []string) int {
	var pkg, cat string
	count := -1
	for _, a := range args {
		fmt.Fprintf(c.Out, "  bash arg: %s\n", a)
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
		fmt.Fprintln(c.Err, "** Error: Count not specified")
		return 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.m.App(pkg)
	if !ok || pkg == PkgLauncher || cat != "" && cat != "android.intent.category.LAUNCHER" {
		fmt.Fprintln(c.Out, "** No activities found to run, monkey aborted.")
		return 252
	}
	p.record("launch", args, 0, 0)
	p.m.Launch(a.Package)
	fmt.Fprintf(c.Out, "Events injected: %d\n## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n", count)
	return 0
}

func (p *Phone) packages() []string {
	pkgs := screens.SystemPackages()
	for _, a := range p.m.Apps() {
		pkgs = append(pkgs, a.Package)
	}
	if !p.opts.NoADBKeyboard {
		pkgs = append(pkgs, "com.android.adbkeyboard")
	}
	sort.Strings(pkgs)
	return pkgs
}

func isSystemPackage(pkg string) bool {
	for _, s := range screens.SystemPackages() {
		if s == pkg {
			return true
		}
	}
	return pkg == PkgSettings
}

func cmdPm(p *Phone, c *shell.IO, args []string) int {
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
			fmt.Fprintf(c.Out, "package:%s\n", pkg)
		}
		return 0
	case len(args) == 2 && args[0] == "path":
		for _, pkg := range p.packages() {
			if pkg == args[1] {
				fmt.Fprintf(c.Out, "package:/data/app/~~vphone==/%s-1/base.apk\n", pkg)
				return 0
			}
		}
		return 1
	}
	fmt.Fprintln(c.Err, "usage: pm list packages [-3] [-s] [FILTER]\n       pm path PACKAGE")
	return 255
}

// cmdCmd is `cmd SERVICE ...`, the binder shell the `cmd` feature announces.
func cmdCmd(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Err, "cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.")
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
	fmt.Fprintf(c.Err, "cmd: Can't find service: %s\n", args[0])
	return 20
}

func cmdDumpsys(p *Phone, c *shell.IO, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Out, "Currently running services:\n  activity\n  input\n  input_method\n  package\n  window")
		return 0
	}
	p.mu.Lock()
	a := p.m.Activity()
	denied := p.faults.windowDenied && args[0] == "window"
	rot := p.rotation
	dw, dh := p.displaySize()
	p.mu.Unlock()
	orient := "port"
	if rot%2 == 1 {
		orient = "land"
	}
	if denied {
		fmt.Fprintln(c.Err, "Permission Denial: can't dump WindowManager from from pid=4242, uid=2000 due to missing android.permission.DUMP permission")
		return 0
	}
	full := a.Package + "/" + a.Activity
	short := shortComponent(a.Package, a.Activity)
	switch args[0] {
	case "window":
		fmt.Fprintln(c.Out, "WINDOW MANAGER WINDOWS (dumpsys window windows)")
		fmt.Fprintf(c.Out, "  Window #0 Window{7d0c9a1 u0 %s}:\n    mDisplayId=0 rootTaskId=12 mSession=Session{3a4b5c6 2310:u0a10123} mClient=android.os.BinderProxy@1e2f3a4\n", full)
		fmt.Fprintf(c.Out, "    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSLUCENT}\n    Requested w=%d h=%d mLayoutSeq=212\n", dw, dh)
		fmt.Fprintln(c.Out, "  Window #1 Window{1b2c3d4 u0 StatusBar}:")
		fmt.Fprintln(c.Out, "    mDisplayId=0 mSession=Session{9a8b7c6 1512:u0a10042}")
		fmt.Fprintln(c.Out)
		fmt.Fprintf(c.Out, "  mGlobalConfiguration={1.0 ?mcc?mnc [zh_CN] ldltr sw%ddp w%ddp h%ddp %ddpi nrml %s finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - %d, %d) mAppBounds=Rect(0, 0 - %d, %d) mWindowingMode=fullscreen mDisplayWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_%d}}\n",
			min(dw, dh)*160/p.opts.Density, dw*160/p.opts.Density, dh*160/p.opts.Density, p.opts.Density, orient, dw, dh, dw, dh, rot*90)
		// A dialog's window carries its activity's name too.
		fmt.Fprintf(c.Out, "  mCurrentFocus=Window{7d0c9a1 u0 %s}\n", full)
		fmt.Fprintf(c.Out, "  mFocusedApp=ActivityRecord{5e6f7a8 u0 %s t12}\n", short)
		fmt.Fprintf(c.Out, "  mInputMethodTarget=null\n  mDisplayFrozen=false windows=0 client=false apps=0  mRotation=%d  mLastOrientation=-1\n", rot)
		return 0
	case "input":
		fmt.Fprintf(c.Out, "INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n\nInput Reader State (Nums of device: 1):\n  Device 2: virtual-touchscreen\n    Sources: 0x00001002\n    Touch Input Mapper (mode - DIRECT):\n      Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, orientation=%d, logicalFrame=[0, 0, %d, %d], physicalFrame=[0, 0, %d, %d], deviceSize=[%d, %d], isActive=[1]\n      SurfaceWidth: %dpx\n      SurfaceHeight: %dpx\n      SurfaceOrientation: %d\n",
			rot, dw, dh, dw, dh, p.opts.Width, p.opts.Height, dw, dh, rot)
		return 0
	case "activity":
		fmt.Fprintln(c.Out, "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)")
		fmt.Fprintf(c.Out, "Display #0 (activities from top to bottom):\n  * Task{c1d2e3f #12 type=standard A=10123:%s U=0 visible=true mode=fullscreen translucent=false sz=1}\n", a.Package)
		fmt.Fprintf(c.Out, "    mResumedActivity: ActivityRecord{5e6f7a8 u0 %s t12}\n  ResumedActivity: ActivityRecord{5e6f7a8 u0 %s t12}\n", short, short)
		return 0
	case "display":
		fmt.Fprintf(c.Out, "DISPLAY MANAGER (dumpsys display)\n  mBaseDisplayInfo=DisplayInfo{\"Built-in Screen\", displayId 0, real %d x %d, rotation %d, density %d}\n", dw, dh, rot, p.opts.Density)
		return 0
	}
	fmt.Fprintf(c.Err, "Can't find service: %s\n", args[0])
	return 0
}
