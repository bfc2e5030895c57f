// The Go methods bound by Wails, typed, and the Wails event bus. Go binds
// them as five services (app/api.go: window.go.app.RunsAPI.Stop, …); this
// module is the page's one door to them: `backend.Stop(…)` is routed to its
// service by the generated list (gen/types.ts, boundServices). Wails injects
// window.go and window.runtime in the desktop window and in the dev-server
// harness; calling through this one module keeps the rest of the UI free of
// window globals and easy to test.
import type { Action, Cause, EngineEvent, Request, Snapshot, Usage } from './events'
import type { EvalRequest, EvalSummary, Evaluation, Progress } from './gen/eval'
import type { Chore, ChoreDraft, ChoresNews } from './gen/chores'
import type { ElsewhereRun } from './gen/elsewhere'
import { boundServices, type EngineSettings, type GroupResult, type Holder, type Config as PopoutConfig, type Press } from './gen/types'
import { parseSaid, saidText } from './said'

export interface Info {
  version: string
  commit: string
  os: string
  locale: string
  dataDir: string
  settingsPath: string
  pricesPath: string
  /** the desktop's stop hotkey here when Settings name none */
  stopKeyDefault: string
}

export interface Budget {
  max_steps: number
  max_tokens: number
  max_cost: number
  max_minutes: number
}

export interface Settings {
  language: 'system' | 'en' | 'zh-CN'
  theme: 'system' | 'light' | 'dark'
  recent_goals: string[]
  active_profile: string
  budget: Budget
  policy_words: string[]
  policy_apps: string[]
  stability_ms: number
  /** ask the model only once the screen has settled (no call on the first picture) */
  wait_to_ask: boolean
  stop_after_steps: number
  welcome_done: boolean
  /** serve Tandem to MCP clients over HTTP on 127.0.0.1:mcp_port while the app runs */
  mcp_http: boolean
  mcp_port: number
  /** a run another agent started asks its confirmations in this window only, never in the client's own form */
  confirm_in_window_only: boolean
  /** other computers' adb servers (host:port) whose phones the device list shows, labelled with the host */
  adb_servers: string[]
  /** the scrcpy-server file for the phone mirror ("": where scrcpy installs it) */
  scrcpy_server: string
  /** keep no video of runs */
  video_off: boolean
  /** the newest videos kept, in GB (older ones are deleted, their records kept) */
  video_keep_gb: number
  /** the chord that stops a desktop run from any window ("": this system's, Info.stopKeyDefault) */
  stop_hotkey: string
}

/** What starting a chore on one device came to: its run, or why it did not start (backend.ChoreStart). */
export interface ChoreStart {
  device: string
  run: Snapshot
  error?: string
}

/** The app's MCP server over HTTP as Settings shows it (app/mcp.go). */
export interface MCPAccess {
  on: boolean
  url: string
  token: string
  error?: string
}

export interface WelcomeStatus {
  adb: {
    installed: boolean
    path: string
    serverOk: boolean
    devices: { serial: string; state: string }[]
    error: string
  }
  modelServers: ModelServer[]
  vphone: boolean
}

/** ModelServer is a local OpenAI-compatible server the welcome found. */
export interface ModelServer {
  name: string
  baseUrl: string
  models: string[]
}

export interface LoadedSettings {
  settings: Settings
  warning: string
  /** phones whose keyboard this start gave back after an earlier Tandem died while typing */
  keyboards_restored?: { serial: string; ime: string }[]
}

export interface DeviceEntry {
  id: string
  name: string
  kind: 'phone' | 'desktop'
  state: string // "device", "offline", "unauthorized", "ready"
  screen: { w: number; h: number }
  virtual: boolean
  problem: string // what the person should do, when state is not usable (English)
  /** the problem's code, worded by said.ts's problemText */
  problem_code?: string
  problem_param?: string
  /** the other computer's adb server the phone is on (its id ends in "@" and it); none for this computer's */
  host?: string
  /** who in another Tandem drives it now (said.ts holderText words it); none when no one, or this window, does */
  held_by?: Holder
}

export interface Preset {
  id: string
  name: string
  base_url: string
  model: string
  dialect: string
  variant: string
  needs_key: boolean
  /** requests at once a new profile starts with (0: no limit) */
  max_in_flight: number
}

export interface Profile {
  id: string
  name: string
  preset: string
  base_url: string
  model: string
  dialect: string
  variant: string
  key_masked: string // "" when no key is stored; never the key itself
  /** sampling over the model family's reference; absent keeps it */
  temperature?: number | null
  top_p?: number | null
  max_tokens?: number | null
  /** the model's context length (0 or absent: 32768) */
  context_tokens?: number | null
  vision_on_demand?: boolean
  ui_tree?: boolean
  action_cache?: boolean
  /** requests sent to this server and model at once, over all runs (0 or absent: no limit) */
  max_in_flight?: number | null
}

/** a scrcpy-server file as Settings checks it (backend.ScrcpyServer) */
export interface ScrcpyServer {
  path: string
  version: string
  /** "" (usable), missing, not_server, too_old, too_new */
  problem: '' | 'missing' | 'not_server' | 'too_old' | 'too_new' | string
  text: string
  /** TANDEM_SCRCPY_SERVER when set: it wins over the setting */
  env: string
  /** no file was chosen: path is the one the usual install paths hold ("" none) */
  found: boolean
}

export interface TestResult {
  ok: boolean
  message: string
  latency_ms: number
  /** the part that failed: connect, image, tools… (empty when ok) */
  stage?: string
  /** the form field to fix, when the failure is one field's */
  field?: string
}

export interface Region {
  x1: number
  y1: number
  x2: number
  y2: number
}

/** PastStep is one device action of a recorded run (app/history.go). */
export interface PastStep {
  n: number
  by_person: boolean
  thought?: string
  action: Action
  result: string
  ms: number
  /** the words on the element the agent's action hit (StepEvent.target) */
  target?: string
  frame?: string
  screen: { w: number; h: number }
  at?: string
  /** an earlier run's step played again without the model (a replay) */
  replayed?: boolean
}

/** PastAct is one act of the person's in a recorded run (app.PastAct). */
export interface PastAct {
  at: string
  command: string
  text?: string
  action?: Action
  region?: Region
  n?: number
  /** what the run had asked when the person answered or let it keep going */
  asked?: Request
  /** the size of a confirmation's screen (asked.frame), to mark its action on */
  screen?: { w: number; h: number }
}

export interface RunDetail {
  run: RunSummary
  /** the engine settings the run had */
  settings: EngineSettings
  steps: PastStep[]
  acts?: PastAct[]
  result?: { state: string; success: boolean; summary?: string; reason?: string; why?: Cause; pending?: string[] }
  /** the run's videos, oldest first (a resumed run has one more), served beside its frames */
  videos: RunVideo[]
}

/** One video of a run (backend/video.go): its file, its time zero, its size. */
export interface RunVideo {
  name: string
  start: string
  bytes: number
}

export interface RunSummary {
  id: string
  device: string
  goal: string
  state: string
  success: boolean
  summary: string
  started: string
  steps: number
  /** lines of the record that could not be read and were skipped */
  damaged?: number
  /** the record's first line (goal, settings) is among the damaged ones */
  no_start?: boolean
  /** the goal the run started with, when the person edited it (goal is the edited one) */
  first_goal?: string
  /** who started it when not the person at a door ("mcp:<client>") */
  started_by?: string
  /** the device's name at the start ('' in an older record: device is its id) */
  device_name?: string
  /** the door it came in by: 'window', 'run' (the command line), 'mcp' */
  door?: string
  /** what its model calls cost */
  usage: Usage
  /** the engine's reason in parts, when summary is that reason (worded in the UI's language) */
  why?: Cause
}

export type Bound = {
  Info(): Promise<Info>
  GetSettings(): Promise<LoadedSettings>
  SaveSettings(s: Settings): Promise<Settings>
  /** changes only the settings named, on top of those stored; returns them as stored */
  UpdateSettings(patch: Partial<Settings>): Promise<Settings>
  DismissSettingsWarning(): Promise<void>
  ListDevices(): Promise<DeviceEntry[]>
  ConnectDevice(addr: string): Promise<DeviceEntry>
  StartVirtualPhone(): Promise<DeviceEntry>
  /** the devices another Tandem drives now, with their runs as their records say */
  Elsewhere(): Promise<ElsewhereRun[]>
  MirrorURL(device: string): Promise<string>
  /** the window's mirror cannot be seen: its watch ends until MirrorURL */
  MirrorHidden(): Promise<void>
  PopOut(device: string): Promise<void>
  /** a tile of the side-by-side view watches its device; the stream's URL names it */
  TileURL(device: string): Promise<string>
  TileClosed(device: string): Promise<void>
  FramesBase(): Promise<{ url: string; token: string }>
  /** the person's gesture on the mirror; Go decides where it goes: "done" or "took_over" */
  MirrorGesture(device: string, a: Action): Promise<string>
  /** a press on the mirror; Go makes the gesture of it (mirror.Press) and sends it on as MirrorGesture */
  MirrorPress(device: string, p: Press): Promise<string>
  /** a press on one picked tile, landing on it and every other picked device at the same place (group control) */
  MirrorPressGroup(device: string, others: string[], p: Press): Promise<GroupResult[]>
  MirrorTouch(device: string, phase: 'down' | 'move' | 'up' | 'cancel', x: number, y: number): Promise<void>
  MirrorPath(device: string): Promise<{ path: string; reason: string }>
  Presets(): Promise<Preset[]>
  Profiles(): Promise<Profile[]>
  SaveProfile(p: Profile, apiKey: string): Promise<Profile>
  DeleteProfile(id: string): Promise<void>
  TestProfile(id: string): Promise<TestResult>
  /** tests the form as typed (key "" uses the saved one), with one image and, for tools, one tool call */
  TestForm(p: Profile, key: string): Promise<TestResult>
  /** checks a scrcpy-server file (its release, read from the file) */
  ScrcpyServer(path: string): Promise<ScrcpyServer>
  StartRun(device: string, goal: string): Promise<Snapshot>
  ActiveRuns(): Promise<Snapshot[]>
  Pause(run: string): Promise<void>
  Resume(run: string): Promise<void>
  TakeOver(run: string): Promise<void>
  HandBack(run: string, note: string, region: Region | null): Promise<void>
  Stop(run: string): Promise<void>
  StopAfter(run: string, steps: number): Promise<void>
  Confirm(run: string): Promise<void>
  Deny(run: string, reason: string): Promise<void>
  Answer(run: string, text: string): Promise<void>
  EditGoal(run: string, goal: string): Promise<void>
  EditPending(run: string, actions: Action[]): Promise<void>
  PastRuns(): Promise<RunSummary[]>
  ResumeRun(run: string): Promise<Snapshot>
  /** replays a finished run's steps on a device, without the model while they are on the screen */
  RunAgain(run: string, device: string): Promise<Snapshot>
  RunSteps(run: string): Promise<RunDetail>
  ExportReport(run: string): Promise<string>
  ExportClip(run: string, steps: { from: number; to: number }): Promise<string>
  /** writes the report and opens it in the person's browser */
  OpenReport(run: string): Promise<void>
  /** asks where to save a copy (the system's dialog); "" when cancelled */
  SaveReportAs(run: string): Promise<string>
  WelcomeCheck(): Promise<WelcomeStatus>
  DismissWelcome(): Promise<Settings>
  UseLocalModel(server: ModelServer, model: string): Promise<Profile>
  MCPAccess(): Promise<MCPAccess>
  /** a new bearer token; the old one is refused from then on */
  RenewMCPToken(): Promise<MCPAccess>
  /** the window as a small bar on top of the others (a desktop run), or back as it was */
  SetCompact(on: boolean): Promise<void>
  /** whether the window is in front of the person (Go notifies the desktop only when it is not) */
  WindowFront(front: boolean): Promise<void>
  /** the devices the window shows now (Go notifies a request on another even in front) */
  WindowShows(devices: string[]): Promise<void>
  /** runs the world of chores for each chosen model, one after another, on virtual phones */
  StartEvaluation(req: EvalRequest): Promise<Evaluation>
  StopEvaluation(): Promise<void>
  Evaluations(): Promise<EvalSummary[]>
  Evaluation(id: string): Promise<Evaluation>
  /** writes the evaluation's HTML report and opens it in the person's browser */
  OpenEvalReport(id: string): Promise<void>
  /** the saved chores, by name */
  Chores(): Promise<Chore[]>
  /** adds (no id) or changes a chore; returns it as saved */
  SaveChore(c: Chore): Promise<Chore>
  DeleteChore(id: string): Promise<void>
  /** a chore made of a finished run, to name and save */
  DraftChore(run: string): Promise<ChoreDraft>
  /** starts a chore on each device at once, each its own run */
  StartChore(id: string, values: Record<string, string>, devices: string[]): Promise<ChoreStart[]>
  /** the schedules' missed slots and recent starts */
  ChoresNews(): Promise<ChoresNews>
  /** runs a missed slot's chore now, or skips it */
  AnswerMissed(id: string, run: boolean): Promise<ChoreStart[]>
}

type Runtime = {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void
}

/** ServiceName is one of the services Go binds (app/api.go). */
export type ServiceName = keyof typeof boundServices

declare global {
  interface Window {
    go?: { app?: Partial<Record<ServiceName, Partial<Bound>>>; popout?: { Popout?: PopoutBound } }
    runtime?: Runtime
  }
}

/** serviceOf names the service each bound method is on. */
const serviceOf = new Map<string, ServiceName>(
  (Object.entries(boundServices) as [ServiceName, readonly string[]][]).flatMap(([svc, names]) =>
    names.map((n) => [n, svc] as [string, ServiceName]),
  ),
)

/** PopoutBound is the pop-out window's binding (popout.Popout, popout/popout.go). */
export interface PopoutBound {
  Config(): Promise<PopoutConfig>
  /** "done", or "took_over" when the agent was driving */
  Send(a: Action): Promise<string>
  /** a press, made a gesture by Go's one rule, then sent as Send */
  Press(p: Press): Promise<string>
}

/** popoutBinding is the pop-out window's binding; null in the main window. */
export function popoutBinding(): PopoutBound | null {
  return window.go?.popout?.Popout ?? null
}

export class BackendMissing extends Error {
  constructor() {
    super('the Go backend is not connected (window.go.app is missing)')
  }
}

/** backend is the bound API; each call returns a promise that rejects with the Go error text. */
export const backend = new Proxy({} as Bound, {
  get(_t, name: string) {
    return (...args: unknown[]) => {
      const bound = window.go?.app
      if (!bound) throw new BackendMissing()
      const svc = serviceOf.get(name)
      const fn = svc && (bound[svc] as Record<string, (...a: unknown[]) => Promise<unknown>> | undefined)?.[name]
      if (typeof fn !== 'function') return Promise.reject(new Error(`backend method ${name} is missing`))
      return fn(...args)
    }
  },
})

/** onChores hears the chores' news: the list changed, a slot was missed, a schedule started one. */
export function onChores(cb: (n: ChoresNews) => void): () => void {
  return window.runtime?.EventsOn('chores', (n) => cb(n as ChoresNews)) ?? (() => {})
}

/** onEvent subscribes to the engine's run events; returns the unsubscribe. */
export function onRunEvent(cb: (e: EngineEvent) => void): () => void {
  // The window sends them in batches ("runs", app/events.go), one a frame
  // at most while the model streams; "run" is one event.
  const offs = [
    window.runtime?.EventsOn('run', (e) => cb(e as EngineEvent)),
    window.runtime?.EventsOn('runs', (batch) => (batch as EngineEvent[]).forEach(cb)),
  ]
  return () => offs.forEach((off) => off?.())
}

/** onEvalProgress subscribes to the running evaluation's progress. */
export function onEvalProgress(cb: (p: Progress) => void): () => void {
  return window.runtime?.EventsOn('eval', (p) => cb(p as Progress)) ?? (() => {})
}

/** onElsewhere hears a device another Tandem drives, or lets go of (backend/elsewhere.go). */
export function onElsewhere(cb: (e: ElsewhereRun) => void): () => void {
  return window.runtime?.EventsOn('elsewhere', (e) => cb(e as ElsewhereRun)) ?? (() => {})
}

/** onDevices subscribes to device list changes. */
export function onDevices(cb: (d: DeviceEntry[]) => void): () => void {
  return window.runtime?.EventsOn('devices', (d) => cb(d as DeviceEntry[])) ?? (() => {})
}

/**
 * errorText turns a rejected backend call into the sentence to show, in the
 * UI's language when the backend sent a code (app/said.go).
 */
export function errorText(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e)
  const said = parseSaid(message)
  return said ? saidText(said) : message
}

/**
 * settingsChanges is what next changes against base, field by field: a
 * dialog that edits a copy saves only what the person changed in it, so a
 * change made meanwhile elsewhere (a recent goal, the language) is kept.
 */
export function settingsChanges(base: Settings, next: Settings): Partial<Settings> {
  const out: Partial<Settings> = {}
  for (const k of Object.keys(next) as (keyof Settings)[]) {
    if (JSON.stringify(base[k]) !== JSON.stringify(next[k])) (out as Record<string, unknown>)[k] = next[k]
  }
  return out
}
