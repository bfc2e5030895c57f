// Package win drives this computer's desktop on Windows, behind the same
// device.Device interface and with the same rules as the X11 driver in
// devices/desktop: "desktop:N" is display N, actions arrive in the
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
//     with SetCursorPos, the call robotgo makes underneath (mouse/mouse_c.h);
//     a drag's intermediate steps are injected absolute moves (SendInput,
//     normalized so they land on the exact pixel: absolute in geom.go).
//   - Capture is kbinani/screenshot's GDI BitBlt of the monitor's rectangle.
//   - Input is robotgo (SendInput): buttons, wheel, keys, hotkeys, and text
//     as KEYEVENTF_UNICODE key events, one UTF-16 unit each, so Chinese and
//     emoji are typed without the clipboard and a halt can stop typing
//     between two characters.
//   - Safety. Low-level mouse and keyboard hooks (WH_MOUSE_LL,
//     WH_KEYBOARD_LL) see every input event of the session with a flag
//     saying whether it was injected: the agent's events (SendInput) are, a
//     hand's are not, so the person is told from the agent exactly. While
//     the agent drives (from its first action until a takeover or stop) a
//     hand's event is a takeover: Takeover() fires, the action in flight
//     stops between two injected events (a held button is released), and
//     every later Do returns desktop.ErrTakenOver until Resume. Two events
//     are not a hand's: a move to exactly where the agent put the pointer
//     (Windows and Wine report one when a window appears under it), and the
//     keys of the stop chord. The stop hotkey is registered with
//     RegisterHotKey; the hooks and the hotkey live on one locked thread
//     with a message loop. Windows reserves ctrl+shift+escape (Task
//     Manager), so the default here is ctrl+alt+escape. Limit: another
//     program's injected input (remote-control tools, on-screen keyboards)
//     looks like the agent's. GetLastInputInfo was tried first: it cannot
//     tell whose input it was, and under Wine a window appearing counts.
//   - The person's acts. From a takeover until Resume the hooks' events that
//     were not injected are put together into canonical actions by the X11
//     driver's rule (desktop.HandActs) and delivered on PersonActs; the key's
//     character is read with ToUnicodeEx on the layout of the window in front,
//     leaving the keyboard's state alone. Text typed through an input method
//     shows as the keys pressed.
//   - Several monitors. The stop hotkey can be registered once per session:
//     with a desktop.StopKeys in their Options the process's drivers share
//     it (the first registers it on its input thread, the next takes it over
//     when that one closes), so a second monitor can be opened (issue 27).
//     The drivers share one pointer and keyboard, so one action runs at a
//     time across them (session).
//   - The confirmation policy reads Windows: the top-level windows with their
//     title and the executable of their process.
//   - Tandem's own windows: the top-level window under a point
//     (WindowFromPoint, GetAncestor) belongs to a process in ExcludePIDs, or
//     the point is in ExcludeRects: ErrOwnWindow, before any input.
//
// Everything but this file and geom.go builds only on Windows; the tests run
// under Wine on Linux (scripts/wine-test.sh), and geom.go's maths is tested
// everywhere because Wine has one monitor and no DPI scaling.
package win
