import { describe, expect, it } from 'vitest'
import { addRecent } from './recent'

describe('addRecent', () => {
  it.each([
    [[], 'a', ['a']],
    [['b', 'a'], 'a', ['a', 'b']], // re-running a goal moves it to the top, once
    [['a'], 'a', ['a']],
    [['a', 'a', 'b'], 'c', ['c', 'a', 'b']], // duplicates from older settings files are dropped
    [['a'], '  a  ', ['a']],
    [['a'], '', ['a']],
  ])('%j + %j -> %j', (list, g, want) => {
    expect(addRecent(list, g)).toEqual(want)
  })
  it('keeps at most the newest max goals', () => {
    const list = Array.from({ length: 30 }, (_, i) => `g${i}`)
    const got = addRecent(list, 'new', 20)
    expect(got).toHaveLength(20)
    expect(got[0]).toBe('new')
    expect(got[19]).toBe('g18')
  })
})
