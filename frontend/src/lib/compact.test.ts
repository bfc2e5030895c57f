import { describe, expect, it } from 'vitest'
import { wantsCompact } from './compact'
import { states } from './gen/transitions'

describe('wantsCompact', () => {
  it('is the bar only while the agent works on this computer', () => {
    const bar = states.filter((s) => wantsCompact(s, 'desktop', false))
    expect(bar).toEqual(['Planning', 'Executing', 'WaitingForStability'])
  })
  it('never for a phone, once the person expanded it, or without a run', () => {
    for (const s of states) {
      expect(wantsCompact(s, 'phone', false)).toBe(false)
      expect(wantsCompact(s, 'desktop', true)).toBe(false)
    }
    expect(wantsCompact(undefined, 'desktop', false)).toBe(false)
  })
})
