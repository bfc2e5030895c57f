// The model form of Settings, as pure functions: which fields are wrong (the
// same rules as the Go side's Profile.validate, so a mistake shows next to
// its field before any save), whether the form holds unsaved edits, and a
// line of help for each reply format and variant.
import type { Profile } from './backend'
import type { Key } from './i18n.svelte'

export type ProfileField = 'name' | 'base_url' | 'model' | 'dialect' | 'variant' | 'temperature' | 'top_p' | 'context_tokens' | 'max_tokens' | 'max_in_flight'

/** profileErrors returns, per wrong field, the key of the message to show next to it. */
export function profileErrors(p: Profile): Partial<Record<ProfileField, Key>> {
  const out: Partial<Record<ProfileField, Key>> = {}
  if (!p.name.trim()) out.name = 'settings.err.name'
  let url: URL | null = null
  try {
    url = new URL(p.base_url.trim())
  } catch {
    url = null
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.host) out.base_url = 'settings.err.baseUrl'
  else if (url.username || url.password) out.base_url = 'settings.err.baseUrlKey'
  if (!p.model.trim()) out.model = 'settings.err.model'
  if (set(p.temperature) && (p.temperature! < 0 || p.temperature! > 2)) out.temperature = 'settings.err.temperature'
  if (set(p.top_p) && (p.top_p! <= 0 || p.top_p! > 1)) out.top_p = 'settings.err.topP'
  if (set(p.context_tokens) && p.context_tokens !== 0 && (p.context_tokens! < 2048 || p.context_tokens! > 10_000_000)) out.context_tokens = 'settings.err.context'
  if (set(p.max_tokens) && p.max_tokens! < 0) out.max_tokens = 'settings.err.maxTokens'
  if (set(p.max_in_flight) && (p.max_in_flight! < 0 || p.max_in_flight! > 256 || !Number.isInteger(p.max_in_flight))) out.max_in_flight = 'settings.err.maxInFlight'
  return out
}

function set(v: number | null | undefined): boolean {
  return v !== null && v !== undefined && !Number.isNaN(v)
}

const optionalNumbers = ['temperature', 'top_p', 'max_tokens', 'context_tokens', 'max_in_flight'] as const

/** normal makes equal forms compare equal: an empty number is an absent one. */
function normal(p: Profile): Profile {
  const n: Profile = { ...p }
  for (const k of optionalNumbers) if (!set(n[k]) || ((k === 'context_tokens' || k === 'max_in_flight') && n[k] === 0)) delete n[k]
  for (const k of ['vision_on_demand', 'ui_tree', 'action_cache'] as const) if (!n[k]) delete n[k]
  return n
}

/** profileDirty reports whether the form (and a typed key) differ from the saved profile (null: none yet). */
export function profileDirty(saved: Profile | null, form: Profile, key: string): boolean {
  if (key.trim()) return true
  if (!saved) return true
  const a = normal(saved)
  const b = normal(form)
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof Profile>
  for (const k of keys) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return true
  return false
}

const formats: Record<string, Key> = {
  tools: 'settings.fmt.tools',
  autoglm: 'settings.fmt.autoglm',
  uitars: 'settings.fmt.uitars',
  json: 'settings.fmt.json',
}

const variantHelp: Record<string, Key> = {
  rel1000: 'settings.var.rel1000',
  rel999: 'settings.var.rel999',
  abs: 'settings.var.abs',
  '1.0': 'settings.var.tars10',
  '1.5': 'settings.var.tars15',
  doubao: 'settings.var.doubao',
}

/** formatHelp is the keys of one line on the reply format and one on its variant (when it has a choice). */
export function formatHelp(dialect: string, variant: string): Key[] {
  const out: Key[] = []
  if (formats[dialect]) out.push(formats[dialect])
  if (dialect !== 'autoglm' && variantHelp[variant]) out.push(variantHelp[variant])
  return out
}
