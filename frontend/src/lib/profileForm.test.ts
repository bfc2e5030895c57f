import { describe, expect, it } from 'vitest'
import type { Profile } from './backend'
import { formatHelp, profileDirty, profileErrors } from './profileForm'
import { dictionaries } from './i18n.svelte'

const good: Profile = { id: 'm-1', name: 'Local', preset: 'custom', base_url: 'http://127.0.0.1:8000/v1', model: 'qwen', dialect: 'tools', variant: 'rel1000', key_masked: '' }

describe('profileErrors', () => {
  it('accepts a good profile', () => {
    expect(profileErrors(good)).toEqual({})
  })
  it('names each wrong field with a message key', () => {
    expect(profileErrors({ ...good, name: '  ' })).toEqual({ name: 'settings.err.name' })
    expect(profileErrors({ ...good, base_url: 'localhost:8000' })).toEqual({ base_url: 'settings.err.baseUrl' })
    expect(profileErrors({ ...good, base_url: 'https://user:sk@api.x/v1' })).toEqual({ base_url: 'settings.err.baseUrlKey' })
    expect(profileErrors({ ...good, model: '' })).toEqual({ model: 'settings.err.model' })
    expect(profileErrors({ ...good, temperature: 3 })).toEqual({ temperature: 'settings.err.temperature' })
    expect(profileErrors({ ...good, top_p: 0 })).toEqual({ top_p: 'settings.err.topP' })
    expect(profileErrors({ ...good, context_tokens: 100 })).toEqual({ context_tokens: 'settings.err.context' })
    expect(profileErrors({ ...good, max_tokens: -1 })).toEqual({ max_tokens: 'settings.err.maxTokens' })
    expect(profileErrors({ ...good, max_in_flight: -1 })).toEqual({ max_in_flight: 'settings.err.maxInFlight' })
    expect(profileErrors({ ...good, max_in_flight: 1.5 })).toEqual({ max_in_flight: 'settings.err.maxInFlight' })
    expect(profileErrors({ ...good, max_in_flight: 257 })).toEqual({ max_in_flight: 'settings.err.maxInFlight' })
  })
  it('leaves empty optional numbers alone', () => {
    expect(profileErrors({ ...good, temperature: null, top_p: undefined, context_tokens: 0, max_tokens: null, max_in_flight: 0 })).toEqual({})
  })
})

describe('profileDirty', () => {
  it('is clean when nothing changed', () => {
    expect(profileDirty(good, { ...good }, '')).toBe(false)
  })
  it('is dirty on an edited field or a typed key', () => {
    expect(profileDirty(good, { ...good, base_url: 'http://127.0.0.1:9/v1' }, '')).toBe(true)
    expect(profileDirty(good, { ...good }, 'sk-new')).toBe(true)
  })
  it('treats an empty number like an absent one', () => {
    expect(profileDirty({ ...good, temperature: null }, { ...good }, '')).toBe(false)
  })
  it('a new, unsaved profile is always an edit', () => {
    expect(profileDirty(null, { ...good, id: '' }, '')).toBe(true)
  })
})

describe('formatHelp', () => {
  it('explains every reply format and variant in both languages', () => {
    const all: [string, string][] = [['tools', 'rel1000'], ['tools', 'rel999'], ['tools', 'abs'], ['json', 'rel1000'], ['json', 'abs'], ['autoglm', ''], ['uitars', '1.0'], ['uitars', '1.5'], ['uitars', 'doubao']]
    for (const [d, v] of all) {
      const keys = formatHelp(d, v)
      expect(keys.length).toBeGreaterThan(0)
      for (const k of keys) for (const lang of ['en', 'zh-CN'] as const) expect(dictionaries[lang][k], `${lang} ${k}`).toBeTruthy()
    }
  })
})
