// A tile's line while its run waits for the model says so (its place in
// the model's queue), instead of the goal it showed before: a tile that
// waits behind three other phones must not look stuck.
import { describe, expect, it } from 'vitest'
import { tileLine } from './tileline'
import { emptyUsage, type RunView } from './events'
import { i18n } from './i18n.svelte'

function planning(waiting: RunView['waiting']): RunView {
  return {
    id: 'r', device: 'a', goal: 'buy milk', state: 'Planning', reason: '', by: '', plan: { todo: [] }, thought: '', thoughtCall: 0,
    usage: emptyUsage(), request: null, retry: null, waiting, steps: [], acts: [], result: null, seq: 1,
  }
}

describe('tileLine', () => {
  it('says the place in the model queue while the call waits', () => {
    i18n.lang = 'en'
    const line = tileLine(planning({ call: 1, since: '', elapsed_ms: 3000, ahead: 2 }))
    expect(line).not.toBe('buy milk')
    expect(line).toContain('2 ahead')
    i18n.lang = 'zh-CN'
    expect(tileLine(planning({ call: 1, since: '', elapsed_ms: 3000, ahead: 2 }))).toContain('前面还有 2')
    i18n.lang = 'en'
  })

  it('shows the goal while planning without a wait', () => {
    expect(tileLine(planning(null))).toBe('buy milk')
  })

  it('says what a step pressed by the words on it, in the person’s language', () => {
    const run: RunView = { ...planning(null), state: 'Done',
      steps: [{ n: 1, action: { type: 'tap', x: 759, y: 1200 }, result: 'ok', ms: 80, target: '+1' }] }
    expect(tileLine(run)).toBe('tap “+1”')
    i18n.lang = 'zh-CN'
    expect(tileLine(run)).toBe('点击“+1”')
    i18n.lang = 'en'
    const acting: RunView = { ...planning(null), state: 'Executing',
      plan: { todo: [{ action: { type: 'long_press', x: 5, y: 6 }, status: 'current', element: { label: 'Notes id/n', shown: 'Notes', bounds: { x1: 0, y1: 0, x2: 9, y2: 9 } } }] } }
    expect(tileLine(acting)).toBe('long press “Notes”')
  })
})
