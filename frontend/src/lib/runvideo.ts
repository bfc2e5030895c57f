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

/** marks places each step and act of d on video v, in time order (before its start: at 0). */
export function marks(d: RunDetail, v: RunVideo): Mark[] {
  const zero = Date.parse(v.start)
  const at = (iso: string) => Math.max(0, (Date.parse(iso) - zero) / 1000)
  const out: Mark[] = [
    ...(d.acts ?? []).map((a, i) => ({ key: `a${i}`, t: at(a.at), act: true })),
    ...d.steps.filter((s) => s.at).map((s) => ({ key: `s${s.n}`, t: at(s.at!), act: false, n: s.n })),
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
