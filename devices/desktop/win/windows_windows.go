//go:build windows

package win

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"tandem/engine/device"
)

var procGetWindowTextW = user32.NewProc("GetWindowTextW")

// Windows lists the top-level windows on this monitor, bottom to top, in
// the screenshot's pixels, for the confirmation policy: each with its
// program (the executable's name without ".exe" as App, the file name
// among Names) and title, and whether it is in front (has the keyboard).
// Tandem's own windows are left out (the agent never acts there).
func (d *Driver) Windows(ctx context.Context) ([]device.Window, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fg, _, _ := procGetForegroundWnd.Call()
	exes := map[int]string{}
	out := []device.Window{}
	for _, t := range tops() {
		if !t.r.Overlaps(d.bounds) || slices.Contains(d.opts.ExcludePIDs, t.pid) {
			continue
		}
		exe, ok := exes[t.pid]
		if !ok {
			exe = exeName(t.pid)
			exes[t.pid] = exe
		}
		w := device.Window{Bounds: t.r.Sub(d.bounds.Min), Title: windowText(t.hwnd), Focused: uintptr(t.hwnd) == fg}
		if exe != "" {
			w.App = strings.TrimSuffix(exe, filepath.Ext(exe))
			w.Names = []string{exe}
		}
		out = append(out, w)
	}
	return out, ctx.Err()
}

// windowText is a window's title.
func windowText(h windows.HWND) string {
	var buf [512]uint16
	n, _, _ := procGetWindowTextW.Call(uintptr(h), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf[:n])
}

// exeName is the file name of process pid's executable ("" when it cannot
// be read).
func exeName(pid int) string {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(p)
	var buf [windows.MAX_PATH]uint16
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(p, 0, &buf[0], &n); err != nil {
		return ""
	}
	path := windows.UTF16ToString(buf[:n])
	return path[strings.LastIndexAny(path, `\/`)+1:]
}

var _ device.Windows = (*Driver)(nil)
