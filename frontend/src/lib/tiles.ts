// The side-by-side view's layout and its "needs you" list, as pure
// functions (the components only draw what these say).
//
// Layout: every usable device is a tile; the grid is the one, among all
// column counts, in which the smallest screen is drawn largest, each
// screen keeping its aspect (a phone stays tall, a display wide). So the
// window decides: one tile fills it, two sit side by side, four portrait
// phones make a row on a wide window and a 2×2 grid on a tall one, six
// make 3×2 or 2×3.
//
// Needs you: whatever a run needs the person for (a confirmation, a
// question, the model's take-over request, a loop, budget or error
// escalation, a failed run) is one entry, kept in the order it arrived;
// it leaves the list when the run no longer needs it (answered, stopped)
// or, for what needs no answer (a take-over request read, a failure seen),
// when the person has seen it.
import type { RunView } from './events'
import type { Size } from './mirror'

export interface Grid {
  cols: number
  rows: number
  /** one cell's size, CSS px */
  cell: Size
  /** the scale the smallest screen is drawn at (CSS px per device px) */
  scale: number
}

/**
 * tileGrid lays screens of the given sizes out in box: gap between cells,
 * chrome the height of a cell's own header and controls, above and below
 * its screen.
 */
export function tileGrid(screens: Size[], box: Size, chrome: number, gap: number): Grid {
  const n = screens.length
  const none: Grid = { cols: 0, rows: 0, cell: { w: 0, h: 0 }, scale: 0 }
  if (n === 0 || box.w <= 0 || box.h <= 0) return none
  let best = none
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols)
    const cell = { w: (box.w - gap * (cols - 1)) / cols, h: (box.h - gap * (rows - 1)) / rows }
    const room = { w: cell.w, h: cell.h - chrome }
    if (room.w <= 0 || room.h <= 0) continue
    const scale = Math.min(...screens.map((s) => (s.w > 0 && s.h > 0 ? Math.min(room.w / s.w, room.h / s.h) : Infinity)))
    const sc = Number.isFinite(scale) ? scale : Math.min(room.w, room.h)
    // A tie goes to fewer rows: a wide window's tiles stand in one row.
    if (sc > best.scale + 1e-9) best = { cols, rows, cell, scale: sc }
  }
  // A cell is no taller than its tallest screen drawn at that scale: the
  // grid stands centred rather than padding each tile with empty room.
  const tallest = Math.max(...screens.map((s) => s.h))
  if (best.cols > 0 && tallest > 0) best.cell = { w: best.cell.w, h: Math.min(best.cell.h, tallest * best.scale + chrome) }
  return best
}

export interface TilesView {
  grid: Grid
  /** where the needs list stands: a column beside the tiles, or a strip above them */
  needsAt: 'side' | 'top'
}

/**
 * tilesView lays the tiles and the needs list out in view: the list is a
 * column of width side beside the grid, unless the tiles are held by the
 * width and would leave bands above and below them (portrait phones in a
 * wide window), where a strip of height strip above them gives the tiles
 * the column's width and draws them clearly larger.
 */
export function tilesView(screens: Size[], view: Size, chrome: number, gap: number, side: number, strip: number): TilesView {
  const beside = tileGrid(screens, { w: view.w - side - gap, h: view.h }, chrome, gap)
  const above = tileGrid(screens, { w: view.w, h: view.h - strip - gap }, chrome, gap)
  return above.scale > beside.scale * 1.03 ? { grid: above, needsAt: 'top' } : { grid: beside, needsAt: 'side' }
}

/**
 * tellApart gives each device a short mark that tells it from the others
 * of the same name (four "Tandem Virtual Phone"s on a rack): its port when
 * its id is host:port, else its id; '' when its name is its own.
 */
export function tellApart(devices: { id: string; name: string }[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const d of devices) {
    const same = devices.filter((o) => o.name === d.name)
    if (same.length < 2) {
      out[d.id] = ''
      continue
    }
    const short = (id: string) => (/^[^:]+:\d+$/.test(id) ? ':' + id.split(':')[1] : id)
    const clash = same.some((o) => o.id !== d.id && short(o.id) === short(d.id))
    out[d.id] = clash ? d.id : short(d.id)
  }
  return out
}

export type NeedKind = NonNullable<RunView['request']>['kind'] | 'failed'

export interface Need {
  run: string
  device: string
  kind: NeedKind
}

/** needKey names one need of one run; a new request of the same kind after an answer is a new arrival. */
export const needKey = (n: Pick<Need, 'run' | 'kind'>): string => `${n.run}:${n.kind}`

/** needOf is what run r needs the person for now, or null. */
export function needOf(r: RunView): NeedKind | null {
  if (r.state === 'WaitingForUser' && r.request) return r.request.kind
  if (r.state === 'Manual' && r.request?.kind === 'take_over') return 'take_over'
  if (r.state === 'Failed') return 'failed'
  return null
}

/** needsAnswer says whether a need leaves the list only when the run moves on (not when seen). */
export function needsAnswer(k: NeedKind): boolean {
  return k !== 'take_over' && k !== 'failed'
}

/**
 * updateNeeds is the list after runs changed: the entries still needed, in
 * the order they arrived, then the new ones (in the order of order, the
 * devices as listed). seen holds the keys of needs the person has seen;
 * those that need no answer leave the list.
 */
export function updateNeeds(prev: Need[], runs: Record<string, RunView>, order: string[], seen: ReadonlySet<string>): Need[] {
  const now = new Map<string, Need>()
  const devices = [...order, ...Object.keys(runs).filter((d) => !order.includes(d))]
  for (const d of devices) {
    const r = runs[d]
    if (!r) continue
    const kind = needOf(r)
    if (!kind) continue
    const n = { run: r.id, device: d, kind }
    if (!needsAnswer(kind) && seen.has(needKey(n))) continue
    now.set(needKey(n), n)
  }
  const kept = prev.filter((n) => now.has(needKey(n)))
  const fresh = [...now.values()].filter((n) => !kept.some((k) => needKey(k) === needKey(n)))
  const next = [...kept, ...fresh]
  const same = next.length === prev.length && next.every((n, i) => n === prev[i] || needKey(n) === needKey(prev[i]))
  return same ? prev : next
}

/**
 * needsElsewhere are the needs on devices the window does not show now
 * (shown: the devices it shows), oldest first: what the "Needs you" banner
 * counts and leads to, since a request on a device out of view is seen
 * nowhere else.
 */
export function needsElsewhere(needs: Need[], shown: readonly string[]): Need[] {
  return needs.filter((n) => !shown.includes(n.device))
}
