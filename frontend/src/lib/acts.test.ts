import { describe as group, expect, it } from 'vitest'
import { actText, apply, targetLabel, timelineItems, type EngineEvent, type RunView } from './events'
import { i18n } from './i18n.svelte'

const snap: EngineEvent = {
  run: 'r1', seq: 1, time: '', kind: 'snapshot',
  snapshot: {
    id: 'r1', device: 'd', goal: 'buy earbuds', state: 'Planning',
    plan: { todo: [] }, usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 },
    seq: 1,
  },
}
const ev = (seq: number, e: Partial<EngineEvent>): EngineEvent => ({ run: 'r1', seq, time: '2026-11-23T21:00:00Z', kind: 'state', ...e }) as EngineEvent
const pay = { type: 'tap', x: 540, y: 2179 } as const

group('the person\'s acts', () => {
  it('are kept in the run view, between the agent\'s steps, in order', () => {
    let v = apply(null, snap)
    v = apply(v, ev(2, { kind: 'step', step: { n: 1, action: { type: 'launch', app: 'Shop' }, result: 'ok', ms: 40 } }))
    v = apply(v, ev(3, { kind: 'person', person: { command: 'deny', text: 'wrong card', action: pay } }))
    v = apply(v, ev(4, { kind: 'person', person: { command: 'hand_back', text: 'card changed', region: { x1: 1, y1: 2, x2: 3, y2: 4 } } }))
    v = apply(v, ev(5, { kind: 'step', step: { n: 2, action: pay, result: 'ok', ms: 40 } })) as RunView
    const items = timelineItems(v)
    expect(items.map((i) => (i.act ? i.act.command : `step ${i.step!.n}`))).toEqual(['step 1', 'deny', 'hand_back', 'step 2'])
  })
  it('an edited goal replaces the goal shown', () => {
    let v = apply(null, snap)
    v = apply(v, ev(2, { kind: 'person', person: { command: 'edit_goal', text: 'buy the blue earbuds' } }))
    expect(v!.goal).toBe('buy the blue earbuds')
  })
  it('come from the snapshot too', () => {
    const s = structuredClone(snap)
    s.snapshot!.acts = [{ command: 'pause' }, { command: 'resume' }]
    expect(timelineItems(apply(null, s)!).map((i) => i.act?.command)).toEqual(['pause', 'resume'])
  })
  it.each([
    ['en', { command: 'deny', text: 'wrong card', action: pay }, 'Denied: tap (540, 2179) — “wrong card”'],
    ['en', { command: 'confirm', action: pay }, 'Allowed: tap (540, 2179)'],
    // An answer to a confirmation says what the dialog said: the element's words, not a point.
    ['en', { command: 'confirm', action: pay, asked: { kind: 'confirm', message: 'tap(540,2179) needs your confirmation', action: pay, label: 'Pay ¥99' } }, 'Allowed: Press “Pay ¥99”'],
    ['zh-CN', { command: 'deny', action: pay, asked: { kind: 'confirm', message: 'tap(540,2179) needs your confirmation', action: pay, label: '支付 ¥99' } }, '拒绝了: 点击“支付 ¥99”'],
    ['en', { command: 'hand_back', text: 'card changed', region: { x1: 1, y1: 2, x2: 3, y2: 4 } }, 'Handed back — “card changed” · region (1, 2) – (3, 4)'],
    ['en', { command: 'pause' }, 'Paused the task'],
    ['zh-CN', { command: 'answer', text: '蓝色' }, '回答了 — “蓝色”'],
    ['zh-CN', { command: 'edit_goal', text: '买蓝色耳机' }, '修改了目标 — “买蓝色耳机”'],
  ] as const)('%s %j', (lang, act, want) => {
    i18n.lang = lang
    expect(actText(act)).toBe(want)
    i18n.lang = 'en'
  })
})

group('targetLabel', () => {
  const item = { action: pay, status: 'current' as const, element: { label: 'Pay ¥99 com.tandem.shop:id/pay', shown: 'Pay ¥99', bounds: { x1: 400, y1: 2100, x2: 680, y2: 2260 } } }
  it('names the element a confirmation is about', () => {
    expect(targetLabel(pay, [item])).toBe('Pay ¥99')
    expect(targetLabel({ type: 'tap', x: 500, y: 2200 }, [item])).toBe('Pay ¥99')
    expect(targetLabel({ type: 'tap', x: 10, y: 10 }, [item])).toBe('')
    expect(targetLabel({ type: 'key', key: 'home' }, [item])).toBe('')
  })
})
