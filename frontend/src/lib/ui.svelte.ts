// Small pieces of UI state that several components share.
import type { Region } from './backend'

class UI {
  /** the region the person marked on the mirror, in device pixels */
  region = $state<Region | null>(null)
  selecting = $state(false)
  /** the window is the bar of a task on this computer: no mirror can be seen */
  compact = $state(false)
  /** the mirror has the window to itself (the run's controls stay) */
  mirrorLarge = $state(false)
  /** one device with its steps, or every device side by side as tiles */
  view = $state<'one' | 'tiles'>('one')
  handBackOpen = $state(false)
  /** the person agreed, this session, to let a task control this computer */
  desktopConfirmed = $state(false)
  /** the desktop's stop hotkey as the person presses it ("Ctrl+Shift+Esc"): Settings', else this system's */
  stopKey = $state('Ctrl+Shift+Esc')
  /** the take-over request the person has read (its dialog stays closed) */
  seenTakeOver = $state.raw<object | null>(null)
  settingsOpen = $state(false)
  historyOpen = $state(false)
  /** the run History opens at (an evaluation's chore); "" the list */
  historyRun = $state('')
  evalOpen = $state(false)
  choresOpen = $state(false)
  /** the tiles picked side by side: a goal starts on each, a press on one lands on all */
  picked = $state<string[]>([])
  /** the finished run the Chores view opens as a new chore's draft ("" none) */
  choreFromRun = $state('')
  toast = $state('')
  /** the open dialogs, bottom first: each one's dismiss, or null when it must be answered */
  #dialogs: { dismiss: (() => void) | null }[] = []
  #toastTimer: ReturnType<typeof setTimeout> | undefined

  /** openDialog registers a dialog on top; the returned function takes it off. */
  openDialog(dismiss: (() => void) | null): () => void {
    const d = { dismiss }
    this.#dialogs.push(d)
    return () => {
      this.#dialogs = this.#dialogs.filter((x) => x !== d)
    }
  }

  /** topDialog says what kind of dialog is on top, if any. */
  topDialog(): 'none' | 'dismissable' | 'fixed' {
    const top = this.#dialogs.at(-1)
    return !top ? 'none' : top.dismiss ? 'dismissable' : 'fixed'
  }

  /** closeTopDialog dismisses the dialog on top when it can be dismissed. */
  closeTopDialog() {
    this.#dialogs.at(-1)?.dismiss?.()
  }

  flash(text: string, ms = 3500) {
    this.toast = text
    clearTimeout(this.#toastTimer)
    this.#toastTimer = setTimeout(() => (this.toast = ''), ms)
  }
}

export const ui = new UI()
