// A mirror tells the stream the size it shows pictures at (issue 48: a
// tile of 270x600 must not be sent a 1080x2400 picture): in the stream's
// URL, and again once its box has stayed at a new size a moment, not at
// every step of a drag.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import MirrorVideo from './MirrorVideo.svelte'

/** FakeSocket stands in for the mirror's WebSocket and keeps what the page sends. */
class FakeSocket {
  static last: FakeSocket | null = null
  binaryType = ''
  readyState = 0
  sent: string[] = []
  onopen: (() => void) | null = null
  onmessage: ((m: { data: unknown }) => void) | null = null
  onclose: (() => void) | null = null
  constructor(public url: string) {
    FakeSocket.last = this
  }
  open() {
    this.readyState = 1
    this.onopen?.()
  }
  send(m: string) {
    this.sent.push(m)
  }
  close() {}
}

let app: Record<string, unknown> | null = null
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  vi.stubGlobal('WebSocket', FakeSocket)
  vi.stubGlobal('devicePixelRatio', 2)
  const ctx = { drawImage() {}, clearRect() {}, getImageData: () => ({ data: [0, 0, 0, 255] }) }
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(ctx as unknown as CanvasRenderingContext2D)
})
afterEach(() => {
  FakeSocket.last = null
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
  vi.useRealTimers()
})

describe('MirrorVideo', () => {
  it('asks for pictures at the size it shows, and again once a resize has settled', async () => {
    const target = document.createElement('div')
    document.body.append(target)
    const props = $state({ device: 'p', url: async () => 'ws://127.0.0.1:1/stream/70?token=t&video=0', width: 135, height: 300, box: undefined })
    app = mount(MirrorVideo, { target, props })
    await vi.waitFor(() => expect(FakeSocket.last).not.toBeNull())
    const ws = FakeSocket.last!
    expect(new URL(ws.url).searchParams.get('w')).toBe('270') // CSS px times the pixel ratio
    expect(new URL(ws.url).searchParams.get('h')).toBe('600')
    ws.open()
    expect(ws.sent).toEqual([]) // the URL said it already

    // A drag: many sizes, one message, a moment after the last.
    for (const w of [140, 160, 180, 200]) {
      props.width = w
      props.height = w * 2
      flushSync()
      vi.advanceTimersByTime(50)
    }
    expect(ws.sent).toEqual([])
    vi.advanceTimersByTime(300)
    expect(ws.sent.map((m) => JSON.parse(m))).toEqual([{ w: 400, h: 800 }])
  })
})
