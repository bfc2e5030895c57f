import { describe, expect, it } from 'vitest'
import { needKey, needOf, tellApart, tileGrid, tilesView, updateNeeds, type Need } from './tiles'
import { emptyUsage, type Request, type RunView } from './events'
import type { RunState } from './controls'

const phone = { w: 1080, h: 2400 }
const display = { w: 1920, h: 1080 }

describe('tileGrid', () => {
  it.each([
    // n phones, window box -> columns, rows
    [1, { w: 1200, h: 600 }, 1, 1],
    [2, { w: 1200, h: 600 }, 2, 1],
    [4, { w: 1200, h: 600 }, 4, 1], // a wide window: one row of tall phones
    [4, { w: 600, h: 1200 }, 2, 2], // a tall one: 2×2
    [6, { w: 1200, h: 600 }, 6, 1],
    [6, { w: 700, h: 900 }, 3, 2],
    [6, { w: 500, h: 1400 }, 2, 3],
  ])('%i phones in %o: %i×%i', (n, box, cols, rows) => {
    const g = tileGrid(Array(n).fill(phone), box, 80, 10)
    expect([g.cols, g.rows]).toEqual([cols, rows])
  })

  it('keeps every screen inside its cell at its own aspect', () => {
    for (const n of [1, 2, 3, 4, 5, 6]) {
      for (const box of [{ w: 936, h: 420 }, { w: 1256, h: 560 }, { w: 1900, h: 900 }]) {
        const screens = Array.from({ length: n }, (_, i) => (i % 3 === 2 ? display : phone))
        const g = tileGrid(screens, box, 80, 10)
        expect(g.cols * g.rows).toBeGreaterThanOrEqual(n)
        expect(g.cols * g.cell.w + (g.cols - 1) * 10).toBeLessThanOrEqual(box.w + 1e-6)
        expect(g.rows * g.cell.h + (g.rows - 1) * 10).toBeLessThanOrEqual(box.h + 1e-6)
        for (const s of screens) {
          expect(s.w * g.scale).toBeLessThanOrEqual(g.cell.w + 1e-6)
          expect(s.h * g.scale).toBeLessThanOrEqual(g.cell.h - 80 + 1e-6)
        }
        // No other column count draws the smallest screen larger.
        for (let c = 1; c <= n; c++) {
          const r = Math.ceil(n / c)
          const cw = (box.w - 10 * (c - 1)) / c
          const ch = (box.h - 10 * (r - 1)) / r - 80
          const sc = Math.min(...screens.map((s) => Math.min(cw / s.w, ch / s.h)))
          expect(sc).toBeLessThanOrEqual(g.scale + 1e-9)
        }
      }
    }
  })

  it('makes a cell no taller than its screen and chrome', () => {
    const g = tileGrid(Array(4).fill(phone), { w: 1000, h: 900 }, 80, 10)
    expect(g.cell.h).toBeCloseTo(2400 * g.scale + 80)
  })

  it('lays out nothing in no room', () => {
    expect(tileGrid([], { w: 500, h: 500 }, 80, 10).cols).toBe(0)
    expect(tileGrid([phone], { w: 0, h: 500 }, 80, 10).cols).toBe(0)
  })
})

function run(id: string, device: string, state: RunState, kind?: Request['kind']): RunView {
  return {
    id, device, goal: 'g', state, reason: '', by: '', plan: { todo: [] }, thought: '', thoughtCall: 0, usage: emptyUsage(),
    request: kind ? { kind, message: 'm' } : null, retry: null, waiting: null, steps: [], acts: [], result: null, seq: 1,
  }
}

describe('needs you', () => {
  const order = ['a', 'b', 'c', 'd']

  it('says what each state needs the person for', () => {
    expect(needOf(run('1', 'a', 'Planning'))).toBeNull()
    expect(needOf(run('1', 'a', 'WaitingForUser', 'confirm'))).toBe('confirm')
    expect(needOf(run('1', 'a', 'WaitingForUser', 'device_error'))).toBe('device_error')
    expect(needOf(run('1', 'a', 'Manual', 'take_over'))).toBe('take_over')
    expect(needOf(run('1', 'a', 'Manual'))).toBeNull() // the person took over: they are there
    expect(needOf(run('1', 'a', 'Failed'))).toBe('failed')
    expect(needOf(run('1', 'a', 'Stopped'))).toBeNull()
  })

  it('keeps the order of arrival, not the order of the devices', () => {
    let needs: Need[] = []
    let runs: Record<string, RunView> = { a: run('ra', 'a', 'Planning'), c: run('rc', 'c', 'Planning'), d: run('rd', 'd', 'Planning') }
    const seen = new Set<string>()
    runs = { ...runs, d: run('rd', 'd', 'WaitingForUser', 'confirm') }
    needs = updateNeeds(needs, runs, order, seen)
    runs = { ...runs, a: run('ra', 'a', 'WaitingForUser', 'question') }
    needs = updateNeeds(needs, runs, order, seen)
    runs = { ...runs, c: run('rc', 'c', 'Failed') }
    needs = updateNeeds(needs, runs, order, seen)
    expect(needs.map((n) => n.device)).toEqual(['d', 'a', 'c'])
    // Answering d removes it; the others keep their places.
    runs = { ...runs, d: run('rd', 'd', 'Executing') }
    needs = updateNeeds(needs, runs, order, seen)
    expect(needs.map((n) => n.device)).toEqual(['a', 'c'])
    // d asks again: it comes last, as a new arrival.
    runs = { ...runs, d: run('rd', 'd', 'WaitingForUser', 'confirm') }
    needs = updateNeeds(needs, runs, order, seen)
    expect(needs.map((n) => n.device)).toEqual(['a', 'c', 'd'])
  })

  it('lets what needs no answer go once seen, and only that', () => {
    const runs = { a: run('ra', 'a', 'Failed'), b: run('rb', 'b', 'WaitingForUser', 'confirm'), c: run('rc', 'c', 'Manual', 'take_over') }
    const needs = updateNeeds([], runs, order, new Set())
    expect(needs.map((n) => n.kind)).toEqual(['failed', 'confirm', 'take_over'])
    const seen = new Set(needs.map(needKey)) // the person clicked every entry
    expect(updateNeeds(needs, runs, order, seen).map((n) => n.kind)).toEqual(['confirm'])
  })

  it('is unchanged (the same list) when nothing changed', () => {
    const runs = { a: run('ra', 'a', 'WaitingForUser', 'confirm') }
    const needs = updateNeeds([], runs, order, new Set())
    expect(updateNeeds(needs, { ...runs }, order, new Set())).toBe(needs)
  })

  it('follows a device to its new run', () => {
    const one = updateNeeds([], { a: run('r1', 'a', 'Failed') }, order, new Set())
    const two = updateNeeds(one, { a: run('r2', 'a', 'WaitingForUser', 'confirm') }, order, new Set())
    expect(two).toEqual([{ run: 'r2', device: 'a', kind: 'confirm' }])
  })
})

describe('tellApart', () => {
  it('marks devices of one name by port or id, and no other', () => {
    const got = tellApart([
      { id: '127.0.0.1:36049', name: 'Tandem Virtual Phone' },
      { id: '127.0.0.1:37261', name: 'Tandem Virtual Phone' },
      { id: 'R58M1', name: 'Pixel 7' },
      { id: 'R58M2', name: 'Pixel 7' },
      { id: '10.0.0.2:5555', name: 'Redmi' },
      { id: 'desktop:0', name: 'This computer' },
    ])
    expect(got).toEqual({ '127.0.0.1:36049': ':36049', '127.0.0.1:37261': ':37261', R58M1: 'R58M1', R58M2: 'R58M2', '10.0.0.2:5555': '', 'desktop:0': '' })
  })
  it('falls back to the whole id when ports clash', () => {
    const got = tellApart([
      { id: '10.0.0.2:5555', name: 'Phone' },
      { id: '10.0.0.3:5555', name: 'Phone' },
    ])
    expect(got).toEqual({ '10.0.0.2:5555': '10.0.0.2:5555', '10.0.0.3:5555': '10.0.0.3:5555' })
  })
})

describe('tilesView', () => {
  const desktop = { w: 1280, h: 800 }
  // The side-by-side view of a 1280x800 window: four phones and a display.
  const view = { w: 1256, h: 620 }
  it('puts the needs list above tiles held by the width, and they grow into its column', () => {
    const screens = [phone, phone, phone, phone, desktop]
    const v = tilesView(screens, view, 122, 10, 218, 64)
    const beside = tileGrid(screens, { w: view.w - 218 - 10, h: view.h }, 122, 10)
    expect(v.needsAt).toBe('top')
    expect(v.grid.scale).toBeGreaterThan(beside.scale * 1.03)
    // and the tiles then fill the height left to them: no bands
    expect(v.grid.rows * v.grid.cell.h + (v.grid.rows - 1) * 10).toBeGreaterThan((view.h - 64 - 10) * 0.9)
  })
  it('keeps the list beside tiles the height holds', () => {
    expect(tilesView([phone, phone], { w: 1256, h: 620 }, 122, 10, 218, 64).needsAt).toBe('side')
    expect(tilesView([desktop], { w: 1256, h: 620 }, 122, 10, 218, 64).needsAt).toBe('side')
  })
})
