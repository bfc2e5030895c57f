import { describe, expect, it } from 'vitest'
import gestureVector from './testdata/gestures.json?raw'
import { fit, toDevice, toBox, gesture, wheelScroll, type Gesture, type Point } from './mirror'

const phone = { w: 1080, h: 2400 }

describe('fit', () => {
  it('letterboxes a tall phone in a wide box (bars left and right)', () => {
    const f = fit(phone, { w: 800, h: 600 })
    expect(f.scale).toBeCloseTo(0.25)
    expect(f.width).toBeCloseTo(270)
    expect(f.height).toBeCloseTo(600)
    expect(f.left).toBeCloseTo(265)
    expect(f.top).toBe(0)
  })
  it('letterboxes a landscape (rotated) frame in a tall box (bars top and bottom)', () => {
    const f = fit({ w: 2400, h: 1080 }, { w: 600, h: 800 })
    expect(f.scale).toBeCloseTo(0.25)
    expect(f.left).toBe(0)
    expect(f.top).toBeCloseTo(265)
  })
  it('gives a zero fit for empty sizes', () => {
    expect(fit({ w: 0, h: 0 }, { w: 10, h: 10 }).scale).toBe(0)
  })
})

describe('toDevice', () => {
  const box = { w: 800, h: 600 }
  it.each([
    [{ x: 265, y: 0 }, { x: 0, y: 0 }],
    [{ x: 400, y: 300 }, { x: 540, y: 1200 }],
    [{ x: 534.9, y: 599.9 }, { x: 1079, y: 2399 }],
  ])('%j -> %j', (p, want) => {
    expect(toDevice(p, phone, box)).toEqual(want)
  })
  it.each([[{ x: 100, y: 300 }], [{ x: 700, y: 300 }], [{ x: 400, y: 600 }]])('%j on the bars is ignored', (p) => {
    expect(toDevice(p, phone, box)).toBeNull()
  })
  it('maps a rotated frame', () => {
    expect(toDevice({ x: 300, y: 400 }, { w: 2400, h: 1080 }, { w: 600, h: 800 })).toEqual({ x: 1200, y: 540 })
  })
  it('is the same map on a HiDPI screen (both sides in CSS px)', () => {
    // A 1440x3200 phone in a 360x800 CSS box: devicePixelRatio does not enter.
    expect(toDevice({ x: 180, y: 400 }, { w: 1440, h: 3200 }, { w: 360, h: 800 })).toEqual({ x: 720, y: 1600 })
  })
  it('round-trips with toBox', () => {
    const p = { x: 321, y: 1777 }
    const b = toBox(p, phone, box)
    expect(toDevice(b, phone, box)).toEqual(p)
  })
})

describe('gesture', () => {
  it('small quick movement is a tap', () => {
    expect(gesture({ x: 100, y: 100 }, { x: 105, y: 103 }, 120, phone)).toEqual({ type: 'tap', x: 100, y: 100 })
  })
  it('held in place is a long press', () => {
    expect(gesture({ x: 100, y: 100 }, { x: 101, y: 100 }, 700, phone)).toMatchObject({ type: 'long_press', ms: 700 })
  })
  it('a drag is a swipe with its duration clamped', () => {
    expect(gesture({ x: 500, y: 2000 }, { x: 500, y: 600 }, 20, phone)).toEqual({
      type: 'swipe', x: 500, y: 2000, x2: 500, y2: 600, ms: 100,
    })
  })
})

describe('the shared gesture rule (src/lib/testdata/gestures.json, also mirror/gesture.go)', () => {
  type Case = { name: string; screen: { w: number; h: number }; down: Point; up: Point; ms: number; want: Gesture }
  const cases = (JSON.parse(gestureVector) as { cases: Case[] }).cases
  it('has cases', () => expect(cases.length).toBeGreaterThan(4))
  for (const c of cases) {
    it(c.name, () => {
      expect(gesture(c.down, c.up, c.ms, c.screen)).toEqual(c.want)
    })
  }
})

describe('wheelScroll', () => {
  it('scrolls the way the wheel turned, sideways when it moved more sideways', () => {
    const p = { x: 10, y: 20 }
    expect(wheelScroll(0, 120, p)).toEqual({ type: 'scroll', x: 10, y: 20, direction: 'down' })
    expect(wheelScroll(0, -3, p).direction).toBe('up')
    expect(wheelScroll(40, 10, p).direction).toBe('right')
    expect(wheelScroll(-40, 39, p).direction).toBe('left')
  })
})
