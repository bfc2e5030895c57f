// Package vphone is a virtual Android phone that speaks the device side of
// the ADB wire protocol, so every phone test — and anyone without a phone —
// can go through the real adb server exactly as with real hardware.
//
// Why the device side and not a fake driver: the driver's hard parts are the
// adb server's behaviour (lock-step streams, exec: vs shell v2 framing,
// offline transports, dropped connections), and only the real server
// reproduces them. The phone listens on TCP; `adb connect 127.0.0.1:PORT`
// attaches it like a Wi-Fi phone (no AUTH, as with ro.adb.secure=0).
//
// One model is the single source of truth: each screen is a tree of nodes
// built from the state (class, text, resource id, bounds, what a tap does),
// and both the rendered screenshot and the `uiautomator dump` come from that
// tree, so a tap at a node's centre changes both consistently. Text is drawn
// with a real CJK font (Debian's fonts-noto-cjk) because vision models must
// read Chinese on it.
//
// Its parts that know nothing of a phone live apart: transport/ is the
// device side of the ADB wire (packets, lock-step streams), shell/ the sh
// language that runs command lines, render/ the paint box (fonts, canvas,
// PNG, rotation), encode/ the H.264 encoder that sends a screen when it
// changes, screens/ the apps (their state, screens as node trees, the dump
// and the picture of them); this package is the phone itself — the lock
// over the apps, its commands (screenrecord and the scrcpy server among
// them), input methods, file system, rotation and fault switches — and
// hands each part what it serves.
//
// The shell answers with the formats and quirks of a real phone (adb.md):
// `input text` refuses non-ASCII with Android's NullPointerException, ADB
// Keyboard broadcasts only type while it is the current input method,
// exec: arguments arrive single-quoted, unknown commands exit 127. Failure
// switches (latency, idle-state errors, MIUI's INJECT_EVENTS refusal, secure
// black screens, a connection dropped mid-screenshot, going offline, a
// screen size it lies about) let tests drive every error path of the
// driver; State and Events expose what the phone saw.
package vphone
