import { describe, expect, it } from 'vitest'
import { controls, isLive, mirrorTakesOver, type RunState } from './controls'

const all: RunState[] = ['idle', 'planning', 'executing', 'waiting_for_stability', 'waiting_for_user', 'paused', 'manual', 'done', 'failed', 'stopped']

describe('controls', () => {
  it.each([
    ['idle', ['start']],
    ['planning', ['pause', 'stop', 'stop_after', 'take_over']],
    ['executing', ['pause', 'stop', 'stop_after', 'take_over']],
    ['waiting_for_user', ['stop', 'take_over']],
    ['paused', ['resume', 'stop', 'take_over']],
    ['manual', ['hand_back', 'stop']],
    ['done', ['start']],
  ] as [RunState, string[]][])('%s -> %j', (s, want) => {
    expect([...controls(s)].sort()).toEqual(want.sort())
  })
  it('offers Stop in every live state, and Start in none', () => {
    for (const s of all) {
      expect(controls(s).has('stop')).toBe(isLive(s))
      expect(controls(s).has('start')).toBe(!isLive(s))
    }
  })
  it('never offers pause and resume together', () => {
    for (const s of all) expect(controls(s).has('pause') && controls(s).has('resume')).toBe(false)
  })
  it('mirror clicks take over only while the agent holds the device', () => {
    expect(mirrorTakesOver('executing')).toBe(true)
    expect(mirrorTakesOver('manual')).toBe(false)
    expect(mirrorTakesOver('idle')).toBe(false)
  })
})
