// Code generated from engine/model/dialect (Names, Variants) by
// `go test ./engine/model/dialect -run TypeScript -update`. DO NOT EDIT.

/** The reply formats, in the order settings show them. */
export const dialects = ['tools', 'autoglm', 'uitars', 'json'] as const

export type Dialect = (typeof dialects)[number]

/** Each format's variants; the first is the default. */
export const variants: Record<Dialect, readonly string[]> = {
  tools: ['rel1000', 'rel999', 'abs'],
  autoglm: ['rel1000'],
  uitars: ['1.5', '1.0', 'doubao'],
  json: ['abs', 'rel1000', 'rel999'],
}
