// Package desktop drives the computer Tandem runs on: one X11 display chosen
// by the person ("desktop:N"), observed with screenshots and operated with
// XTest input, while the person's own mouse and keyboard are watched through
// the RECORD extension.
//
// Why it looks the way it does:
//
//   - Coordinates. Actions arrive in the screenshot's pixels. A screenshot is
//     exactly the chosen monitor's rectangle of the root window in physical
//     pixels, and XTest/XWarpPointer take root-window physical pixels, so a
//     point maps to the screen by adding the monitor's origin (toScreen). X11
//     applies HiDPI scaling inside applications, never to input or capture;
//     Info.Scale (from Xft.dpi) is reported so the model and UI know text is
//     large, and never shifts a coordinate.
//   - Capture reuses one X connection and one MIT-SHM segment for the driver's
//     life; kbinani/screenshot opens both anew for every frame and copies
//     pixel by pixel (see capture.go and the benchmarks). kbinani/screenshot is
//     the fallback where MIT-SHM is missing.
//   - Input is sent by the driver itself over its X connection (XTEST
//     FakeInput, XWarpPointer), not through robotgo: robotgo's one Xlib
//     display per process could not say which events were its own, followed
//     DISPLAY process-wide, and ended the process when the X server went.
//     The drivers of one process on one X server share one pointer and one
//     keyboard, so they share one injector (server.go): one action at a time
//     across the server's displays, one record of every input Tandem sent and
//     of where it left the pointer. Two displays driven at once otherwise took
//     each other's moves for the person's hand (issue 27).
//   - Safety. While the agent acts (from the start of an action to its end,
//     until a takeover or stop), any input the person makes is a takeover:
//     Takeover() fires, the action in flight stops between two injected
//     events (a button the agent holds is released, the only input sent after
//     a halt), and every later Do returns ErrTakenOver until Resume. Between
//     actions the computer is the person's (issue 19: they answer Tandem's own
//     confirmation dialog with it).
//     How the hand is seen: the RECORD extension streams every device event
//     the server processes (the person's devices and every client's XTEST
//     alike) in the server's order; the events Tandem injected are known and
//     matched off (xserver.expect), the rest are the person's. The stream is
//     read on its own goroutine and may be read late on a busy machine, never
//     out of order: the driver's arming, disarming and halts enter it as
//     markers (a NoOperation request of its own, recorded where the server
//     processed it), so each event is judged by where it stands, not by when
//     it is read. The server sends what it recorded only when it flushes
//     output to some client, so each marker is followed by a request with a
//     reply, and while the agent acts or the person drives the driver asks
//     for one every 50 ms: on a quiet server (an idle xterm, no compositor)
//     markers and a hand no client listens to stayed in the server's buffer,
//     and FlushActs waited for ever (record.go, mark; guard.go,
//     flushStream). Polling XQueryPointer and XQueryKeymap every 25 ms, as the
//     driver did before, missed a click or a key shorter than the interval,
//     a hand that moved the pointer and back, and a move the agent's next
//     warp undid: on a loaded machine the take-over of
//     TestPhysicalTakeoverStopsTheAgent never came (issue 27). XInput2 raw
//     events see every event too but name the XTEST device for Tandem and for
//     any other XTEST client alike (xdotool, a remote desktop) and need an
//     X library the driver does not have (jezek/xgb has no XInput2).
//     The pointer is moved with XWarpPointer given a one-pixel source
//     rectangle where Tandem left it: the server moves it only if it is still
//     there, so a drag step never warps the pointer back from under a hand.
//     Where the server has no RECORD the guard falls back to polling (guard.go,
//     with its limits) and the person's acts are not reported.
//   - The person's acts. From a takeover until Resume, what the person does
//     with their own mouse and keyboard on this display is put together into
//     canonical actions (HandActs, by the mirror's gesture rule) and delivered
//     on PersonActs, so the run records them as theirs; FlushActs ends the
//     text they were typing as they hand back. Text typed through an input
//     method (Chinese) shows as the keys pressed, not the characters chosen.
//   - The stop hotkey (default ctrl+shift+escape) is a passive XGrabKey on the
//     root window: it works whichever window has the focus, on Xvfb and on a
//     real X server alike, and swallows the key so the driven app never sees
//     it. StopHotkey() fires and Do returns ErrStopped. Its keys are no
//     takeover. Points on Tandem's own windows (ExcludePIDs, by _NET_WM_PID
//     of the topmost window under the point, through a window manager's
//     frame) or in ExcludeRects are refused with ErrOwnWindow before any
//     input is sent, and the person's input there is no act.
//   - Focus. The driver never raises, maps or focuses a window: input goes to
//     whatever the person left focused, and the clipboard helper window is
//     never mapped. Two displays of one X server share the focus as well:
//     what one agent types goes where the other's last click put the focus.
//   - Text. ASCII is typed key by key when the keyboard has a key for each
//     character without AltGr (xkeys.go); anything else (Chinese, emoji, '@'
//     on a German layout) is pasted: the driver owns the CLIPBOARD selection
//     just long enough for the focused app to fetch it after the paste keys,
//     then gives the person's text clipboard back (clipboard.go).
//   - Launch is reported unsupported in Capabilities: "open WeChat" has no
//     portable meaning on a desktop (.desktop names, localized names, paths)
//     and starting programs would take the focus; the model uses the desktop's
//     own launcher (a hotkey and typing) instead, which the person can watch.
//     Swipe (a phone gesture) is also unsupported; drag is the desktop's.
//   - Only X11 (and XWayland apps): with no DISPLAY, Displays and Open fail
//     with device.ErrGone.
package desktop
