// Whether the window is in front of the person, told to Go as it changes:
// a run that needs the person raises a desktop notification only when the
// window is not in front (backend/attention.go). In front means the page
// has the focus and is shown (not minimised, not on another workspace).
import { windowCalls } from './commands'

/** watchFront tells Go now and at every change; it returns the unwatch. */
export function watchFront(win: Window = window, doc: Document = document, tell: (front: boolean) => Promise<void> = windowCalls.front): () => void {
  let last: boolean | undefined
  const say = (front: boolean) => {
    if (front === last) return
    last = front
    tell(front).catch(() => {})
  }
  const now = () => say(doc.visibilityState === 'visible' && doc.hasFocus())
  const onFocus = () => say(doc.visibilityState === 'visible')
  const onBlur = () => say(false)
  win.addEventListener('focus', onFocus)
  win.addEventListener('blur', onBlur)
  doc.addEventListener('visibilitychange', now)
  now()
  return () => {
    win.removeEventListener('focus', onFocus)
    win.removeEventListener('blur', onBlur)
    doc.removeEventListener('visibilitychange', now)
  }
}
