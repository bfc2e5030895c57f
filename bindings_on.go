//go:build bindings

package main

// generatingBindings is true in the binary `wails build` compiles (with the
// "bindings" tag) and runs only to write frontend/wailsjs; it opens no
// window, so it must not ask for a display (CI builds without one).
// Source: wails v2.11.0 pkg/commands/bindings/bindings.go adds the tag.
const generatingBindings = true
