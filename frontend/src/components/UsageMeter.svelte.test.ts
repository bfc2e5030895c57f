// The live meter from the person's side (issue 30 item 5): the clock never
// goes backwards (a snapshot re-delivering the last usage, a pause, a
// take-over), it counts from when the engine measured, and the person's
// inputs are steps in the count as History and the report count them.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import UsageMeter from './UsageMeter.svelte'
import type { UsageEvent } from '../lib/events'

let app: Record<string, unknown> | null = null
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] })
  vi.setSystemTime(new Date('2026-11-26T20:00:00Z'))
})
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  vi.useRealTimers()
})

const usage = (elapsed: number, at: number, steps = 16, person = 0): UsageEvent => ({
  total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 },
  calls: steps,
  steps,
  person_steps: person,
  elapsed_ms: elapsed,
  at: new Date(at).toISOString(),
})

function render(u: UsageEvent, live = true) {
  const target = document.createElement('div')
  document.body.append(target)
  const props = $state({ usage: u, live })
  app = mount(UsageMeter, { target, props })
  flushSync()
  return {
    set(u: UsageEvent, live = true) {
      props.usage = u
      props.live = live
      flushSync()
    },
    tick(ms: number) {
      vi.advanceTimersByTime(ms)
      flushSync()
    },
    elapsed: () => target.querySelector('[data-testid="usage-elapsed"]')!.textContent,
    steps: () => target.querySelector('[data-testid="usage-steps"]')!.textContent,
  }
}

describe('UsageMeter', () => {
  it('shows the run’s age while its first model call waits, whatever else the run says meanwhile', () => {
    const t0 = Date.now()
    // The run started 56 s ago and its first call still waits: the start's
    // usage (elapsed 0, measured then) is all there is (issue 49 item 11).
    const m = render(usage(0, t0 - 56_000, 0))
    expect(m.elapsed()).toBe('0:56')
    // A waiting call's second arrives between ticks (a fresh copy of the
    // same usage): the figure moves on the clock's tick, never back to 0.
    m.tick(400)
    m.set(usage(0, t0 - 56_000, 0))
    expect(m.elapsed()).toBe('0:56')
    m.tick(700)
    expect(m.elapsed()).toBe('0:57')
  })
  it('counts from when the engine measured, and never goes back', () => {
    const t0 = Date.now()
    // The engine measured 0:30 fifteen seconds ago (a window opened late).
    const m = render(usage(30_000, t0 - 15_000))
    expect(m.elapsed()).toBe('0:45')
    m.tick(9_000) // paused: no usage events
    expect(m.elapsed()).toBe('0:54')
    // Resume: the snapshot re-delivers the last usage (a fresh copy).
    m.set(usage(30_000, t0 - 15_000))
    expect(m.elapsed()).toBe('0:54')
    m.tick(2_000)
    expect(m.elapsed()).toBe('0:56')
    // The next step's usage, measured now.
    m.set(usage(56_000, Date.now()))
    expect(m.elapsed()).toBe('0:56')
  })

  it('never shows less than it showed, even when a usage comes late', () => {
    const t0 = Date.now()
    const m = render(usage(100_000, t0))
    m.tick(36_000)
    expect(m.elapsed()).toBe('2:16')
    m.set(usage(120_000, Date.now())) // the engine says 2:00 now
    expect(m.elapsed()).toBe('2:16')
  })

  it('shows the final figure when the run ended', () => {
    const m = render(usage(61_000, Date.now() - 5_000), false)
    expect(m.elapsed()).toBe('1:01')
  })

  it("counts the person's inputs as steps", () => {
    const m = render(usage(1_000, Date.now(), 16, 4))
    expect(m.steps()).toBe('20')
  })
})
