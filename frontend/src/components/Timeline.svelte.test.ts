// The person's acts in the Steps list: an answer keeps its question, a
// changed goal reads "Changed the goal — “…”" (a space each side of the
// dash), a stopped run's reason is in the UI's language, and a waiting
// call's seconds count with the page's clock.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import Timeline from './Timeline.svelte'
import { fromSnapshot, type PersonAct } from '../lib/events'
import { i18n } from '../lib/i18n.svelte'
import { store } from '../lib/store.svelte'

let app: Record<string, unknown> | null = null
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  i18n.lang = 'en'
})

function render(acts: PersonAct[], end?: { reason: string; why: { code: string; n?: string } }) {
  store.selected = 'p1'
  const usage = { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 }
  store.runs = {
    p1: fromSnapshot({ id: 'r1', device: 'p1', goal: 'buy it', state: end ? 'Stopped' : 'Planning', seq: 1, usage, acts,
      reason: end?.reason, why: end?.why, plan: { todo: [] },
      result: end ? { state: 'Stopped', success: false, reason: end.reason, why: end.why, steps: 0, calls: 0, usage: usage.total } : undefined }, 1),
  }
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(Timeline, { target })
  flushSync()
  return target
}

describe('the Steps list', () => {
  it('keeps the question beside the answer, and spaces the dash', () => {
    const el = render([
      { command: 'answer', text: 'blue', asked: { kind: 'question', message: 'Which colour?' } },
      { command: 'edit_goal', text: 'buy two' },
    ])
    const acts = [...el.querySelectorAll('[data-testid="person-act"]')].map((a) => a.textContent?.replace(/\s+/g, ' ').trim() ?? '')
    expect(acts[0]).toContain('The agent asked: “Which colour?”')
    expect(acts[0]).toContain('Answered — “blue”')
    expect(acts[1]).toContain('Changed the goal — “buy two”')
  })
  it('shows an allow or a deny on the screen it was decided on, the action marked', () => {
    store.frames = { url: 'http://127.0.0.1:1/frames/', token: 't' }
    store.devices = [{ id: 'p1', kind: 'phone', state: 'device', screen: { w: 1080, h: 2400 } } as (typeof store.devices)[number]]
    const pay = { type: 'tap', x: 540, y: 2179 } as const
    const el = render([
      { command: 'deny', text: 'too dear', action: pay, asked: { kind: 'confirm', message: 'tap needs your confirmation', action: pay, label: 'Pay ¥99', frame: 'frames/00003.jpg' } },
      { command: 'answer', text: 'blue', asked: { kind: 'question', message: 'Which colour?' } },
    ])
    const [deny, answer] = [...el.querySelectorAll('[data-testid="person-act"]')]
    expect(deny.querySelector('[data-testid="step-thumb"] img')?.getAttribute('src')).toBe('http://127.0.0.1:1/frames/r1/frames/00003.jpg?token=t')
    expect(deny.querySelector('svg circle')?.getAttribute('cx')).toBe('540')
    expect(deny.textContent).toContain('Denied: Press “Pay ¥99”')
    expect(answer.querySelector('[data-testid="step-thumb"]')).toBeNull()
    store.frames = null
    store.devices = []
  })
  it('words a graceful stop in Chinese', () => {
    i18n.lang = 'zh-CN'
    const el = render([{ command: 'stop_gracefully', n: 1 }], { reason: 'stopped gracefully', why: { code: 'stopped_gracefully' } })
    const text = el.textContent ?? ''
    expect(text).toContain('已在你允许的步骤之后停止')
    expect(text).not.toContain('stopped gracefully')
  })
  it('starts a stopped run\'s reason as a sentence on its own line', () => {
    // The reason's words follow "Stopped — " in the control bar; the result card read "you stopped the task".
    const el = render([{ command: 'stop' }], { reason: 'stopped by the person', why: { code: 'stopped_by_person' } })
    expect(el.querySelector('[data-testid="result-card"] .summary')?.textContent).toBe('You stopped the task')
  })
  it('redraws none of its rows for an event that changed none of them', () => {
    // A long run: every event made every card again (its time, its words),
    // so the page's work for a pause grew with the run.
    const el = render([])
    const usage = { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 }
    store.handle({ run: 'long', seq: 1, time: '', kind: 'snapshot',
      snapshot: { id: 'long', device: 'p1', goal: 'a long one', state: 'Planning', seq: 1, usage, plan: { todo: [] } } } as never)
    const ev = (seq: number, kind: string, more: object) => store.handle({ run: 'long', seq, time: '2026-11-27T12:00:00Z', kind, ...more } as never)
    let seq = 1
    for (let i = 0; i < 60; i++) ev(++seq, 'person', { person: { command: i % 2 ? 'resume' : 'pause' } })
    flushSync()
    expect(el.querySelectorAll('[data-testid="person-act"]')).toHaveLength(60)
    const times = vi.spyOn(Date.prototype, 'toLocaleTimeString')
    for (const state of ['Paused', 'Planning', 'Paused', 'Planning']) {
      ev(++seq, 'state', { state: { state } })
      flushSync()
    }
    expect(times).toHaveBeenCalledTimes(0)
    ev(++seq, 'person', { person: { command: 'pause' } })
    flushSync()
    expect(el.querySelectorAll('[data-testid="person-act"]')).toHaveLength(61)
    expect(times).toHaveBeenCalledTimes(1) // the new row's, only
    times.mockRestore()
  })
  it('counts the seconds of a waiting call with the page clock, not when the engine tells them', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    vi.setSystemTime(new Date('2026-11-27T12:00:00.000Z'))
    try {
      const el = render([])
      const usage = { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 }
      store.handle({ run: 'w', seq: 1, time: '', kind: 'snapshot',
        snapshot: { id: 'w', device: 'p1', goal: 'wait', state: 'Planning', seq: 1, usage, plan: { todo: [] } } } as never)
      const waitingText = () => el.querySelector('[data-testid="waiting"]')?.textContent
      // The call began 0.4 s before a whole second; the engine tells each
      // second of it, 0.4 s after each of the page's ticks.
      vi.advanceTimersByTime(400)
      let seq = 1
      const notice = (ms: number) =>
        store.handle({ run: 'w', seq: ++seq, time: '', kind: 'waiting', waiting: { call: 1, since: '', elapsed_ms: ms } } as never)
      const shown: (string | undefined)[] = []
      vi.advanceTimersByTime(600) // 12:00:01.000, a tick
      flushSync()
      notice(1000) // 12:00:01.000 + 0.4 s
      vi.advanceTimersByTime(400)
      flushSync()
      shown.push(waitingText())
      for (let s = 2; s <= 4; s++) {
        vi.advanceTimersByTime(600) // the tick
        flushSync()
        shown.push(waitingText())
        vi.advanceTimersByTime(400)
        notice(s * 1000) // the notice: no change on the screen
        flushSync()
        shown.push(waitingText())
      }
      // Each shown value holds from one tick to the next.
      expect(shown).toEqual([
        'waiting for the model (0 s)…',
        'waiting for the model (1 s)…', 'waiting for the model (1 s)…',
        'waiting for the model (2 s)…', 'waiting for the model (2 s)…',
        'waiting for the model (3 s)…', 'waiting for the model (3 s)…',
      ])
    } finally {
      vi.useRealTimers()
    }
  })
})
