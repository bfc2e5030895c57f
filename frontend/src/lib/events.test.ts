import { describe as group, expect, it } from 'vitest'
import { apply, costText, describe, emptyUsage, requestText, Sequencer, type EngineEvent, type Request, type RunView, type Snapshot } from './events'
import { i18n, waitingText } from './i18n.svelte'
// The vector the Go test writes and checks (engine/guarantees_test.go).
import foldVector from './testdata/fold_takeover.json?raw'

const snap = (seq = 1): EngineEvent => ({
  run: 'r1', seq, time: '', kind: 'snapshot',
  snapshot: {
    id: 'r1', device: 'emulator-5554', goal: 'add 3', state: 'Idle',
    plan: { todo: [] }, usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 },
    seq,
  },
})
const ev = (seq: number, e: Partial<EngineEvent>): EngineEvent => ({ run: 'r1', seq, time: '', kind: 'state', ...e }) as EngineEvent

group('apply', () => {
  it('starts from a snapshot and folds later events in order', () => {
    let v = apply(null, snap())
    v = apply(v, ev(2, { kind: 'state', state: { state: 'Planning', from: 'Idle' } }))
    v = apply(v, ev(3, { kind: 'thought', thought: { call: 1, delta: 'I see ' } }))
    v = apply(v, ev(4, { kind: 'thought', thought: { call: 1, delta: 'a counter' } }))
    expect(v!.thought).toBe('I see a counter')
    v = apply(v, ev(5, { kind: 'plan', plan: { thought: 'tap +1 three times', todo: [{ action: { type: 'tap', x: 1, y: 2 }, status: 'current' }] } }))
    v = apply(v, ev(6, { kind: 'step', step: { n: 1, action: { type: 'tap', x: 1, y: 2 }, result: 'ok', ms: 40 } }))
    expect(v!.steps).toHaveLength(1)
    expect(v!.steps[0].thought).toBe('tap +1 three times')
    v = apply(v, ev(7, { kind: 'thought', thought: { call: 2, delta: 'new call' } }))
    expect(v!.thought).toBe('new call')
  })
  it('ignores stale and foreign events', () => {
    const v = apply(null, snap(5)) as RunView
    expect(apply(v, ev(5, { kind: 'state', state: { state: 'Planning', from: 'Idle' } }))).toBe(v)
    expect(apply(v, { ...ev(6, { kind: 'state', state: { state: 'Planning', from: 'Idle' } }), run: 'other' })).toBe(v)
    expect(apply(null, ev(6, { kind: 'state' }))).toBeNull()
  })
  it('clears the request when the run leaves WaitingForUser', () => {
    let v = apply(null, snap())
    v = apply(v, ev(2, { kind: 'request', request: { kind: 'confirm', message: 'Pay ¥99?', action: { type: 'tap', x: 5, y: 5 } } }))
    v = apply(v, ev(3, { kind: 'state', state: { state: 'WaitingForUser', from: 'Planning' } }))
    expect(v!.request?.kind).toBe('confirm')
    v = apply(v, ev(4, { kind: 'state', state: { state: 'Executing', from: 'WaitingForUser' } }))
    expect(v!.request).toBeNull()
  })
  it('records the result and final state on done', () => {
    let v = apply(null, snap())
    v = apply(v, ev(2, { kind: 'done', done: { state: 'Done', success: true, summary: 'Counter is 3', steps: 3, calls: 1, usage: { prompt_tokens: 1, completion_tokens: 1, cost: 0 } } }))
    expect(v!.state).toBe('Done')
    expect(v!.result?.summary).toBe('Counter is 3')
  })
})

group('describe', () => {
  it.each([
    [{ type: 'tap', x: 10, y: 20 }, 'tap (10, 20)'],
    [{ type: 'swipe', x: 1, y: 2, x2: 3, y2: 4 }, 'swipe (1, 2) → (3, 4)'],
    [{ type: 'type', text: '你好', submit: true }, 'type “你好” ⏎'],
    [{ type: 'hotkey', keys: ['ctrl', 'c'] }, 'hotkey ctrl+c'],
  ])('%j', (a, want) => expect(describe(a)).toBe(want))
})

group('Sequencer', () => {
  const seqs = (es: EngineEvent[]) => es.map((e) => e.seq)
  it('puts events the bus swapped back in order', () => {
    const s = new Sequencer()
    expect(seqs(s.push(snap(1)))).toEqual([1])
    expect(seqs(s.push(ev(2, {})))).toEqual([2])
    expect(seqs(s.push(ev(4, {})))).toEqual([])
    expect(s.waiting).toBe(true)
    expect(seqs(s.push(ev(5, {})))).toEqual([])
    expect(seqs(s.push(ev(3, {})))).toEqual([3, 4, 5])
    expect(s.waiting).toBe(false)
  })
  it('drops repeats and snapshots older than what was released', () => {
    const s = new Sequencer()
    s.push(snap(1))
    s.push(ev(2, {}))
    s.push(ev(3, {}))
    expect(s.push(ev(2, {}))).toEqual([])
    expect(s.push(snap(0))).toEqual([]) // StartRun's reply arriving after the bus
  })
  it('a newer snapshot skips what it already contains', () => {
    const s = new Sequencer()
    s.push(snap(1))
    s.push(ev(3, {}))
    s.push(ev(6, {}))
    expect(seqs(s.push(snap(4)))).toEqual([4])
    expect(seqs(s.push(ev(5, {})))).toEqual([5, 6])
  })
  it('flush gives up on a lost event and keeps going after it', () => {
    const s = new Sequencer()
    s.push(snap(1))
    s.push(ev(3, {}))
    s.push(ev(4, {}))
    expect(seqs(s.flush())).toEqual([3, 4])
    expect(seqs(s.push(ev(5, {})))).toEqual([5])
    expect(s.waiting).toBe(false)
  })
  it('a new run\'s events wait for its snapshot, which says where they start', () => {
    const s = new Sequencer()
    expect(s.push(ev(3, {}))).toEqual([])
    expect(s.push(ev(2, {}))).toEqual([])
    expect(s.waiting).toBe(true)
    // StartRun's reply: a snapshot that already includes event 1.
    expect(seqs(s.push(snap(1)))).toEqual([1, 2, 3])
    expect(s.push(snap(0))).toEqual([]) // the bus's own copy, older
  })
  it('runs are sequenced apart', () => {
    const s = new Sequencer()
    s.push(snap(1))
    s.push({ ...snap(1), run: 'r2' })
    expect(seqs(s.push({ ...ev(3, {}), run: 'r2' }))).toEqual([])
    expect(seqs(s.push(ev(2, {})))).toEqual([2])
  })
})

group('apply with snapshots', () => {
  it('a snapshot or plan without todos (null from Go) gives an empty list', () => {
    const s = snap(1)
    const v = apply(null, { ...s, snapshot: { ...s.snapshot!, plan: { todo: null as never } } }) as RunView
    expect(v.plan.todo).toEqual([])
    expect(apply(v, ev(2, { kind: 'plan', plan: { todo: null as never } }))!.plan.todo).toEqual([])
  })
  it('ignores a snapshot older than the view', () => {
    const v = apply(null, snap(5)) as RunView
    expect(apply(v, snap(3))).toBe(v)
  })
})

group('describe in Chinese', () => {
  it('words actions in the UI language', async () => {
    const { i18n } = await import('./i18n.svelte')
    i18n.lang = 'zh-CN'
    try {
      expect(describe({ type: 'tap', x: 1, y: 2 })).toBe('点击 (1, 2)')
      expect(describe({ type: 'scroll', direction: 'down' })).toBe('滚动 向下')
      expect(describe({ type: 'take_over', reason: '验证码' })).toBe('请你接管: 验证码')
    } finally {
      i18n.lang = 'en'
    }
  })
})

group('costText', () => {
  const u = (x: Partial<Parameters<typeof costText>[0]>) => ({ prompt_tokens: 1, completion_tokens: 1, cost: 0, ...x })
  it('shows the currency and never calls an unknown price free', () => {
    expect(costText(u({ cost: 0.0123, currency: 'USD' }))).toBe('$0.0123')
    expect(costText(u({ cost: 2.5, currency: 'CNY' }))).toBe('¥2.50')
    expect(costText(u({ cost: 0, currency: 'CNY' }))).toBe('¥0.0000')
    expect(costText(u({ cost: 1.2, currency: 'CHF' }))).toBe('1.20 CHF')
    expect(costText(u({ unpriced: true }))).toBe('—')
    expect(costText(u({ cost: 0.5, currency: 'USD', unpriced: true }))).toBe('≥$0.5000')
    expect(costText(u({ cost: 0.5 }))).toBe('0.5000') // a record from before currencies
    expect(costText(u({}))).toBe('0') // no call yet
  })
})

group('retry', () => {
  it('shows while the call is retried and clears when it answers', () => {
    let v = apply(null, snap(1))!
    v = apply(v, ev(2, { kind: 'retry', retry: { call: 1, attempt: 1, of: 4, wait_ms: 2000, status: 429, error: 'slow down' } }))!
    expect(v.retry?.status).toBe(429)
    v = apply(v, ev(3, { kind: 'usage', usage: v.usage }))!
    expect(v.retry).not.toBeNull()
    v = apply(v, ev(4, { kind: 'thought', thought: { call: 1, delta: 'ok' } }))!
    expect(v.retry).toBeNull()
  })
})

group('waiting', () => {
  it('shows the seconds waited while the call has no answer, and clears at its first words', () => {
    let v = apply(null, snap(1))!
    v = apply(v, ev(2, { kind: 'waiting', waiting: { call: 1, since: '2026-01-01T00:00:00Z', elapsed_ms: 12_400 } }))!
    expect(v.waiting?.elapsed_ms).toBe(12_400)
    i18n.lang = 'en'
    expect(waitingText(v.waiting!)).toBe('waiting for the model (12 s)…')
    i18n.lang = 'zh-CN'
    expect(waitingText(v.waiting!)).toBe('正在等待模型回复（12 秒）…')
    v = apply(v, ev(3, { kind: 'retry', retry: { call: 1, attempt: 1, of: 4, wait_ms: 2000, status: 500, error: 'x' } }))!
    expect(v.waiting).not.toBeNull()
    expect(v.retry).not.toBeNull()
    v = apply(v, ev(4, { kind: 'waiting', waiting: { call: 1, since: '2026-01-01T00:00:00Z', elapsed_ms: 13_400 } }))!
    expect(v.retry).not.toBeNull() // a waiting tick keeps the retry's words
    v = apply(v, ev(5, { kind: 'thought', thought: { call: 1, delta: 'ok' } }))!
    expect(v.waiting).toBeNull()
  })

  it('says how many requests are ahead while the call waits its turn for the model', () => {
    let v = apply(null, snap(1))!
    v = apply(v, ev(2, { kind: 'waiting', waiting: { call: 1, since: '2026-01-01T00:00:00Z', elapsed_ms: 3_100, ahead: 2 } }))!
    i18n.lang = 'en'
    expect(waitingText(v.waiting!)).toBe('waiting for the model: 2 ahead (3 s)…')
    i18n.lang = 'zh-CN'
    expect(waitingText(v.waiting!)).toBe('正在排队等待模型：前面还有 2 个（3 秒）…')
    v = apply(v, ev(3, { kind: 'waiting', waiting: { call: 1, since: '2026-01-01T00:00:00Z', elapsed_ms: 4_000 } }))!
    i18n.lang = 'en'
    expect(waitingText(v.waiting!)).toBe('waiting for the model (4 s)…') // sent: no longer in the queue
  })
})

group('model faults', () => {
  it('words a stalled, endless or web-page server in both languages', () => {
    const page: Request = { kind: 'model_error', message: 'the model call failed: the server answered with a web page…', cause: { code: 'model_web_page', detail: 'http://192.168.1.1/v1' } }
    i18n.lang = 'en'
    expect(requestText(page)).toBe('The server answered with a web page, not the API: check the base URL (http://192.168.1.1/v1) in Settings → Models.')
    expect(requestText({ kind: 'model_error', message: '…', cause: { code: 'model_no_first_byte', n: '60' } })).toContain('sent nothing for 60 s')
    i18n.lang = 'zh-CN'
    expect(requestText(page)).toBe('服务器返回的是网页，而不是 API：请在“设置 → 模型”中检查接口地址（http://192.168.1.1/v1）。')
    expect(requestText({ kind: 'model_error', message: '…', cause: { code: 'model_too_large', n: '4 MiB' } })).toContain('超过了 4 MiB')
  })
})

group('requestText', () => {
  it('words the case in the UI language, keeps an error\'s own words, falls back to the message', () => {
    i18n.lang = 'zh-CN'
    expect(requestText({ kind: 'budget', message: 'the step limit (50) is reached; …', cause: { code: 'budget_steps', n: '50' } })).toBe(
      '已达到步数上限（50）。继续将再允许同样多的步数，或者停止任务。',
    )
    const failed = requestText({
      kind: 'device_error', message: '…',
      action: { type: 'type', text: '你好' },
      cause: { code: 'action_failed', detail: 'typing non-ASCII text needs ADB Keyboard' },
    })
    expect(failed).toContain('typing non-ASCII text needs ADB Keyboard')
    expect(failed).toContain(describe({ type: 'type', text: '你好' }))
    expect(failed).not.toContain('{')
    expect(requestText({ kind: 'loop', message: 'the agent seems stuck', cause: { code: 'no_such_case' } })).toBe('the agent seems stuck')
    i18n.lang = 'en'
    expect(requestText({ kind: 'model_error', message: 'x', cause: { code: 'model_failed', detail: 'HTTP 500' } })).toBe(
      'The model call failed: HTTP 500. Keep going to try again.',
    )
  })
})

group('the shared fold vector (src/lib/testdata/fold_takeover.json)', () => {
  it('folds to the Go snapshot after WaitingForUser -> TakeOver', () => {
    const vec = JSON.parse(foldVector) as { events: EngineEvent[]; snapshot: Snapshot }
    const want = vec.snapshot
    let v = apply(null, {
      run: want.id, seq: 0, time: '', kind: 'snapshot',
      snapshot: { id: want.id, device: want.device, goal: want.goal, state: 'Idle', plan: { todo: [] }, usage: emptyUsage(), seq: 0 },
    })
    for (const e of vec.events) v = apply(v, e)
    expect(v!.state).toBe(want.state)
    expect(v!.request).toEqual(want.request ?? null)
    expect(v!.reason).toBe(want.reason ?? '')
    expect(v!.by).toBe(want.by ?? '')
    expect(v!.plan.todo).toEqual(want.plan.todo ?? [])
    expect(v!.usage).toEqual(want.usage)
    expect(v!.result).toEqual(want.result ?? null)
    expect(v!.steps.map((s) => [s.n, s.action, s.result])).toEqual((want.steps ?? []).map((s) => [s.n, s.action, s.result]))
    expect(v!.seq).toBe(want.seq)
  })
})
