import { describe, expect, it } from 'vitest'
import type { DeviceEntry } from './backend'
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
