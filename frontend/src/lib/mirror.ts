// Coordinate mapping between the mirror on screen and the device.
//
// The mirror shows a frame of the device's screen scaled to fit its box,
// letterboxed (bars on two sides) so the aspect ratio is kept. A person's
// click lands in CSS pixels of the box; the device wants its own pixels.
// Frames are already in the device's current orientation (a rotated phone
// sends a landscape frame), so rotation changes the frame size, not the map.
// HiDPI needs no special case: both sides are in CSS pixels and the frame
// size is the device's pixel size as reported with the frame.

export interface Size {
  w: number
  h: number
}

export interface Point {
  x: number
  y: number
}

/** Where the frame is drawn inside the box: offset and scale (CSS px per device px). */
export interface Fit {
  left: number
  top: number
  width: number
  height: number
  scale: number
}

/** fit places a frame of size frame, letterboxed and centred, in box. */
export function fit(frame: Size, box: Size): Fit {
  if (frame.w <= 0 || frame.h <= 0 || box.w <= 0 || box.h <= 0) {
    return { left: 0, top: 0, width: 0, height: 0, scale: 0 }
  }
  const scale = Math.min(box.w / frame.w, box.h / frame.h)
  const width = frame.w * scale
  const height = frame.h * scale
  return { left: (box.w - width) / 2, top: (box.h - height) / 2, width, height, scale }
}

/**
 * toDevice maps a point in the box (CSS px) to device pixels, or null when it
 * falls on the letterbox bars (outside the picture): those clicks are ignored
 * rather than clamped to the edge, which would tap something the person did
 * not point at.
 */
export function toDevice(p: Point, frame: Size, box: Size): Point | null {
  const f = fit(frame, box)
  if (f.scale === 0) return null
  const x = (p.x - f.left) / f.scale
  const y = (p.y - f.top) / f.scale
  if (x < 0 || y < 0 || x >= frame.w || y >= frame.h) return null
  return { x: Math.min(frame.w - 1, Math.floor(x)), y: Math.min(frame.h - 1, Math.floor(y)) }
}

/** toBox maps device pixels to a point in the box (to draw the agent's intent). */
export function toBox(p: Point, frame: Size, box: Size): Point {
  const f = fit(frame, box)
  return { x: f.left + (p.x + 0.5) * f.scale, y: f.top + (p.y + 0.5) * f.scale }
}

/** A gesture on the mirror: short and small is a tap, otherwise a swipe. */
export type Gesture =
  | { type: 'tap'; x: number; y: number }
  | { type: 'long_press'; x: number; y: number; ms: number }
  | { type: 'swipe'; x: number; y: number; x2: number; y2: number; ms: number }

/**
 * gesture classifies a press-move-release on the mirror. Thresholds are in
 * device pixels relative to the screen's short side, so they feel the same on
 * every phone: moving less than 2% is a tap (or a long press when held 500 ms).
 * The same rule classifies live touches in Go (mirror/gesture.go, Classify);
 * both are tested on testdata/gestures.json.
 */
export function gesture(down: Point, up: Point, ms: number, frame: Size): Gesture {
  const slop = Math.max(8, Math.min(frame.w, frame.h) * 0.02)
  const dist = Math.hypot(up.x - down.x, up.y - down.y)
  if (dist <= slop) {
    return ms >= 500 ? { type: 'long_press', x: down.x, y: down.y, ms: Math.round(ms) } : { type: 'tap', x: down.x, y: down.y }
  }
  return { type: 'swipe', x: down.x, y: down.y, x2: up.x, y2: up.y, ms: Math.max(100, Math.min(3000, Math.round(ms))) }
}

/**
 * wheelScroll is the scroll a wheel turn at p (device pixels) asks for: the
 * direction the content should move, horizontal when the wheel moved more
 * sideways than up or down.
 */
export function wheelScroll(deltaX: number, deltaY: number, p: Point): { type: 'scroll'; x: number; y: number; direction: 'up' | 'down' | 'left' | 'right' } {
  const horizontal = Math.abs(deltaX) > Math.abs(deltaY)
  const direction = horizontal ? (deltaX > 0 ? 'right' : 'left') : deltaY > 0 ? 'down' : 'up'
  return { type: 'scroll', x: p.x, y: p.y, direction }
}
