import { describe, expect, it } from 'vitest'
import { H264Player, codecString, nalUnits, parseMessage, parsePath, HEADER_LEN, type Decoder, type Message, type PlayerHooks } from './video'

function message(kind: number, flags: number, w: number, h: number, at: number, data: number[]): ArrayBuffer {
  const buf = new ArrayBuffer(HEADER_LEN + data.length)
  const dv = new DataView(buf)
  dv.setUint8(0, kind)
  dv.setUint8(1, flags)
  dv.setUint32(4, w)
  dv.setUint32(8, h)
  dv.setBigUint64(12, BigInt(at))
  new Uint8Array(buf, HEADER_LEN).set(data)
  return buf
}

// SPS of x264 baseline level 3.0 (profile 0x42, constraints 0xc0, level 0x1e), then a PPS.
const config = [0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e, 0xda, 0, 0, 0, 1, 0x68, 0xce, 0x0f, 0xc8]
const key = [0, 0, 0, 1, 0x65, 0x88, 0x84]
const delta = [0, 0, 1, 0x41, 0x9a, 0x02]

describe('parseMessage', () => {
  it('reads the 24-byte header and the bytes after it', () => {
    const m = parseMessage(message(2, 3, 1080, 2400, 1_700_000_000_123, [1, 2, 3]))!
    expect(m).toMatchObject({ kind: 2, config: true, key: true, behind: false, w: 1080, h: 2400, at: 1_700_000_000_123 })
    expect([...m.data]).toEqual([1, 2, 3])
    expect(parseMessage(message(2, 4, 1080, 2400, 0, [1]))).toMatchObject({ config: false, key: false, behind: true })
  })
  it('refuses short messages and unknown kinds', () => {
    expect(parseMessage(new ArrayBuffer(10))).toBeNull()
    expect(parseMessage(message(7, 0, 1, 1, 0, []))).toBeNull()
  })
})

describe('parsePath', () => {
  it('reads the path message and ignores anything else', () => {
    expect(parsePath('{"path":"scrcpy","reason":"scrcpy-server 3.3.4","code":"scrcpy"}')).toEqual({ path: 'scrcpy', reason: 'scrcpy-server 3.3.4', code: 'scrcpy' })
    expect(parsePath('{"path":"screencap","reason":"r"}')).toEqual({ path: 'screencap', reason: 'r', code: '' })
    expect(parsePath('nonsense')).toBeNull()
    expect(parsePath('{"path":3}')).toBeNull()
  })

  it('says when the stream ended (the picture is the last one, not live)', () => {
    expect(parsePath('{"path":"screenrecord","reason":"r","code":"c","ended":true}')?.ended).toBe(true)
    expect(parsePath('{"path":"screenrecord","reason":"r","code":"c"}')?.ended).toBeUndefined()
  })

  it('keeps the scrcpy-server release the mirror speaks, or found too old', () => {
    expect(parsePath('{"path":"scrcpy","reason":"r","code":"scrcpy","version":"2.7"}')?.version).toBe('2.7')
    expect(parsePath('{"path":"screenrecord","reason":"r","code":"screenrecord_scrcpy_too_old","version":"1.25"}')).toEqual({
      path: 'screenrecord', reason: 'r', code: 'screenrecord_scrcpy_too_old', version: '1.25',
    })
  })
})

describe('H.264 helpers', () => {
  it('split Annex-B with 3- and 4-byte start codes', () => {
    const units = nalUnits(new Uint8Array([...config, ...delta]))
    expect(units.map((u) => u[0] & 0x1f)).toEqual([7, 8, 1])
    expect([...units[1]]).toEqual([0x68, 0xce, 0x0f, 0xc8])
  })
  it('make the codec string from the SPS', () => {
    expect(codecString(new Uint8Array(config))).toBe('avc1.42c01e')
    expect(codecString(new Uint8Array(key))).toBeNull()
  })
})

class FakeDecoder implements Decoder {
  state = 'unconfigured'
  configured: string[] = []
  chunks: { type: string; data: number[] }[] = []
  closed = 0 // frames closed by whoever got them
  constructor(public output: (f: VideoFrame) => void, public error: (e: Error) => void) {}
  configure(c: { codec: string }) {
    this.state = 'configured'
    this.configured.push(c.codec)
  }
  quiet = false // set: decodes and outputs nothing more (a stuck decoder)
  decode(chunk: EncodedVideoChunk) {
    const c = chunk as unknown as { type: string; data: Uint8Array; timestamp: number }
    this.chunks.push({ type: c.type, data: [...c.data] })
    if (!this.quiet) this.output({ timestamp: c.timestamp, close: () => this.closed++ } as unknown as VideoFrame)
  }
  close() {
    this.state = 'closed'
  }
}

function player(hooks: PlayerHooks = {}) {
  const decoders: FakeDecoder[] = []
  const frames: VideoFrame[] = []
  const errors: Error[] = []
  const p = new H264Player(
    (f) => frames.push(f),
    (e) => errors.push(e),
    (out, err) => {
      const d = new FakeDecoder(out, err)
      decoders.push(d)
      return d
    },
    (init) => ({ type: init.type, data: init.data, timestamp: init.timestamp }) as unknown as EncodedVideoChunk,
    hooks,
  )
  return { p, decoders, frames, errors }
}

const msg = (cfg: boolean, k: boolean, data: number[], behind = false): Message => ({ kind: 2, config: cfg, key: k, behind, w: 1080, h: 2400, at: 0, data: new Uint8Array(data) })

describe('H264Player', () => {
  it('waits for config and a key frame, then decodes in order with the config in front of key frames', () => {
    const { p, decoders, frames } = player()
    p.push(msg(false, false, delta)) // before any config: dropped
    p.push(msg(true, false, config))
    p.push(msg(false, false, delta)) // before a key frame: dropped
    p.push(msg(false, true, key))
    p.push(msg(false, false, delta))
    expect(decoders).toHaveLength(1)
    expect(decoders[0].configured).toEqual(['avc1.42c01e'])
    expect(decoders[0].chunks.map((c) => c.type)).toEqual(['key', 'delta'])
    expect(decoders[0].chunks[0].data).toEqual([...config, ...key])
    expect(p.decoded).toBe(2)
    expect(frames).toHaveLength(2)
  })
  it('decodes the packets sent behind a newer one without handing their pictures on', () => {
    // A joiner is sent the whole group of pictures at once: the screen as it
    // was at the key frame must not be shown, only the newest picture.
    const { p, decoders, frames } = player()
    p.push(msg(true, false, config, true))
    p.push(msg(false, true, key, true))
    p.push(msg(false, false, delta, true))
    p.push(msg(false, false, delta))
    expect(decoders[0].chunks.map((c) => c.type)).toEqual(['key', 'delta', 'delta'])
    expect(p.decoded).toBe(3)
    expect(frames).toHaveLength(1)
    expect(decoders[0].closed).toBe(2) // the pictures not shown are closed
    p.push(msg(false, false, delta)) // live again: every picture is shown
    expect(frames).toHaveLength(2)
  })
  it('does not reconfigure for the same config, and does for a new one (rotation)', () => {
    const { p, decoders } = player()
    p.push(msg(true, false, config))
    p.push(msg(false, true, key))
    p.push(msg(true, false, config))
    p.push(msg(false, false, delta)) // same config repeated: the stream goes on
    const rotated = [...config]
    rotated[7] = 0x1f
    p.push(msg(true, false, rotated))
    p.push(msg(false, false, delta)) // new config: wait for its key frame
    p.push(msg(false, true, key))
    expect(decoders[0].configured).toEqual(['avc1.42c01e', 'avc1.42c01f'])
    expect(decoders[0].chunks.map((c) => c.type)).toEqual(['key', 'delta', 'key'])
  })
  it('starts over at the next config after a decoder error', () => {
    const { p, decoders, errors } = player()
    p.push(msg(true, false, config))
    p.push(msg(false, true, key))
    decoders[0].state = 'closed'
    decoders[0].error(new Error('decode failed'))
    p.push(msg(false, false, delta))
    p.push(msg(true, false, config))
    p.push(msg(false, true, key))
    expect(errors).toHaveLength(1)
    expect(decoders).toHaveLength(2)
    expect(decoders[1].chunks.map((c) => c.type)).toEqual(['key'])
  })

  it('calls a decoder stuck once, when a chunk it was given long ago has no picture yet and more come', () => {
    let now = 0
    let stuck = 0
    const { p, decoders, frames } = player({ now: () => now, stuckMs: 3000, onStuck: () => stuck++ })
    p.push(msg(true, false, config))
    p.push(msg(false, true, key))
    expect(frames).toHaveLength(1)
    decoders[0].quiet = true // as after a restart at another size
    now = 100
    p.push(msg(false, false, delta))
    now = 3100 // that chunk is 3 s old with no picture: one more is not the decoder's
    p.push(msg(false, false, delta))
    expect(stuck).toBe(0)
    now = 3101
    p.push(msg(false, false, delta))
    p.push(msg(false, true, key))
    expect(stuck).toBe(1)
    expect(decoders[0].chunks).toHaveLength(3)
    expect(frames).toHaveLength(1)
  })

  it('never calls a slow decoder or a still screen stuck', () => {
    let now = 0
    let stuck = 0
    const { p, decoders, frames } = player({ now: () => now, stuckMs: 3000, onStuck: () => stuck++ })
    p.push(msg(true, false, config))
    p.push(msg(false, true, key))
    now = 60_000 // nothing came for a minute: the screen stood still
    p.push(msg(false, false, delta))
    const d = decoders[0]
    d.quiet = true
    for (let ts = 3 * 16_667; ts <= 12 * 16_667; ts += 16_667) {
      p.push(msg(false, false, delta))
      now += 2900 // each picture comes 2.9 s after its chunk, before the next chunk
      d.output({ timestamp: ts, close: () => d.closed++ } as unknown as VideoFrame)
    }
    expect(d.chunks).toHaveLength(12)
    expect(stuck).toBe(0)
    expect(frames).toHaveLength(12)
    p.close()
  })
})
