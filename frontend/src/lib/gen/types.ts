// Code generated from the Go structs the UI receives by
// `go test ./app -run TypeScriptTypes -update-ts`. DO NOT EDIT.

/** mcpserver.Access */
export interface Access {
  on: boolean
  url: string
  token: string
  error?: string
}

/** action.Action */
export interface Action {
  type: string
  x?: number
  y?: number
  x2?: number
  y2?: number
  ms?: number
  direction?: string
  text?: string
  submit?: boolean
  clear?: boolean
  key?: string
  keys?: string[]
  app?: string
  summary?: string
  success?: boolean
  reason?: string
  question?: string
  sensitive?: string
  element?: number
}

/** backend.AdbDevice */
export interface AdbDevice {
  serial: string
  state: string
}

/** backend.AdbStatus */
export interface AdbStatus {
  installed: boolean
  path: string
  serverOk: boolean
  devices: AdbDevice[]
  error: string
}

/** backend.Budget */
export interface BackendBudget {
  max_steps: number
  max_tokens: number
  max_cost: number
  max_minutes: number
}

/** backend.Settings */
export interface BackendSettings {
  language: string
  theme: string
  recent_goals: string[]
  active_profile: string
  profiles: Profile[]
  budget: BackendBudget
  policy_words: string[]
  policy_apps: string[]
  stability_ms: number
  wait_to_ask: boolean
  stop_after_steps: number
  welcome_done: boolean
  mcp_http: boolean
  mcp_port: number
  confirm_in_window_only: boolean
  adb_servers: string[]
  scrcpy_server: string
  video_off: boolean
  video_keep_gb: number
  stop_hotkey: string
}

/** engine.Cause */
export interface Cause {
  code: string
  n?: string
  detail?: string
}

/** popout.Config */
export interface Config {
  device: string
  name: string
  stream: string
  input: string
  lang: string
  theme: string
}

/** engine.Element */
export interface Element {
  label: string
  bounds: Region
  shown?: string
  id?: string
  class?: string
}

/** engine.Budget */
export interface EngineBudget {
  steps?: number
  tokens?: number
  cost?: number
  wall_time?: number
}

/** engine.Settings */
export interface EngineSettings {
  budget: EngineBudget
  policy: Policy
  stability: StabilityConfig
  loop_k: number
  history: number
  remind_at: number
  no_typing_check?: boolean
  no_loop_detection?: boolean
  no_parse_retry?: boolean
  ui_tree?: boolean
  unexpected: number
  device_away_max?: number
  max_record_bytes?: number
  model?: string
  dialect?: string
  base_url?: string
}

/** devices.Entry */
export interface Entry {
  id: string
  name: string
  kind: string
  state: string
  screen: Size
  virtual: boolean
  problem: string
  host?: string
  problem_code?: string
  problem_param?: string
  held_by?: Holder
}

/** engine.Event */
export interface Event {
  run: string
  seq: number
  time: string
  kind: string
  snapshot?: Snapshot
  state?: StateEvent
  step?: StepEvent
  plan?: PlanEvent
  thought?: ThoughtEvent
  retry?: RetryEvent
  waiting?: WaitingEvent
  manual?: ManualEvent
  usage?: UsageEvent
  request?: Request
  done?: Result
  person?: PersonAct
}

/** backend.GroupResult */
export interface GroupResult {
  device: string
  outcome?: string
  error?: string
}

/** devices.Holder */
export interface Holder {
  door: string
  client?: string
  pid: number
  device?: string
  since: string
  run?: string
  goal?: string
}

/** backend.Info */
export interface Info {
  version: string
  commit: string
  os: string
  locale: string
  dataDir: string
  settingsPath: string
  pricesPath: string
  stopKeyDefault: string
}

/** backend.LoadedSettings */
export interface LoadedSettings {
  settings: BackendSettings
  warning: string
  keyboards_restored?: Restored[]
}

/** engine.ManualEvent */
export interface ManualEvent {
  action: Action
  at: string
  before?: string
  after?: string
  error?: string
}

/** backend.ModelServer */
export interface ModelServer {
  name: string
  baseUrl: string
  models: string[]
}

/** backend.PastAct */
export interface PastAct {
  at: string
  command: string
  text?: string
  action?: Action
  region?: Region
  n?: number
  asked?: Request
  screen?: Size
}

/** backend.PastStep */
export interface PastStep {
  n: number
  by_person: boolean
  thought?: string
  action: Action
  result: string
  ms: number
  target?: string
  frame?: string
  screen: Size
  at: string
  replayed?: boolean
}

/** engine.PersonAct */
export interface PersonAct {
  command: string
  text?: string
  action?: Action
  actions?: Action[]
  region?: Region
  n?: number
  asked?: Request
}

/** engine.PlanEvent */
export interface PlanEvent {
  thought?: string
  todo: TodoItem[]
}

/** engine.Policy */
export interface Policy {
  words: string[]
  apps: string[]
  off?: boolean
}

/** backend.PresetInfo */
export interface PresetInfo {
  id: string
  name: string
  base_url: string
  model: string
  dialect: string
  variant: string
  needs_key: boolean
  max_in_flight: number
}

/** mirror.Press */
export interface Press {
  x0: number
  y0: number
  x: number
  y: number
  ms: number
  far: number
  w: number
  h: number
}

/** backend.Profile */
export interface Profile {
  id: string
  name: string
  preset: string
  base_url: string
  model: string
  dialect: string
  variant: string
  key_masked: string
  temperature?: number
  top_p?: number
  max_tokens?: number
  context_tokens?: number
  vision_on_demand?: boolean
  ui_tree?: boolean
  action_cache?: boolean
  max_in_flight?: number
}

/** engine.Region */
export interface Region {
  x1: number
  y1: number
  x2: number
  y2: number
}

/** engine.Request */
export interface Request {
  kind: string
  message: string
  action?: Action
  why?: Why
  label?: string
  cause?: Cause
  frame?: string
}

/** adb.Restored */
export interface Restored {
  serial: string
  ime: string
}

/** engine.Result */
export interface Result {
  state: string
  success: boolean
  summary?: string
  pending?: string[]
  reason?: string
  why?: Cause
  steps: number
  calls: number
  usage: Usage
}

/** engine.RetryEvent */
export interface RetryEvent {
  call: number
  attempt: number
  of: number
  wait_ms: number
  status?: number
  error: string
}

/** backend.RunDetail */
export interface RunDetail {
  run: RunSummary
  settings?: EngineSettings
  steps: PastStep[]
  acts: PastAct[]
  result?: Result
  videos: RunVideo[]
}

/** backend.RunSummary */
export interface RunSummary {
  id: string
  device: string
  goal: string
  state: string
  success: boolean
  summary: string
  started: string
  steps: number
  damaged?: number
  no_start?: boolean
  started_by?: string
  device_name?: string
  door?: string
  usage: Usage
  first_goal?: string
  why?: Cause
}

/** backend.RunVideo */
export interface RunVideo {
  name: string
  start: string
  bytes: number
}

/** backend.ScrcpyServer */
export interface ScrcpyServer {
  path: string
  version: string
  problem: string
  text: string
  env: string
  found: boolean
}

/** action.Size */
export interface Size {
  w: number
  h: number
}

/** engine.Snapshot */
export interface Snapshot {
  id: string
  device: string
  goal: string
  state: string
  reason?: string
  by?: string
  why?: Cause
  plan: PlanEvent
  thought?: string
  retry?: RetryEvent
  waiting?: WaitingEvent
  usage: UsageEvent
  request?: Request
  steps?: StepEvent[]
  result?: Result
  acts?: PersonAct[]
  seq: number
}

/** engine.StabilityConfig */
export interface StabilityConfig {
  interval: number
  stable_frames: number
  max: number
  threshold: number
  wait_to_ask?: boolean
}

/** engine.StateEvent */
export interface StateEvent {
  state: string
  from: string
  reason?: string
  by?: string
  why?: Cause
}

/** engine.StepEvent */
export interface StepEvent {
  n: number
  action: Action
  result: string
  ms: number
  by_person?: boolean
  target?: string
  call?: number
  thought?: string
  frame?: string
  usage?: Usage
  salvaged?: string
  cached?: boolean
}

/** backend.TestResult */
export interface TestResult {
  ok: boolean
  message: string
  latency_ms: number
  stage?: string
  field?: string
}

/** engine.ThoughtEvent */
export interface ThoughtEvent {
  call: number
  delta: string
}

/** engine.TodoItem */
export interface TodoItem {
  action: Action
  status: string
  element?: Element
}

/** model.Usage */
export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  cost: number
  currency?: string
  unpriced?: boolean
  estimated?: boolean
}

/** engine.UsageEvent */
export interface UsageEvent {
  total: Usage
  calls: number
  steps: number
  person_steps: number
  elapsed_ms: number
  at: string
}

/** engine.WaitingEvent */
export interface WaitingEvent {
  call: number
  since: string
  elapsed_ms: number
  ahead?: number
}

/** backend.WelcomeStatus */
export interface WelcomeStatus {
  adb: AdbStatus
  modelServers: ModelServer[]
  vphone: boolean
}

/** engine.Why */
export interface Why {
  by: string
  detail: string
  what?: string
}

/** The methods Wails binds, by service (app/api.go): window.go.app.<service>.<method>. */
export const boundServices = {
  DevicesAPI: ['ConnectDevice', 'Elsewhere', 'ListDevices', 'StartVirtualPhone'],
  RunsAPI: ['ActiveRuns', 'Answer', 'Confirm', 'Deny', 'EditGoal', 'EditPending', 'HandBack', 'Pause', 'Resume', 'SetCompact', 'StartRun', 'Stop', 'StopAfter', 'TakeOver', 'WindowFront', 'WindowShows'],
  HistoryAPI: ['ExportClip', 'ExportReport', 'OpenReport', 'PastRuns', 'ResumeRun', 'RunAgain', 'RunSteps', 'SaveReportAs'],
  MirrorAPI: ['FramesBase', 'MirrorGesture', 'MirrorHidden', 'MirrorPath', 'MirrorPress', 'MirrorPressGroup', 'MirrorTouch', 'MirrorURL', 'PopOut', 'TileClosed', 'TileURL'],
  SettingsAPI: ['DeleteProfile', 'DismissSettingsWarning', 'DismissWelcome', 'GetSettings', 'Info', 'MCPAccess', 'Presets', 'Profiles', 'RenewMCPToken', 'SaveProfile', 'SaveSettings', 'ScrcpyServer', 'TestForm', 'TestProfile', 'UpdateSettings', 'UseLocalModel', 'WelcomeCheck'],
  EvalAPI: ['Evaluation', 'Evaluations', 'OpenEvalReport', 'StartEvaluation', 'StopEvaluation'],
  ChoresAPI: ['AnswerMissed', 'Chores', 'ChoresNews', 'DeleteChore', 'DraftChore', 'SaveChore', 'StartChore'],
} as const

/** Every bound method's name. */
export type BoundMethod = (typeof boundServices)[keyof typeof boundServices][number]
