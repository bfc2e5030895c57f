// A step's thumbnail whose frame is written late (the record's writer is
// behind on a busy machine) keeps asking for it and shows it when it comes;
// it gives up only after a long, bounded wait (issue 30 item 1: a step's
// thumbnail stayed blank though the recorded frame was fine).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import StepThumb from './StepThumb.svelte'

let app: Record<string, unknown> | null = null
beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }))
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  vi.useRealTimers()
})

function render() {
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(StepThumb, { target, props: { src: 'http://127.0.0.1:1/frames/run/frames/00001.jpg?token=t', action: { type: 'tap', x: 10, y: 20 }, screen: { w: 100, h: 200 } } })
  flushSync()
  return {
    img: () => target.querySelector('img'),
    fail() {
      this.img()!.dispatchEvent(new Event('error'))
      flushSync()
    },
  }
}

describe('StepThumb', () => {
  it('asks again for a frame that is not written yet, for seconds, and shows it when it comes', () => {
    const t = render()
    for (let i = 0; i < 5; i++) {
      const before = t.img()!.src
      t.fail()
      expect(t.img()).not.toBeNull() // still waiting, not given up
      expect(t.img()!.classList.contains('waiting')).toBe(true) // out of sight, no broken-image mark
      vi.advanceTimersByTime(6_000) // five tries: half a minute of asking
      flushSync()
      expect(t.img()!.src).not.toBe(before) // asked again
    }
    t.img()!.dispatchEvent(new Event('load'))
    flushSync()
    expect(t.img()).not.toBeNull()
    expect(t.img()!.classList.contains('waiting')).toBe(false)
  })
  it('gives up after a bounded wait', () => {
    const t = render()
    for (let i = 0; i < 40 && t.img(); i++) {
      t.fail()
      vi.advanceTimersByTime(10_000)
      flushSync()
    }
    expect(t.img()).toBeNull()
  })
})
