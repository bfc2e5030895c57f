// The page's one clock: every reader sees the same time, it ticks on whole
// seconds (so that all that moves with it changes in one drawing), and only
// while some reader is active.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushSync } from 'svelte'
import { seconds } from './clock.svelte'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(new Date('2026-11-26T20:00:00.300Z'))
})
afterEach(() => vi.useRealTimers())

describe('seconds', () => {
  it('ticks on whole seconds for all its readers at once, and stops when none is active', () => {
    const seen: number[][] = []
    let activeB = $state(true)
    const stop = $effect.root(() => {
      const a = seconds()
      const b = seconds(() => activeB)
      $effect(() => {
        seen.push([a.now, b.now])
      })
    })
    flushSync()
    expect(vi.getTimerCount()).toBe(1) // one timer for both
    vi.advanceTimersByTime(700) // to 20:00:01.000
    flushSync()
    expect(seen.at(-1)).toEqual([Date.parse('2026-11-26T20:00:01Z'), Date.parse('2026-11-26T20:00:01Z')])
    vi.advanceTimersByTime(1000)
    flushSync()
    expect(seen.at(-1)).toEqual([Date.parse('2026-11-26T20:00:02Z'), Date.parse('2026-11-26T20:00:02Z')])
    activeB = false
    flushSync()
    expect(vi.getTimerCount()).toBe(1) // a still ticks
    stop()
    flushSync()
    expect(vi.getTimerCount()).toBe(0)
  })
})
