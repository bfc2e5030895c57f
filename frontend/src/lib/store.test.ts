import { describe, expect, it } from 'vitest'
import type { DeviceEntry } from './backend'
import type { EngineEvent } from './events'
import { store } from './store.svelte'

const dev = (id: string, kind: 'phone' | 'desktop', state = kind === 'desktop' ? 'ready' : 'device'): DeviceEntry => ({
  id, name: id, kind, state, screen: { w: 1, h: 1 }, virtual: false, problem: '',
})

describe('device selection', () => {
  it('never picks this computer by itself', () => {
    store.selected = ''
    store.setDevices([dev('desktop:0', 'desktop')])
    expect(store.selected).toBe('')
    store.setDevices([dev('desktop:0', 'desktop'), dev('emulator-5554', 'phone')])
    expect(store.selected).toBe('emulator-5554')
  })
  it('keeps this computer once the person picked it', () => {
    store.selected = 'desktop:0'
    store.setDevices([dev('desktop:0', 'desktop'), dev('emulator-5554', 'phone')])
    expect(store.selected).toBe('desktop:0')
  })
})

describe('thought deltas', () => {
  const run = 'thinking-run'
  const device = 'phone-thoughts'
  const snapshot = (): EngineEvent => ({
    run, seq: 1, time: '', kind: 'snapshot',
    snapshot: {
      id: run, device, goal: 'g', state: 'Planning',
      plan: { todo: [] }, usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 },
      seq: 1,
    },
  }) as EngineEvent
  const thought = (seq: number, delta: string): EngineEvent => ({ run, seq, time: '', kind: 'thought', thought: { call: 1, delta } })

  it('are drawn once per frame, not once per token', () => {
    store.handle(snapshot())
    const before = store.runs
    for (let i = 0; i < 50; i++) store.handle(thought(2 + i, 'x'))
    expect(store.runs).toBe(before) // nothing redrawn yet
    store.flushThoughts()
    expect(store.runs).not.toBe(before)
    expect(store.runs[device].thought).toBe('x'.repeat(50))
  })
  it('are folded before any later event, so order is kept', () => {
    store.handle(thought(52, 'y'))
    store.handle({ run, seq: 53, time: '', kind: 'thought', thought: { call: 2, delta: 'new call' } })
    store.handle({ run, seq: 54, time: '', kind: 'state', state: { state: 'Paused', from: 'Planning' } })
    expect(store.runs[device].state).toBe('Paused')
    expect(store.runs[device].thought).toBe('new call')
  })
  it('reach the screen by the next frame without any other event', async () => {
    store.handle({ run, seq: 55, time: '', kind: 'thought', thought: { call: 2, delta: '!' } })
    await new Promise((r) => setTimeout(r, 100))
    expect(store.runs[device].thought).toBe('new call!')
  })
})

describe('several runs at once', () => {
  const snap = (run: string, device: string): EngineEvent =>
    ({
      run, seq: 1, time: '', kind: 'snapshot',
      snapshot: { id: run, device, goal: 'g', state: 'Planning', plan: { todo: [] }, usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 }, seq: 1 },
    }) as EngineEvent
  const asks = (run: string, seq: number, kind: 'confirm' | 'question'): EngineEvent[] => [
    { run, seq, time: '', kind: 'request', request: { kind, message: 'm' } } as EngineEvent,
    { run, seq: seq + 1, time: '', kind: 'state', state: { state: 'WaitingForUser', from: 'Planning' } } as EngineEvent,
  ]

  it('lists what each needs in the order it arrived, and tells each arrival once', () => {
    store.setDevices([dev('ph-a', 'phone'), dev('ph-b', 'phone'), dev('ph-c', 'phone')])
    store.handle(snap('run-a', 'ph-a'))
    store.handle(snap('run-b', 'ph-b'))
    store.handle(snap('run-c', 'ph-c'))
    const told: string[] = []
    const off = store.onNeed((n) => told.push(`${n.device}:${n.kind}`))
    asks('run-c', 2, 'question').forEach(store.handle)
    asks('run-a', 2, 'confirm').forEach(store.handle)
    expect(store.needs.map((n) => n.device)).toEqual(['ph-c', 'ph-a'])
    store.handle({ run: 'run-c', seq: 4, time: '', kind: 'state', state: { state: 'Planning', from: 'WaitingForUser' } } as EngineEvent)
    expect(store.needs.map((n) => n.device)).toEqual(['ph-a'])
    expect(told).toEqual(['ph-c:question', 'ph-a:confirm'])
    off()
  })

  it('sends a tile’s command with its own run, whatever is selected', async () => {
    store.selected = 'ph-b'
    const got: string[] = []
    await store.commandOn('ph-a', async (id) => got.push(id))
    await store.command(async (id) => got.push(id))
    expect(got).toEqual(['run-a', 'run-b'])
  })
})

// Under load a devices event can overtake the answer to a ListDevices asked
// before it: the answer is older than what the event said, and must not
// empty the list the event filled (issue 30: the Devices list empty during
// a run under load).
describe('the device list', () => {
  it('keeps an event newer than the answer to a call begun before it', async () => {
    let answer: (l: DeviceEntry[]) => void = () => {}
    window.go = { app: { DevicesAPI: { ListDevices: () => new Promise<DeviceEntry[]>((r) => (answer = r)) } } }
    try {
      store.setDevices([])
      const asked = store.refreshDevices()
      store.setDevices([dev('emulator-5554', 'phone')]) // the "devices" event
      answer([]) // computed before the phone came
      await asked
      expect(store.devices.map((d) => d.id)).toEqual(['emulator-5554'])
      // With no event meanwhile, the answer is the news.
      const again = store.refreshDevices()
      answer([dev('emulator-5554', 'phone'), dev('emulator-5556', 'phone')])
      await again
      expect(store.devices.map((d) => d.id)).toEqual(['emulator-5554', 'emulator-5556'])
    } finally {
      delete window.go
    }
  })
})

describe('a device another Tandem drives', () => {
  const id = 'phone-away'
  const snap = (runId: string, state: string, goal: string) =>
    ({
      id: runId, device: id, goal, state, plan: { todo: [] }, seq: 0,
      usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, person_steps: 0, elapsed_ms: 0, at: '' },
    }) as never
  const held = { ...dev(id, 'phone'), held_by: { door: 'run', pid: 7, since: '', run: 'other' } }

  it('shows the other run, not this window\'s ended one, and forgets it when the phone is free', () => {
    store.setDevices([held])
    store.handle({ run: 'mine', seq: 1, time: '', kind: 'snapshot', snapshot: snap('mine', 'Done', 'old goal') } as EngineEvent)
    expect(store.shownOn(id)?.goal).toBe('old goal')
    store.seeAway({ device: id, holder: held.held_by, run: snap('other', 'WaitingForUser', 'pay there') })
    expect(store.shownOn(id)?.id).toBe('other')
    expect(store.shownOn(id)?.state).toBe('WaitingForUser')
    expect(store.runs[id]?.id).toBe('mine') // commands still go to this window's own run
    store.setDevices([dev(id, 'phone')]) // let go: no held_by
    expect(store.shownOn(id)?.id).toBe('mine')
  })

  it('keeps this window\'s own live run shown', () => {
    store.setDevices([held])
    store.handle({ run: 'live', seq: 1, time: '', kind: 'snapshot', snapshot: snap('live', 'Planning', 'mine') } as EngineEvent)
    store.seeAway({ device: id, holder: held.held_by, run: snap('other2', 'Executing', 'theirs') })
    expect(store.shownOn(id)?.id).toBe('live')
    store.seeAway({ device: id, holder: held.held_by, gone: true })
    expect(store.away[id]).toBeUndefined()
  })
})
