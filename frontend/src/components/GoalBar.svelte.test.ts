// The goal box from the person's side: picking a recent goal replaces what
// is in the box, and a list with the same goal twice never breaks the bar.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import GoalBar from './GoalBar.svelte'
import { store } from '../lib/store.svelte'
import type { Profile } from '../lib/backend'

let app: Record<string, unknown> | null = null
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
})

function render(recent: string[]) {
  const target = document.createElement('div')
  document.body.append(target)
  const props = $state({ recent, modelName: 'M', profiles: [{ id: 'm', name: 'M' } as Profile], active: 'm', onStarted: () => {} })
  app = mount(GoalBar, { target, props })
  flushSync()
  return {
    setRecent(r: string[]) {
      props.recent = r
      flushSync()
    },
    box: target.querySelector<HTMLTextAreaElement>('[data-testid="goal"]')!,
    pick(goal: string) {
      const sel = target.querySelector<HTMLSelectElement>('[data-testid="recent-goals"]')!
      sel.value = goal
      sel.dispatchEvent(new Event('change', { bubbles: true }))
      flushSync()
    },
    options: () => [...target.querySelectorAll<HTMLOptionElement>('[data-testid="recent-goals"] option')].map((o) => o.value).filter(Boolean),
  }
}

describe('GoalBar', () => {
  it('a recent goal replaces the text in the box, every time', () => {
    const g = render(['打开微信', 'open notes'])
    g.box.value = 'half-typed'
    g.box.dispatchEvent(new Event('input', { bubbles: true }))
    flushSync()
    g.pick('open notes')
    expect(g.box.value).toBe('open notes')
    g.pick('打开微信')
    expect(g.box.value).toBe('打开微信')
    g.pick('打开微信')
    expect(g.box.value).toBe('打开微信')
  })
  it('after a goal is re-run (it comes back to the top of the list), picking still replaces', () => {
    const g = render(['open notes'])
    g.setRecent(['open notes', 'open notes'])
    g.pick('open notes')
    g.pick('open notes')
    expect(g.box.value).toBe('open notes')
    expect(g.options()).toEqual(['open notes'])
  })
  it('shows each goal once when the list repeats one (no duplicate-key throw)', () => {
    const g = render(['open notes', '打开微信', 'open notes'])
    expect(g.options()).toEqual(['open notes', '打开微信'])
  })
  it('text typed while the start is on its way is kept', async () => {
    store.devices = [{ id: 'p1', name: 'Phone', kind: 'phone', state: 'device', screen: { w: 1080, h: 2400 }, virtual: false, problem: '' }]
    store.selected = 'p1'
    let done: (ok: boolean) => void = () => {}
    const started = vi.spyOn(store, 'start').mockImplementation(() => new Promise((r) => (done = r)))
    const g = render([])
    const type = (text: string) => {
      g.box.value = text
      g.box.dispatchEvent(new Event('input', { bubbles: true }))
      flushSync()
    }
    type('open the counter')
    g.box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true }))
    expect(started).toHaveBeenCalledWith('open the counter')
    type('the next goal') // the task ended before StartRun answered
    done(true)
    await Promise.resolve()
    await Promise.resolve()
    flushSync()
    expect(g.box.value).toBe('the next goal')
    started.mockRestore()
    store.devices = []
    store.selected = ''
  })
})
