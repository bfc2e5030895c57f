// Small pieces of UI state that several components share.
import type { Region } from './backend'

class UI {
  /** the region the person marked on the mirror, in device pixels */
  region = $state<Region | null>(null)
  selecting = $state(false)
  handBackOpen = $state(false)
  /** the take-over request the person has read (its dialog stays closed) */
  seenTakeOver = $state.raw<object | null>(null)
  settingsOpen = $state(false)
  historyOpen = $state(false)
  toast = $state('')
  #toastTimer: ReturnType<typeof setTimeout> | undefined

  flash(text: string, ms = 3500) {
    this.toast = text
    clearTimeout(this.#toastTimer)
    this.#toastTimer = setTimeout(() => (this.toast = ''), ms)
  }
}

export const ui = new UI()
