// Package win drives this computer's desktop on Windows, behind the same
// device.Device interface and with the same rules as the X11 driver in
// engine/device/desktop: "desktop:N" is display N, actions arrive in the
// screenshot's pixels, the person's hand on the mouse or keyboard halts the
// agent (Takeover), a global stop hotkey stops it (StopHotkey), and points on
// Tandem's own windows are refused with desktop.ErrOwnWindow. The errors are
// the desktop package's, so callers check one set on every system.
//
// Why it looks the way it does:
//
//   - Coordinates. The process is made per-monitor DPI aware (v2) before it
//     asks for anything, so display bounds, capture, SetCursorPos and
//     WindowFromPoint all speak physical pixels of the virtual screen, where
//     a monitor left of the primary has a negative origin. A point maps to
//     the screen by adding the monitor's origin (desktop.ToScreen), exactly
//     as on X11. Info.Scale is the monitor's DPI / 96, reported and never
//     applied. robotgo.Move is not used: on Windows it divides by the main
//     monitor's scale (robotgo.go MoveScale), which is wrong for a DPI-aware
//     process and for every monitor but the main one; the pointer is placed
//     with SetCursorPos, the call robotgo makes underneath (mouse/mouse_c.h).
//   - Capture is kbinani/screenshot's GDI BitBlt of the monitor's rectangle.
//   - Input is robotgo (SendInput): buttons, wheel, keys, hotkeys, and text
//     as KEYEVENTF_UNICODE key events, one UTF-16 unit each, so Chinese and
//     emoji are typed without the clipboard and a halt can stop typing
//     between two characters.
//   - Safety. While the agent drives, a watcher compares, every PollInterval
//     and again right before every injection, the pointer with where the
//     agent last put it and GetLastInputInfo's tick with the one seen after
//     the agent's own last injection (input within ownGrace of an injection
//     counts as the agent's: SendInput's events are stamped asynchronously).
//     A difference is the person taking over. The stop hotkey is registered
//     with RegisterHotKey on a thread of its own; Windows reserves
//     ctrl+shift+escape (Task Manager), so the default here is
//     ctrl+alt+escape.
//   - Tandem's own windows: the top-level window under a point
//     (WindowFromPoint, GetAncestor) belongs to a process in ExcludePIDs, or
//     the point is in ExcludeRects: ErrOwnWindow, before any input.
//
// Everything but this file and geom.go builds only on Windows; the tests run
// under Wine on Linux (scripts/wine-test.sh), and geom.go's maths is tested
// everywhere because Wine has one monitor and no DPI scaling.
package win
