import { describe, expect, it } from 'vitest'
import { controls, handsOn, isLive, mirrorTakesOver, states, type Control, type RunState } from './controls'
import hands from './testdata/hands.json'
import { accepts, type Command } from './gen/transitions'

const all: readonly RunState[] = states

describe('controls', () => {
  it.each([
    ['Idle', ['start']],
    ['Planning', ['pause', 'stop', 'stop_after', 'take_over']],
    ['Executing', ['pause', 'stop', 'stop_after', 'take_over']],
    ['WaitingForUser', ['stop', 'take_over']],
    ['Paused', ['resume', 'stop', 'take_over']],
    ['Manual', ['hand_back', 'stop']],
    ['Done', ['start']],
    ['WaitingForStability', ['pause', 'stop', 'stop_after', 'take_over']],
    ['Failed', ['start']],
    ['Stopped', ['start']],
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
  it('offers only what the engine accepts in that state (the transition table)', () => {
    const command: Record<Control, Command> = {
      start: 'start', pause: 'pause', resume: 'resume', take_over: 'take_over',
      hand_back: 'hand_back', stop: 'stop', stop_after: 'stop_gracefully',
    }
    for (const s of all) {
      for (const c of controls(s)) {
        if (c === 'start' && !isLive(s)) continue // a new run, not a command to this one
        expect(accepts[s][command[c]], `${c} in ${s}`).toBeDefined()
      }
    }
  })
  it('mirror clicks take over only while the agent holds the device', () => {
    expect(mirrorTakesOver('Executing')).toBe(true)
    expect(mirrorTakesOver('Manual')).toBe(false)
    expect(mirrorTakesOver('Idle')).toBe(false)
  })
})

// Go decides who may touch a device (app/hands.go) and writes its rule as
// this vector; the page's reading of it must agree state by state.
describe('handsOn', () => {
  it('is the rule Go enforces', () => {
    const v = (hands as Record<string, Record<string, string>>).person // the person's row; an agent's act has its own
    expect(handsOn(undefined)).toBe(v.none)
    for (const s of states) expect(handsOn(s), s).toBe(v[s])
    expect(Object.keys(v).length).toBe(states.length + 1)
  })
})
