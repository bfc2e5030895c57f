// keepFoot on a list laid out by hand (jsdom lays nothing out): its height,
// its content's and its scroll position are set here as WebKit would, and
// the ResizeObserver is called when the list gets shorter.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { keepFoot } from './scroll'

let resized: (() => void)[] = []
beforeEach(() => {
  resized = []
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(cb: () => void) {
        resized.push(cb)
      }
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  )
})
afterEach(() => vi.unstubAllGlobals())

/** A list box: `box` px high, holding `content` px, scrolled `top` px (clamped as a browser does). */
function list(box: number, content: number) {
  const el = document.createElement('ol')
  const m = { box, content, top: 0 }
  Object.defineProperty(el, 'clientHeight', { get: () => m.box })
  Object.defineProperty(el, 'scrollHeight', { get: () => m.content })
  Object.defineProperty(el, 'scrollTop', {
    get: () => m.top,
    set: (v: number) => (m.top = Math.max(0, Math.min(v, m.content - m.box))),
  })
  const hidden = () => m.content - m.box - m.top
  return { el, m, hidden, scrolled: () => el.dispatchEvent(new Event('scroll')) }
}

describe('keepFoot', () => {
  it('keeps the newest row in sight when the list gets shorter in the frame of its own scroll', () => {
    const l = list(400, 1000)
    const foot = keepFoot()
    foot.attach(l.el)
    foot.toFoot()
    expect(l.hidden()).toBe(0)
    // The pause panel opens: the list is 158 px shorter, and only then does
    // the scroll event of toFoot's own scroll arrive.
    l.m.box = 242
    l.scrolled()
    resized.forEach((cb) => cb())
    expect(l.hidden()).toBe(0)
  })

  it('stays where the person scrolled it, until a new row', () => {
    const l = list(400, 1000)
    const foot = keepFoot()
    foot.attach(l.el)
    foot.toFoot()
    l.el.scrollTop = 100
    l.scrolled()
    l.m.box = 242
    resized.forEach((cb) => cb())
    expect(l.m.top).toBe(100)
    foot.toFoot()
    expect(l.hidden()).toBe(0)
  })

  it('takes the person back at the foot for the foot', () => {
    const l = list(400, 1000)
    const foot = keepFoot()
    foot.attach(l.el)
    l.el.scrollTop = 100
    l.scrolled()
    l.el.scrollTop = 600
    l.scrolled()
    l.m.box = 300
    resized.forEach((cb) => cb())
    expect(l.hidden()).toBe(0)
  })
})
