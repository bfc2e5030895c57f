// Every call the components make to the Go side, in one place, grouped as
// Go binds them (app/api.go): the components call these, never the
// backend itself (commands.test.ts checks it). The store's own calls
// (store.svelte.ts: loading the state, following the events) and the
// pop-out window's (PopoutApp.svelte, through its own binding,
// popoutBinding) are not the components' and are not here.
//
// The person's commands to the selected device's run: each resolves to
// whether the run took it; a refusal's words are kept in store.errors for
// the control bar to show.
import { backend, type ModelServer, type Profile, type Region, type Settings } from './backend'
import type { Action } from './events'
import type { EvalRequest } from './gen/eval'
import type { Chore } from './gen/chores'
import type { Press } from './gen/types'
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

/**
 * The same commands for one device's run, whatever is selected: a tile's
 * own buttons use these, so each carries its own tile's run id.
 */
export function commandsOn(device: string) {
  const on = (f: (id: string) => Promise<unknown>) => store.commandOn(device, f)
  return {
    pause: () => on((id) => backend.Pause(id)),
    resume: () => on((id) => backend.Resume(id)),
    takeOver: () => on((id) => backend.TakeOver(id)),
    stop: () => on((id) => backend.Stop(id)),
    confirm: () => on((id) => backend.Confirm(id)),
    deny: (reason: string) => on((id) => backend.Deny(id, reason)),
    answer: (text: string) => on((id) => backend.Answer(id, text)),
    start: (goal: string) => store.startOn(device, goal),
  }
}

/** The devices (DevicesAPI). */
export const deviceCalls = {
  startVirtualPhone: () => backend.StartVirtualPhone(),
  connect: (addr: string) => backend.ConnectDevice(addr),
}

/** Past runs, their reports, resuming one (HistoryAPI). */
export const historyCalls = {
  list: () => backend.PastRuns(),
  steps: (run: string) => backend.RunSteps(run),
  exportReport: (run: string) => backend.ExportReport(run),
  exportClip: (run: string, from: number, to: number) => backend.ExportClip(run, { from, to }),
  openReport: (run: string) => backend.OpenReport(run),
  saveReportAs: (run: string) => backend.SaveReportAs(run),
  resume: (run: string) => backend.ResumeRun(run),
  /** replays run on device: its steps without the model, a step not on the screen to the model */
  runAgain: (run: string, device: string) => store.replayOn(device, run),
}

/** Evaluations of the person's models on the world of chores (EvalAPI). */
export const evalCalls = {
  start: (req: EvalRequest) => backend.StartEvaluation(req),
  stop: () => backend.StopEvaluation(),
  list: () => backend.Evaluations(),
  get: (id: string) => backend.Evaluation(id),
  openReport: (id: string) => backend.OpenEvalReport(id),
}

/** The saved chores, run now or on a schedule (ChoresAPI). */
export const choreCalls = {
  list: () => backend.Chores(),
  save: (c: Chore) => backend.SaveChore(c),
  remove: (id: string) => backend.DeleteChore(id),
  draft: (run: string) => backend.DraftChore(run),
  /** starts the chore on each device, each its own run, shown at once like a run started here */
  start: async (id: string, values: Record<string, string>, devices: string[]) => store.adoptStarts(await backend.StartChore(id, values, devices)),
  news: () => backend.ChoresNews(),
  answerMissed: async (id: string, run: boolean) => store.adoptStarts(await backend.AnswerMissed(id, run)),
}

/** The live mirror and the person's input on it (MirrorAPI). */
export const mirrorCalls = {
  url: (device: string) => backend.MirrorURL(device),
  /** the main mirror cannot be seen (the desktop bar): its watch ends until url */
  hidden: () => backend.MirrorHidden(),
  touch: (device: string, phase: 'down' | 'move' | 'up' | 'cancel', x: number, y: number) => backend.MirrorTouch(device, phase, x, y),
  /** Go decides where the gesture goes: "done" or "took_over" */
  gesture: (device: string, a: Action) => backend.MirrorGesture(device, a),
  /** a press as the page saw it; Go makes the gesture of it and sends it on as gesture does */
  press: (device: string, p: Press) => backend.MirrorPress(device, p),
  /** a press on a picked tile: Go lands it on every picked device (group control) */
  pressGroup: (device: string, others: string[], p: Press) => backend.MirrorPressGroup(device, others, p),
  popOut: (device: string) => backend.PopOut(device),
  /** a tile's own watch of its device (one viewer per tile) */
  tileURL: (device: string) => backend.TileURL(device),
  tileClosed: (device: string) => backend.TileClosed(device),
}

/** Settings, model profiles and the first-run welcome (SettingsAPI). */
export const settingsCalls = {
  info: () => backend.Info(),
  load: () => backend.GetSettings(),
  update: (patch: Partial<Settings>) => backend.UpdateSettings(patch),
  dismissWarning: () => backend.DismissSettingsWarning(),
  presets: () => backend.Presets(),
  profiles: () => backend.Profiles(),
  saveProfile: (p: Profile, apiKey: string) => backend.SaveProfile(p, apiKey),
  deleteProfile: (id: string) => backend.DeleteProfile(id),
  testForm: (p: Profile, key: string) => backend.TestForm(p, key),
  scrcpyServer: (path: string) => backend.ScrcpyServer(path),
  welcomeCheck: () => backend.WelcomeCheck(),
  useLocalModel: (server: ModelServer, model: string) => backend.UseLocalModel(server, model),
  mcpAccess: () => backend.MCPAccess(),
  renewMCPToken: () => backend.RenewMCPToken(),
}

/** The window as a small bar on top (a desktop run), or back as it was. */
export const windowCalls = {
  setCompact: (on: boolean) => backend.SetCompact(on),
  /** the window came in front of the person (true) or went behind (false) */
  front: (front: boolean) => backend.WindowFront(front),
  /** the devices the window shows now: the one device, or every tile */
  shows: (devices: string[]) => backend.WindowShows(devices),
}
