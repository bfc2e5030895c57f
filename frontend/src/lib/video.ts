// The mirror stream's messages and the H.264 player.
//
// The Go side (mirror) sends binary messages with a 24-byte header —
// kind u8 (1 JPEG, 2 H.264), flags u8 (bit 0 codec config, bit 1 key frame,
// bit 2 behind: a newer packet of the same send follows, so its picture is
// decoded but not shown — a joiner sent a whole group of pictures shows the
// newest, not the screen as it was at the group's key frame),
// 2 reserved, width u32 and height u32 (the device's screen in pixels: the
// space of clicks, not the video's size), capture time (Unix ms) u64,
// 4 reserved — then the bytes, and text messages with the mirror's path.
//
// H.264 is Annex-B (start codes), decoded with WebCodecs' VideoDecoder, which
// WebKitGTK 2.50 and chromium both have (WebKitGTK needs gstreamer1.0-libav
// for H.264). Without a codec description the decoder expects Annex-B with
// the SPS and PPS in band, so the config packet is put in front of every key
// frame. A decoder only starts at a key frame; the server starts every new
// client at one.

export const HEADER_LEN = 24
export const KIND_JPEG = 1
export const KIND_H264 = 2

export interface Message {
  kind: number
  config: boolean
  key: boolean
  behind: boolean // a newer packet follows at once: decode, do not show
  w: number
  h: number
  at: number // Unix ms
  data: Uint8Array<ArrayBuffer>
}

/** parseMessage reads a binary mirror message; null when it is malformed. */
export function parseMessage(buf: ArrayBuffer): Message | null {
  if (buf.byteLength < HEADER_LEN) return null
  const dv = new DataView(buf)
  const kind = dv.getUint8(0)
  if (kind !== KIND_JPEG && kind !== KIND_H264) return null
  const flags = dv.getUint8(1)
  return {
    kind,
    config: (flags & 1) !== 0,
    key: (flags & 2) !== 0,
    behind: (flags & 4) !== 0,
    w: dv.getUint32(4),
    h: dv.getUint32(8),
    at: Number(dv.getBigUint64(12)),
    data: new Uint8Array(buf, HEADER_LEN),
  }
}

/** The mirror's path as the server announces it in a text message. */
export interface PathInfo {
  path: string
  reason: string
  /** why this path, for the UI to word (mirror.Path.Code) */
  code: string
  /** the scrcpy-server release spoken, or found too old or too new (mirror.Path.Version) */
  version?: string
  /** the stream ended and no new one feeds the mirror yet (mirror.Path.Ended) */
  ended?: boolean
}

export function parsePath(text: string): PathInfo | null {
  try {
    const v = JSON.parse(text)
    if (typeof v?.path === 'string' && typeof v?.reason === 'string') {
      const p: PathInfo = { path: v.path, reason: v.reason, code: typeof v.code === 'string' ? v.code : '' }
      if (typeof v.version === 'string' && v.version) p.version = v.version
      if (v.ended === true) p.ended = true
      return p
    }
  } catch {
    // not a path message
  }
  return null
}

/** nalUnits lists the NAL units of an Annex-B buffer (without start codes). */
export function nalUnits(b: Uint8Array): Uint8Array[] {
  const starts: { at: number; body: number }[] = []
  for (let i = 0; i + 2 < b.length; i++) {
    if (b[i] === 0 && b[i + 1] === 0 && b[i + 2] === 1) {
      starts.push({ at: i > 0 && b[i - 1] === 0 ? i - 1 : i, body: i + 3 })
      i += 2
    }
  }
  return starts.map((s, k) => b.subarray(s.body, k + 1 < starts.length ? starts[k + 1].at : b.length))
}

/**
 * codecString is the WebCodecs codec for an SPS ("avc1.PPCCLL": profile,
 * constraint flags, level in hex), or null when the buffer holds no SPS.
 */
export function codecString(config: Uint8Array): string | null {
  for (const n of nalUnits(config)) {
    if (n.length >= 4 && (n[0] & 0x1f) === 7) {
      const hex = (v: number) => v.toString(16).padStart(2, '0')
      return `avc1.${hex(n[1])}${hex(n[2])}${hex(n[3])}`
    }
  }
  return null
}

function sameBytes(a: Uint8Array | null, b: Uint8Array): boolean {
  if (!a || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The part of VideoDecoder the player uses (a seam for tests). */
export interface Decoder {
  readonly state: string
  configure(c: { codec: string; optimizeForLatency?: boolean }): void
  decode(chunk: EncodedVideoChunk): void
  close(): void
}

export type DecoderFactory = (output: (f: VideoFrame) => void, error: (e: Error) => void) => Decoder

export type ChunkFactory = (init: { type: 'key' | 'delta'; timestamp: number; data: Uint8Array }) => EncodedVideoChunk

/** h264Supported reports whether this web view can decode the stream at all. */
export function h264Supported(): boolean {
  return typeof VideoDecoder !== 'undefined' && typeof EncodedVideoChunk !== 'undefined'
}

let support: Promise<boolean> | null = null

/**
 * canDecodeH264 asks the web view once whether it can decode the stream's
 * H.264 (WebKitGTK needs gstreamer1.0-libav). A window that cannot connects
 * with video=0 and the server sends pictures instead.
 */
export function canDecodeH264(): Promise<boolean> {
  if (!h264Supported()) return Promise.resolve(false)
  support ??= VideoDecoder.isConfigSupported({ codec: 'avc1.42001f' }).then(
    (r) => r.supported === true,
    () => false,
  )
  return support
}

/** What a player is told beyond its pictures and errors (all optional). */
export interface PlayerHooks {
  // onStuck: the decoder has output nothing for a chunk decoded stuckMs
  // ago while more kept coming; the player decodes nothing more.
  onStuck?: () => void
  stuckMs?: number // 3 s unless set
  now?: () => number // ms (performance.now unless set: a seam for tests)
}

/**
 * H264Player feeds H.264 messages to a decoder and hands decoded frames on.
 * It skips packets until it has a config and a key frame (a decoder cannot
 * start elsewhere), reconfigures when the config changes (the phone
 * rotated), and counts decoded frames. A picture decoded from a packet sent
 * behind a newer one is closed, not handed on. A decoder that stops giving
 * pictures while packets keep coming (seen after a stream restarted at
 * another size) is called stuck, once, so its mirror can open the stream
 * again rather than show a still picture as live.
 */
export class H264Player {
  decoded = 0
  private dec: Decoder | null = null
  private config: Uint8Array | null = null
  private codec = ''
  private needKey = true
  private ts = 0
  private hidden = new Set<number>() // timestamps of chunks sent behind a newer one
  private waiting = new Map<number, number>() // timestamp → when sent, of chunks not yet output
  private stuck = false

  constructor(
    private onFrame: (f: VideoFrame) => void,
    private onError: (e: Error) => void,
    private makeDecoder: DecoderFactory = (output, error) => new VideoDecoder({ output, error }),
    private makeChunk: ChunkFactory = (init) => new EncodedVideoChunk(init),
    private hooks: PlayerHooks = {},
  ) {}

  private now(): number {
    return this.hooks.now ? this.hooks.now() : performance.now()
  }

  /** outputFor forgets the chunks sent up to ts: the decoder is past them. */
  private outputFor(ts: number) {
    for (const t of this.waiting.keys()) {
      if (t > ts) break // in the order sent
      this.waiting.delete(t)
    }
  }

  /** isStuck says whether the oldest chunk not output was sent too long ago. */
  private isStuck(): boolean {
    if (this.stuck) return true
    const oldest = this.waiting.values().next()
    if (oldest.done || this.now() - oldest.value <= (this.hooks.stuckMs ?? 3000)) return false
    this.stuck = true
    this.hooks.onStuck?.()
    return true
  }

  push(m: Message) {
    if (m.config) {
      if (sameBytes(this.config, m.data)) return
      const codec = codecString(m.data)
      if (!codec) return
      this.config = m.data.slice()
      if (!this.dec || this.dec.state === 'closed') {
        this.dec = this.makeDecoder(
          (f) => {
            this.decoded++
            this.outputFor(f.timestamp)
            if (this.shown(f.timestamp)) this.onFrame(f)
            else f.close()
          },
          (e) => {
            // A failed decoder is closed: start over at the next config.
            this.needKey = true
            this.config = null
            this.codec = ''
            this.waiting.clear()
            this.onError(e)
          },
        )
      }
      if (codec !== this.codec || this.dec.state !== 'configured') {
        this.dec.configure({ codec, optimizeForLatency: true })
        this.codec = codec
      }
      this.needKey = true
      return
    }
    if (!this.dec || this.dec.state !== 'configured' || !this.config) return
    if (this.needKey && !m.key) return
    if (this.isStuck()) return
    let data = m.data
    if (m.key) {
      data = new Uint8Array(this.config.length + m.data.length)
      data.set(this.config)
      data.set(m.data, this.config.length)
      this.needKey = false
    }
    this.ts += 16_667
    if (m.behind) this.hidden.add(this.ts)
    this.waiting.set(this.ts, this.now())
    this.dec.decode(this.makeChunk({ type: m.key ? 'key' : 'delta', timestamp: this.ts, data }))
  }

  /**
   * shown says whether the picture of the chunk at ts is to be shown, and
   * forgets that chunk and any older one the decoder never output.
   */
  private shown(ts: number): boolean {
    let hide = false
    for (const t of this.hidden) {
      if (t > ts) break // in the order sent: the rest are newer
      hide ||= t === ts
      this.hidden.delete(t)
    }
    return !hide
  }

  close() {
    if (this.dec && this.dec.state !== 'closed') this.dec.close()
    this.dec = null
    this.config = null
    this.codec = ''
    this.needKey = true
    this.hidden.clear()
    this.waiting.clear()
  }
}
