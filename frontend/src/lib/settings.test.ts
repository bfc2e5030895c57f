import { describe, expect, it } from 'vitest'
import { settingsChanges, type Settings } from './backend'

const base: Settings = {
  language: 'en',
  theme: 'system',
  recent_goals: ['a'],
  active_profile: 'p1',
  budget: { max_steps: 50, max_tokens: 0, max_cost: 0, max_minutes: 30 },
  policy_words: ['pay', '支付'],
  policy_apps: [],
  stability_ms: 3000,
  wait_to_ask: false,
  stop_after_steps: 1,
  welcome_done: true,
  mcp_http: false,
  mcp_port: 39517,
  confirm_in_window_only: false,
  adb_servers: [],
  scrcpy_server: '',
  video_off: false,
  video_keep_gb: 5,
  stop_hotkey: '',
}

describe('settingsChanges', () => {
  it('is empty when nothing changed', () => {
    expect(settingsChanges(base, structuredClone(base))).toEqual({})
  })
  it('carries only the changed fields, nested ones whole', () => {
    const next = structuredClone(base)
    next.active_profile = 'p2'
    next.budget.max_steps = 80
    expect(settingsChanges(base, next)).toEqual({ active_profile: 'p2', budget: { ...base.budget, max_steps: 80 } })
  })
  it('keeps an emptied list as a change (the person cleared it)', () => {
    expect(settingsChanges(base, { ...base, policy_words: [] })).toEqual({ policy_words: [] })
  })
})
