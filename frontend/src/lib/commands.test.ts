import { describe, expect, it } from 'vitest'

// Every call of the components to Go goes through lib/commands.ts: a
// component that called the backend itself would bypass the one place that
// keeps a refusal's words for the control bar, and what the components
// ask of Go could no longer be read in one file.
const sources = import.meta.glob(['../components/*.svelte', '../App.svelte', '../PopoutApp.svelte'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>

describe('commands', () => {
  it('are the only route from the components to Go', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(10)
    const direct = /\bbackend\.[A-Z]\w*\(|window\.go\b/
    const offenders = Object.entries(sources)
      .filter(([, src]) => direct.test(src))
      .map(([file]) => file)
    expect(offenders).toEqual([])
  })
  it('name only methods Go binds', async () => {
    const src = (await import('./commands.ts?raw')).default as string
    const { boundServices } = await import('./gen/types')
    const bound = new Set<string>(Object.values(boundServices).flat())
    const called = [...src.matchAll(/backend\.([A-Z]\w*)\(/g)].map((m) => m[1])
    expect(called.length).toBeGreaterThan(30)
    expect(called.filter((m) => !bound.has(m))).toEqual([])
  })
})
