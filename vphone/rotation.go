package vphone

import (
	"strconv"
)

// Display rotation. The apps are laid out in portrait only; a rotated
// display shows that picture turned, as Android does for an app that keeps
// its orientation while the display turns (auto-rotate off, user_rotation
// set): screenshots, `uiautomator dump` bounds and input coordinates are in
// the rotated display's space, `wm size` still reports the physical
// (portrait) size, and dumpsys reports the orientation. Rotation 1 is
// ROTATION_90: the display is landscape and the portrait top is on its left.

// SetRotation turns the display (0, 1, 2, 3 = 0°, 90°, 180°, 270°), as
// `settings put system user_rotation N` does with auto-rotate off.
func (p *Phone) SetRotation(r int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setRotationLocked(r)
}

func (p *Phone) setRotationLocked(r int) {
	r = (r%4 + 4) % 4
	if r != p.rotation {
		p.rotation = r
		p.m.Changed()
	}
}

// Rotation returns the display's rotation (0..3).
func (p *Phone) Rotation() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rotation
}

// syncRotation applies the rotation settings (p.mu held): with
// accelerometer_rotation 0, user_rotation turns the display.
func (p *Phone) syncRotation() {
	if p.settings["system/accelerometer_rotation"] != "0" {
		return
	}
	if r, err := strconv.Atoi(p.settings["system/user_rotation"]); err == nil && r >= 0 && r <= 3 {
		p.setRotationLocked(r)
	}
}

// displaySize is the rotated display's size (p.mu held).
func (p *Phone) displaySize() (int, int) {
	if p.rotation%2 == 1 {
		return p.opts.Height, p.opts.Width
	}
	return p.opts.Width, p.opts.Height
}

// toModel maps a display point to the portrait model's (p.mu held).
func (p *Phone) toModel(x, y int) (int, int) {
	w, h := p.opts.Width, p.opts.Height
	switch p.rotation {
	case 1:
		x, y = w-1-y, x
	case 2:
		x, y = w-1-x, h-1-y
	case 3:
		x, y = y, h-1-x
	}
	return x, y
}
