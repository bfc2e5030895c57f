import { afterEach, describe, expect, it } from 'vitest'
import { backend, BackendMissing, onRunEvent } from './backend'
import { boundServices } from './gen/types'

// Go binds five services (app/api.go); the page calls backend.X and this
// module finds X's service in the generated list.
describe('backend routes each call to its service', () => {
  afterEach(() => {
    delete window.go
  })

  it('calls the method on the service Go binds it on', async () => {
    const calls: string[] = []
    const service = (name: string) =>
      new Proxy({}, { get: (_t, m: string) => (...args: unknown[]) => (calls.push(`${name}.${m}(${args.join(',')})`), Promise.resolve(m)) })
    window.go = { app: Object.fromEntries(Object.keys(boundServices).map((s) => [s, service(s)])) }
    expect(await backend.Stop('run-1')).toBe('Stop')
    expect(await backend.MirrorGesture('dev', { type: 'tap', x: 1, y: 2 })).toBe('MirrorGesture')
    expect(await backend.Profiles()).toBe('Profiles')
    expect(calls).toEqual(['RunsAPI.Stop(run-1)', 'MirrorAPI.MirrorGesture(dev,[object Object])', 'SettingsAPI.Profiles()'])
  })

  it('every method the page may call is on exactly one service', () => {
    const names = Object.values(boundServices).flat()
    expect(new Set(names).size).toBe(names.length)
    expect(names).toContain('StartRun')
  })

  it('says what is missing', async () => {
    expect(() => backend.Stop('x')).toThrow(BackendMissing)
    window.go = { app: { RunsAPI: {} } }
    await expect(backend.Stop('x')).rejects.toThrow('backend method Stop is missing')
  })
})

// The window sends a run's events one at a time ("run") or in batches
// ("runs", app/events.go); the page takes both, in order.
describe('onRunEvent', () => {
  afterEach(() => {
    delete (window as { runtime?: unknown }).runtime
  })

  it('takes single events and batches, in order, until unsubscribed', () => {
    const handlers = new Map<string, (...data: unknown[]) => void>()
    ;(window as { runtime?: unknown }).runtime = {
      EventsOn: (name: string, cb: (...data: unknown[]) => void) => {
        handlers.set(name, cb)
        return () => handlers.delete(name)
      },
    }
    const seen: number[] = []
    const off = onRunEvent((e) => seen.push(e.seq))
    handlers.get('run')!({ run: 'r', seq: 1, kind: 'state' })
    handlers.get('runs')!([{ run: 'r', seq: 2, kind: 'thought' }, { run: 'r', seq: 3, kind: 'state' }])
    expect(seen).toEqual([1, 2, 3])
    off()
    expect(handlers.size).toBe(0)
  })
})
