import { describe, expect, it } from 'vitest'
import { controls, isLive, mirrorTakesOver, type RunState } from './controls'

const all: RunState[] = ['Idle', 'Planning', 'Executing', 'WaitingForStability', 'WaitingForUser', 'Paused', 'Manual', 'Done', 'Failed', 'Stopped']

describe('controls', () => {
  it.each([
    ['Idle', ['start']],
    ['Planning', ['pause', 'stop', 'stop_after', 'take_over']],
    ['Executing', ['pause', 'stop', 'stop_after', 'take_over']],
    ['WaitingForUser', ['stop', 'take_over']],
    ['Paused', ['resume', 'stop', 'take_over']],
    ['Manual', ['hand_back', 'stop']],
    ['Done', ['start']],
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
    expect(mirrorTakesOver('Executing')).toBe(true)
    expect(mirrorTakesOver('Manual')).toBe(false)
    expect(mirrorTakesOver('Idle')).toBe(false)
  })
})
