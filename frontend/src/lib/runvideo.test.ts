import { describe, expect, it } from 'vitest'
import { currentAt, marks, videoOf } from './runvideo'
import type { RunDetail } from './backend'

const detail = {
  run: { id: 'r' },
  steps: [
    { n: 1, at: '2026-01-01T00:00:01.500Z' },
    { n: 2, at: '2026-01-01T00:00:03.000Z' },
  ],
  acts: [{ at: '2026-01-01T00:00:02.000Z' }],
  videos: [
    { name: 'video-a.mp4', start: '2026-01-01T00:00:01.000Z', bytes: 1 },
    { name: 'video-b.mp4', start: '2026-01-01T00:10:00.000Z', bytes: 1 },
  ],
} as unknown as RunDetail

describe('run video marks', () => {
  it('plays the video the first step falls in', () => {
    expect(videoOf(detail)?.name).toBe('video-a.mp4')
  })
  it('places steps and acts in seconds from the video start, in order', () => {
    expect(marks(detail, detail.videos[0])).toEqual([
      { key: 's1', t: 0.5, act: false, n: 1 },
      { key: 'a0', t: 1, act: true },
      { key: 's2', t: 2, act: false, n: 2 },
    ])
  })
  it('names the last mark at or before the playhead', () => {
    const ms = marks(detail, detail.videos[0])
    expect(currentAt(ms, 0.2)).toBe('')
    expect(currentAt(ms, 1.5)).toBe('a0')
    expect(currentAt(ms, 9)).toBe('s2')
  })
})

describe('a resumed run', () => {
  it('marks on each video only what falls in it', () => {
    const resumed = {
      ...detail,
      steps: [...detail.steps, { n: 3, at: '2026-01-01T00:10:02.000Z' }],
    } as unknown as RunDetail
    expect(marks(resumed, resumed.videos[0]).map((m) => m.key)).toEqual(['s1', 'a0', 's2'])
    expect(marks(resumed, resumed.videos[1])).toEqual([{ key: 's3', t: 2, act: false, n: 3 }])
  })
})
