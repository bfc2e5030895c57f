import { describe, expect, it } from 'vitest'
import { watchFront } from './front'

// A window and a document that the test moves in front and behind.
function fakePage(focused: boolean) {
  const win = new EventTarget() as unknown as Window
  const doc = new EventTarget() as unknown as Document & { visibilityState: string; hasFocus: () => boolean }
  let visible = 'visible'
  Object.defineProperty(doc, 'visibilityState', { get: () => visible })
  doc.hasFocus = () => focused
  return {
    win,
    doc,
    blur: () => ((focused = false), win.dispatchEvent(new Event('blur'))),
    focus: () => ((focused = true), win.dispatchEvent(new Event('focus'))),
    hide: () => ((visible = 'hidden'), doc.dispatchEvent(new Event('visibilitychange'))),
    show: () => ((visible = 'visible'), doc.dispatchEvent(new Event('visibilitychange'))),
  }
}

describe('watchFront', () => {
  it('tells Go where the window is now and at each change, once per change', () => {
    const told: boolean[] = []
    const p = fakePage(true)
    const stop = watchFront(p.win, p.doc, async (f) => void told.push(f))
    p.blur()
    p.blur()
    p.focus()
    p.hide()
    p.show()
    expect(told).toEqual([true, false, true, false, true])
    stop()
    p.blur()
    expect(told).toHaveLength(5)
  })
  it('starts behind when the page has no focus', () => {
    const told: boolean[] = []
    const p = fakePage(false)
    watchFront(p.win, p.doc, async (f) => void told.push(f))
    expect(told).toEqual([false])
  })
})
