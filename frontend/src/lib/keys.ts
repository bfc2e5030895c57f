// Which key press does what. The rule, shown in the UI: the keyboard belongs
// to Tandem. Its shortcuts (Space pauses or resumes, T takes over, H hands
// back, Esc stops, Shift+Esc stops after this step) work wherever the focus
// is, the mirror included, except in a text field, where letters are the
// person's text. Text for the device goes only through the mirror's "type on
// the device" field, so a shortcut is never typed into the phone. Escape
// closes the dialog on top when it can be closed, and only then reaches the
// run behind it. Keys with Ctrl, Alt or Meta belong to the system or the field.
import type { Control } from './controls'

/** The dialog on top of the window: none, one Escape closes, or one that must be answered. */
export type DialogTop = 'none' | 'dismissable' | 'fixed'

/** KeyPress is what keyAction needs of a keydown event and the page around it. */
export type KeyPress = {
  key: string
  ctrl: boolean
  meta: boolean
  alt: boolean
  shift: boolean
  /** the focus is in a text field (input, textarea, select, contenteditable) */
  inText: boolean
  dialog: DialogTop
}

export type KeyAct = Control | 'close_dialog' | null

/** keyAction says what a key press does, given the controls the run offers now. */
export function keyAction(p: KeyPress, enabled: Set<Control>): KeyAct {
  if (p.ctrl || p.meta || p.alt) return null
  let want: Control | null = null
  if (p.key === 'Escape') {
    if (p.dialog === 'dismissable') return 'close_dialog'
    want = p.shift ? 'stop_after' : 'stop'
  } else if (p.inText || p.dialog !== 'none') {
    return null
  } else if (p.key === ' ') {
    want = enabled.has('resume') ? 'resume' : 'pause'
  } else if (p.key === 't' || p.key === 'T') {
    want = 'take_over'
  } else if (p.key === 'h' || p.key === 'H') {
    want = 'hand_back'
  }
  return want && enabled.has(want) ? want : null
}

/** isTextField tells whether typing into el is the person's text. */
export function isTextField(el: Element | null): boolean {
  if (!el) return false
  const h = el as HTMLElement
  return h.tagName === 'INPUT' || h.tagName === 'TEXTAREA' || h.tagName === 'SELECT' || h.isContentEditable
}
