import type { Press } from './gen/types'
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

/**
 * PressTrack follows one press on the mirror, in device pixels: where and
 * when it went down and the farthest it got on the way. The page does not
 * decide what gesture a press was: Go does, by its one rule
 * (mirror/gesture.go), from the Press this reports.
 */
export class PressTrack {
  far = 0
  constructor(
    readonly at: Point,
    readonly t: number,
  ) {}

  move(q: Point) {
    this.far = Math.max(this.far, Math.hypot(q.x - this.at.x, q.y - this.at.y))
  }

  /** press is the press released at up at time now, on a screen of frame's size. */
  press(up: Point, now: number, frame: Size): Press {
    this.move(up)
    return { x0: this.at.x, y0: this.at.y, x: up.x, y: up.y, ms: Math.max(0, Math.round(now - this.t)), far: Math.round(this.far), w: frame.w, h: frame.h }
  }
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

/**
 * pictureAge says how old the mirror's picture is when nothing fresh is
 * coming (the stream reconnects or was lost): whole seconds since the last
 * picture arrived, or null while the stream is live or no picture was ever
 * shown (then there is nothing to date).
 */
export function pictureAge(status: 'idle' | 'connecting' | 'live' | 'lost', pictureAt: number, now: number): number | null {
  if (status === 'live' || pictureAt <= 0) return null
  return Math.max(0, Math.floor((now - pictureAt) / 1000))
}

/** The part of a 2D context copyPicture uses (a seam for tests). */
export interface PictureContext {
  clearRect(x: number, y: number, w: number, h: number): void
  drawImage(img: CanvasImageSource, x: number, y: number, w: number, h: number): void
  getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> }
}

/**
 * copyPicture copies a decoded picture into ctx's w x h canvas and says
 * whether it landed, drawing it up to tries times while it is open. The
 * pixel in the middle is cleared first and read back after: a device's
 * picture is opaque, so a clear pixel means the draw did nothing, over an
 * earlier picture too. WebKitGTK 2.50 converts a VideoFrame for a canvas
 * through a GStreamer pipeline that gives up after 200 ms and then draws
 * nothing, silently (Source/WebCore/platform/graphics/gstreamer/
 * GStreamerVideoFrameConverter.cpp, Pipeline::run; VideoFrameGStreamer.cpp,
 * VideoFrame::draw): under load the mirror said Live over no picture until
 * the phone's screen changed (issue 30, 2 restarts in 230; the converter's
 * "timeout expired" was in the log), and a later picture lost so would have
 * left the one before it on screen, called live. A draw that did nothing
 * leaves the earlier picture but that one pixel.
 */
export function copyPicture(ctx: PictureContext, img: CanvasImageSource, w: number, h: number, tries = 2): boolean {
  const x = w >> 1
  const y = h >> 1
  ctx.clearRect(x, y, 1, 1)
  for (let i = 0; i < tries; i++) {
    ctx.drawImage(img, 0, 0, w, h)
    if (ctx.getImageData(x, y, 1, 1).data[3] > 0) return true
  }
  return false
}

/**
 * shownSize is the size, in the picture's own pixels, that a mirror of
 * width x height CSS px shows at on a screen of pixel ratio dpr: what a
 * viewer tells the stream, so its stills are scaled to it (0 x 0 while the
 * box has no size yet: no bound).
 */
export function shownSize(width: number, height: number, dpr: number): Size {
  if (width <= 0 || height <= 0) return { w: 0, h: 0 }
  const r = dpr > 0 ? dpr : 1
  return { w: Math.ceil(width * r), h: Math.ceil(height * r) }
}

/** sizeQuery is the stream URL's part that says a viewer's size ("" for none). */
export function sizeQuery(s: Size): string {
  return s.w > 0 && s.h > 0 ? `&w=${s.w}&h=${s.h}` : ''
}
