// The person's commands to the selected device's run, in one place: the
// components call these, never the backend's run methods themselves. Each
// resolves to whether the run took it; a refusal's words are kept in
// store.errors for the control bar to show.
import { backend, type Region } from './backend'
import type { Action } from './events'
import { store } from './store.svelte'

export const commands = {
  pause: () => store.command((id) => backend.Pause(id)),
  resume: () => store.command((id) => backend.Resume(id)),
  takeOver: () => store.command((id) => backend.TakeOver(id)),
  handBack: (note: string, region: Region | null) => store.command((id) => backend.HandBack(id, note, region)),
  stop: () => store.command((id) => backend.Stop(id)),
  stopAfter: (steps: number) => store.command((id) => backend.StopAfter(id, steps)),
  confirm: () => store.command((id) => backend.Confirm(id)),
  deny: (reason: string) => store.command((id) => backend.Deny(id, reason)),
  answer: (text: string) => store.command((id) => backend.Answer(id, text)),
  editGoal: (goal: string) => store.command((id) => backend.EditGoal(id, goal)),
  editPending: (actions: Action[]) => store.command((id) => backend.EditPending(id, actions)),
}
