import { describe, expect, it } from 'vitest'
import { chordText } from './stopkey'

describe('chordText', () => {
  it('writes a chord as its keys are labelled', () => {
    expect(chordText('ctrl+shift+escape')).toBe('Ctrl+Shift+Esc')
    expect(chordText('ctrl+alt+k')).toBe('Ctrl+Alt+K')
    expect(chordText('ctrl+f12')).toBe('Ctrl+F12')
    expect(chordText('cmd+space')).toBe('Super+Space')
  })
})
