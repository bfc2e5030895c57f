import { describe, expect, it } from 'vitest'

// The run's commands go through lib/commands.ts alone: a component that
// called the backend's run methods itself would bypass the one place that
// keeps a refusal's words for the control bar.
const sources = import.meta.glob(['../components/*.svelte', '../App.svelte'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>

describe('commands', () => {
  it('are the only route from the components to the run', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(10)
    const direct = /backend\.(Pause|Resume|TakeOver|HandBack|Stop|StopAfter|Confirm|Deny|Answer|EditGoal|EditPending)\(/
    const offenders = Object.entries(sources)
      .filter(([, src]) => direct.test(src))
      .map(([file]) => file)
    expect(offenders).toEqual([])
  })
})
