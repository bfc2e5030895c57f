import { describe, expect, it } from 'vitest'
import { controls } from './controls'
import { keyAction, type KeyPress } from './keys'

const press = (key: string, over: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrl: false,
  meta: false,
  alt: false,
  shift: false,
  inText: false,
  dialog: 'none',
  ...over,
})

describe('keyAction', () => {
  it.each([
    // Manual: the keys that drive Tandem do so; they are never text for the device.
    ['Manual', press('h'), 'hand_back'],
    ['Manual', press('H', { shift: true }), 'hand_back'],
    ['Manual', press('Escape'), 'stop'],
    ['Manual', press(' '), null], // pause is not offered in Manual
    ['Manual', press('t'), null],
    ['Planning', press(' '), 'pause'],
    ['Paused', press(' '), 'resume'],
    ['Planning', press('t'), 'take_over'],
    ['Planning', press('Escape', { shift: true }), 'stop_after'],
    // In a text field the letters are the person's text; Escape still counts.
    ['Manual', press('h', { inText: true }), null],
    ['Planning', press(' ', { inText: true }), null],
    ['Planning', press('Escape', { inText: true }), 'stop'],
    // With a modifier the key belongs to the system or the field (Ctrl+C, Alt+Tab).
    ['Planning', press(' ', { ctrl: true }), null],
    ['Manual', press('h', { alt: true }), null],
    // A dialog on top: Escape closes it (never stops the run behind it) ...
    ['Planning', press('Escape', { dialog: 'dismissable' }), 'close_dialog'],
    ['Manual', press('Escape', { dialog: 'dismissable', inText: true }), 'close_dialog'],
    // ... and the run's letters wait until it is gone.
    ['Manual', press('h', { dialog: 'dismissable' }), null],
    ['Planning', press(' ', { dialog: 'fixed' }), null],
    // A dialog that must be answered (a confirmation) cannot be dismissed: Escape stops.
    ['WaitingForUser', press('Escape', { dialog: 'fixed' }), 'stop'],
    // No task: nothing to control.
    ['Idle', press('Escape'), null],
    ['Idle', press('Escape', { dialog: 'dismissable' }), 'close_dialog'],
  ] as const)('%s %j -> %s', (state, p, want) => {
    expect(keyAction(p, state === 'Idle' ? new Set() : controls(state))).toBe(want)
  })
})
