// The goal bar's recent goals: newest first, each goal once.

/** addRecent puts goal g on top of list, drops its older copies, and keeps at most max. */
export function addRecent(list: readonly string[], g: string, max = 20): string[] {
  const goal = g.trim()
  const out = goal ? [goal] : []
  for (const x of list) {
    if (out.length >= max) break
    if (!out.includes(x)) out.push(x)
  }
  return out
}
