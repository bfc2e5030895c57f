// The pause panel from the person's side: every edit made before Continue
// runs (README: the panel edits the goal and the pending steps), the steps
// before the goal so the engine keeps the person's steps for the new goal,
// and a refused edit keeps the run paused.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import PausePanel from './PausePanel.svelte'
import { commands } from '../lib/commands'
import { fromSnapshot } from '../lib/events'
import { store } from '../lib/store.svelte'

const tap = (x: number) => ({ type: 'tap', x, y: 100 })

let app: Record<string, unknown> | null = null
beforeEach(() => {
  store.selected = 'p1'
  store.runs = {
    p1: fromSnapshot({ id: 'r1', device: 'p1', goal: 'open the shop', state: 'Paused', seq: 1,
      usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 },
      plan: { todo: [{ action: tap(1), status: 'current' }, { action: tap(2), status: 'pending' },
        { action: tap(3), status: 'pending' }, { action: tap(4), status: 'pending' }] } }, 1),
  }
})
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  vi.restoreAllMocks()
})

function render() {
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(PausePanel, { target })
  flushSync()
  const calls: string[] = []
  const spies = {
    editGoal: vi.spyOn(commands, 'editGoal').mockImplementation(async (g) => (calls.push(`goal:${g}`), true)),
    editPending: vi.spyOn(commands, 'editPending').mockImplementation(async (a) => {
      calls.push(`pending:${a.map((x) => x.x).join(',')}`)
      // The engine's answer arrives as events: the run's view is replaced.
      const r = store.runs.p1
      store.runs = { p1: { ...r, plan: { todo: [r.plan.todo[0], ...a.map((action) => ({ action, status: 'pending' as const }))] } } }
      flushSync()
      return true
    }),
    resume: vi.spyOn(commands, 'resume').mockImplementation(async () => (calls.push('resume'), true)),
  }
  return {
    calls,
    spies,
    typeGoal(text: string) {
      const box = target.querySelector<HTMLTextAreaElement>('[data-testid="pause-goal"]')!
      box.value = text
      box.dispatchEvent(new Event('input', { bubbles: true }))
      flushSync()
    },
    remove(n: number) {
      target.querySelectorAll<HTMLButtonElement>('li button.x')[n].click()
      flushSync()
    },
    /** continueRun clicks Continue; the mocked calls answer at once, so
     * every call the click makes has been made by the next task. */
    async continueRun() {
      target.querySelector<HTMLButtonElement>('[data-testid="pause-continue"]')!.click()
      await new Promise((r) => setTimeout(r, 0))
    },
  }
}

describe('PausePanel', () => {
  it('what the person typed stays while the run view changes', () => {
    const p = render()
    p.typeGoal('buy earbuds')
    store.runs = { p1: { ...store.runs.p1, usage: { ...store.runs.p1.usage, elapsed_ms: 5000 } } }
    flushSync()
    expect(document.querySelector<HTMLTextAreaElement>('[data-testid="pause-goal"]')!.value).toBe('buy earbuds')
  })
  it('a new goal and removed steps both run, the steps first, then the run resumes', async () => {
    const p = render()
    p.typeGoal('open the shop and buy earbuds')
    p.remove(1) // tap(3)
    await p.continueRun()
    expect(p.calls).toEqual(['pending:2,4', 'goal:open the shop and buy earbuds', 'resume'])
  })
  it('only a new goal: the goal alone', async () => {
    const p = render()
    p.typeGoal('  open settings ')
    await p.continueRun()
    expect(p.calls).toEqual(['goal:open settings', 'resume'])
  })
  it('only removed steps: the steps alone', async () => {
    const p = render()
    p.remove(0)
    p.remove(2)
    await p.continueRun()
    expect(p.calls).toEqual(['pending:3', 'resume'])
  })
  it('nothing edited: resume alone', async () => {
    const p = render()
    await p.continueRun()
    expect(p.calls).toEqual(['resume'])
  })
  it('a step says what it pressed by the words on it, where the screen named them', () => {
    const r = store.runs.p1
    store.runs = { p1: { ...r,
      steps: [{ n: 1, action: { type: 'tap', x: 759, y: 1200 }, result: 'ok', ms: 80, target: '+1' },
        { n: 2, action: { type: 'tap', x: 40, y: 90 }, result: 'ok', ms: 70 }],
      plan: { todo: [{ action: { type: 'tap', x: 540, y: 2100 }, status: 'current',
        element: { label: 'Pay ¥99 com.tandem.shop:id/pay', shown: 'Pay ¥99', bounds: { x1: 300, y1: 2000, x2: 780, y2: 2200 } } }] } } }
    render()
    const texts = (sel: string) => [...document.querySelectorAll(sel)].map((e) => e.textContent!.trim())
    expect(texts('li.done')).toEqual(['tap “+1”', 'tap (40, 90)'])
    expect(texts('li.cur')).toEqual(['tap “Pay ¥99”'])
  })
  it('a refused edit keeps the run paused, and the goal is not sent without its steps', async () => {
    const p = render()
    p.spies.editPending.mockImplementation(async () => (p.calls.push('pending refused'), false))
    p.typeGoal('buy earbuds')
    p.remove(0)
    await p.continueRun()
    expect(p.calls).toEqual(['pending refused'])
  })
})
