import { describe, expect, it } from 'vitest'
import { fit, toDevice, toBox, PressTrack, wheelScroll, pictureAge, copyPicture } from './mirror'

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

describe('PressTrack', () => {
  it('reports where a press went down and up, how long it was held and the farthest it got', () => {
    const t = new PressTrack({ x: 100, y: 100 }, 1000)
    t.move({ x: 400, y: 100 }) // out and back: Go calls it a swipe
    t.move({ x: 150, y: 100 })
    expect(t.press({ x: 101, y: 100 }, 1250.4, { w: 1080, h: 2400 })).toEqual({ x0: 100, y0: 100, x: 101, y: 100, ms: 250, far: 300, w: 1080, h: 2400 })
  })
  it('counts the release point as part of the way', () => {
    const t = new PressTrack({ x: 0, y: 0 }, 0)
    expect(t.press({ x: 30, y: 40 }, 10, { w: 720, h: 1600 }).far).toBe(50)
  })
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

describe('pictureAge', () => {
  it('dates the kept picture only while no fresh frame can come', () => {
    expect(pictureAge('live', 1000, 60_000)).toBeNull()
    expect(pictureAge('connecting', 0, 60_000)).toBeNull() // nothing shown yet
    expect(pictureAge('connecting', 1000, 43_500)).toBe(42)
    expect(pictureAge('lost', 1000, 1000)).toBe(0)
    expect(pictureAge('lost', 5000, 1000)).toBe(0) // a clock that stepped back
  })
})

describe('copyPicture', () => {
  // A canvas of one pixel that holds an earlier picture, and whose draws
  // land from the nth on (0: never), as WebKitGTK's do when its conversion
  // of a picture times out.
  const ctx = (landsFrom: number) => {
    let draws = 0
    let alpha = 255
    return {
      get draws() { return draws },
      clearRect() { alpha = 0 },
      drawImage() { if (++draws >= landsFrom && landsFrom > 0) alpha = 255 },
      getImageData() { return { data: [0, 0, 0, alpha] } },
    }
  }
  const img = {} as CanvasImageSource
  it('a picture that lands at once is drawn once', () => {
    const c = ctx(1)
    expect(copyPicture(c, img, 1080, 2400)).toBe(true)
    expect(c.draws).toBe(1)
  })
  it('a draw that did nothing is tried again while the picture is open', () => {
    const c = ctx(2)
    expect(copyPicture(c, img, 1080, 2400)).toBe(true)
    expect(c.draws).toBe(2)
  })
  it('a picture that never lands is said to have drawn nothing, over an earlier one too', () => {
    const c = ctx(0)
    expect(copyPicture(c, img, 1080, 2400)).toBe(false)
    expect(c.draws).toBe(2)
  })
})
