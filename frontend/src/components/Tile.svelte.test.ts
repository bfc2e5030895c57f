// A tile dates a picture no fresh one can follow, as the main mirror does
// (issue 30 item 1): when its phone's stream ended, the tile keeps the last
// picture and says how old it is, never calls it live; the next picture
// takes the label away.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import Tile from './Tile.svelte'
import { HEADER_LEN } from '../lib/video'
import type { DeviceEntry } from '../lib/backend'

/** FakeSocket stands in for the mirror's WebSocket: the test sends what the server would. */
class FakeSocket {
  static last: FakeSocket | null = null
  binaryType = ''
  onopen: (() => void) | null = null
  onmessage: ((m: { data: unknown }) => void) | null = null
  onclose: (() => void) | null = null
  constructor(public url: string) {
    FakeSocket.last = this
  }
  close() {}
}

/** jpeg is a picture message (kind 1) of a 1080x2400 screen; its bytes are never drawn here. */
function jpeg(): ArrayBuffer {
  const buf = new ArrayBuffer(HEADER_LEN + 3)
  const dv = new DataView(buf)
  dv.setUint8(0, 1)
  dv.setUint32(4, 1080)
  dv.setUint32(8, 2400)
  dv.setBigUint64(12, BigInt(Date.now()))
  return buf
}

let app: Record<string, unknown> | null = null
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.stubGlobal('WebSocket', FakeSocket)
  vi.stubGlobal('ResizeObserver', class { observe() {} unobserve() {} disconnect() {} })
  // jsdom has no 2D canvas: a stand-in whose every picture lands (an opaque
  // pixel read back), so only the mirror's state is told here.
  const ctx = { drawImage() {}, clearRect() {}, getImageData: () => ({ data: [0, 0, 0, 255] }) }
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(ctx as unknown as CanvasRenderingContext2D)
  vi.stubGlobal('createImageBitmap', async () => ({ width: 1080, height: 2400, close() {} }))
  window.go = { app: { MirrorAPI: { TileURL: async () => 'ws://127.0.0.1:1/stream/x?token=t', TileClosed: async () => {} } } }
})
afterEach(() => {
  FakeSocket.last = null
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  delete window.go
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
  vi.useRealTimers()
})

const device: DeviceEntry = { id: 'emulator-5554', name: 'Pixel', kind: 'phone', state: 'device', screen: { w: 1080, h: 2400 }, virtual: false, problem: '' }

async function settle() {
  for (let i = 0; i < 10; i++) await Promise.resolve()
  flushSync()
}

describe('Tile', () => {
  it('says the stream stopped when it is lost before any picture, rather than showing an empty screen', async () => {
    const target = document.createElement('div')
    document.body.append(target)
    app = mount(Tile, { target, props: { device, need: undefined, onOpen: () => {} } })
    await vi.waitFor(() => expect(FakeSocket.last).not.toBeNull())
    FakeSocket.last!.onclose!()
    await settle()
    expect(target.querySelector('[data-testid="tile-lost"]')?.textContent).toBe('The screen stream stopped: …')
  })

  it('says who in another Tandem drives its phone, not a stale end or "No task"', async () => {
    const target = document.createElement('div')
    document.body.append(target)
    const held: DeviceEntry = { ...device, held_by: { door: 'run', pid: 4242, since: '', run: 'r1', goal: 'Pay' } }
    app = mount(Tile, { target, props: { device: held, need: undefined, onOpen: () => {} } })
    await settle()
    expect(target.querySelector('[data-testid="tile-now"]')?.textContent).toBe('In use by tandem run (process 4242)')
  })

  it('dates the last picture once the stream ended, and calls it live again at the next', async () => {
    const target = document.createElement('div')
    document.body.append(target)
    app = mount(Tile, { target, props: { device, need: undefined, onOpen: () => {} } })
    await vi.waitFor(() => expect(FakeSocket.last).not.toBeNull())
    const ws = FakeSocket.last!
    const age = () => target.querySelector('[data-testid="tile-age"]')
    const screen = () => target.querySelector('[data-testid="tile-screen"]') as HTMLElement
    ws.onmessage!({ data: '{"path":"screenrecord","reason":"no scrcpy-server","code":"screenrecord_no_jar"}' })
    const at = Date.now() // the picture's time (fake time stands still meanwhile)
    ws.onmessage!({ data: jpeg() })
    await settle()
    expect(screen().dataset.status).toBe('live')
    expect(age()).toBeNull()
    // The stream ended: the picture stays, dated, and ages by the second.
    ws.onmessage!({ data: '{"path":"screenrecord","reason":"no scrcpy-server","code":"screenrecord_no_jar","ended":true}' })
    await settle()
    expect(screen().dataset.frame).toBe('1080x2400')
    expect(age()?.textContent).toBe('Last picture · 0 s ago')
    vi.advanceTimersByTime(12_000)
    flushSync()
    // As of the page's clock's last tick, on a whole second.
    const tick = Math.floor(Date.now() / 1000) * 1000
    expect(age()?.textContent).toBe(`Last picture · ${Math.floor((tick - at) / 1000)} s ago`)
    expect(tick - at).toBeGreaterThan(11_000)
    // A fresh picture: live again, no date.
    ws.onmessage!({ data: jpeg() })
    await settle()
    expect(screen().dataset.status).toBe('live')
    expect(age()).toBeNull()
  })
})
