// Where a run's steps and the person's acts fall on its video (issue 52):
// the seconds from the video's start, for the marks under the player, the
// seek of a click on a step and the step the playhead is on.
import type { RunDetail, RunVideo } from './backend'

/** One mark: the row it stands for (as HistoryDialog keys its rows), its time in the video. */
export interface Mark {
  key: string
  t: number
  act: boolean
  n?: number
}

/** The video a run is shown with: the one its first step falls in (a resumed run has several). */
export function videoOf(d: RunDetail): RunVideo | undefined {
  const vids = d.videos ?? []
  const first = d.steps.find((s) => s.at)?.at
  if (!first) return vids[0]
  return [...vids].reverse().find((v) => Date.parse(v.start) <= Date.parse(first)) ?? vids[0]
}

/**
 * marks places each step and act of d that falls in video v (from its start, give or take a
 * second, to the next video's start: a resumed run has one a part) on it, in time order.
 */
export function marks(d: RunDetail, v: RunVideo): Mark[] {
  const zero = Date.parse(v.start)
  const next = (d.videos ?? []).map((o) => Date.parse(o.start)).filter((s) => s > zero)
  const end = next.length ? Math.min(...next) : Infinity
  const inPart = (iso: string) => Date.parse(iso) >= zero - 1000 && Date.parse(iso) < end
  const at = (iso: string) => Math.max(0, (Date.parse(iso) - zero) / 1000)
  const out: Mark[] = [
    ...(d.acts ?? []).flatMap((a, i) => (inPart(a.at) ? [{ key: `a${i}`, t: at(a.at), act: true }] : [])),
    ...d.steps.filter((s) => s.at && inPart(s.at)).map((s) => ({ key: `s${s.n}`, t: at(s.at!), act: false, n: s.n })),
  ]
  return out.sort((a, b) => a.t - b.t)
}

/** currentAt is the key of the last mark at or before t ('' before the first). */
export function currentAt(ms: Mark[], t: number): string {
  let cur = ''
  for (const m of ms) {
    if (m.t <= t + 0.001) cur = m.key
  }
  return cur
}
