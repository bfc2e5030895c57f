// The UI's hand-written types (refined: unions for known strings, optional
// fields the UI may lack) checked against the generated copies of the Go
// structs (types.ts). A field added, renamed or removed on either side is a
// compile error here, named by the key, so the two cannot drift apart.
// Nothing here runs; svelte-check (make test) type-checks it.
import type * as Go from './types'
import type * as Gc from './chores'
import type * as Ev from '../events'
import type * as Be from '../backend'

/** true when A and B have the same keys; otherwise the keys each lacks. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { onlyInUI: Exclude<keyof A, keyof B>; onlyInGo: Exclude<keyof B, keyof A> }

/** The page's Bound interface lists exactly the methods Wails binds. */
export const boundNames: SameKeys<Be.Bound, Record<Go.BoundMethod, unknown>> = true

export const checks: {
  action: SameKeys<Ev.Action, Go.Action>
  usage: SameKeys<Ev.Usage, Go.Usage>
  // key and thought are the view's: the fold adds them
  step: SameKeys<Omit<Ev.StepEvent, 'key'>, Go.StepEvent>
  todo: SameKeys<Ev.TodoItem, Go.TodoItem>
  plan: SameKeys<Ev.PlanEvent, Go.PlanEvent>
  usageEvent: SameKeys<Ev.UsageEvent, Go.UsageEvent>
  request: SameKeys<Ev.Request, Go.Request>
  result: SameKeys<Ev.Result, Go.Result>
  snapshot: SameKeys<Ev.Snapshot, Go.Snapshot>
  person: SameKeys<Ev.PersonAct, Go.PersonAct>
  event: SameKeys<Ev.EngineEvent, Go.Event>
  retry: SameKeys<Ev.RetryEvent, Go.RetryEvent>
  waiting: SameKeys<Ev.WaitingEvent, Go.WaitingEvent>
  info: SameKeys<Be.Info, Go.Info>
  budget: SameKeys<Be.Budget, Go.BackendBudget>
  // profiles reach the UI through ListProfiles (keys masked), not Settings
  settings: SameKeys<Be.Settings, Omit<Go.BackendSettings, 'profiles'>>
  welcome: SameKeys<Be.WelcomeStatus, Go.WelcomeStatus>
  modelServer: SameKeys<Be.ModelServer, Go.ModelServer>
  loaded: SameKeys<Be.LoadedSettings, Go.LoadedSettings>
  device: SameKeys<Be.DeviceEntry, Go.Entry>
  preset: SameKeys<Be.Preset, Go.PresetInfo>
  profile: SameKeys<Be.Profile, Go.Profile>
  test: SameKeys<Be.TestResult, Go.TestResult>
  scrcpy: SameKeys<Be.ScrcpyServer, Go.ScrcpyServer>
  region: SameKeys<Be.Region, Go.Region>
  pastStep: SameKeys<Be.PastStep, Go.PastStep>
  pastAct: SameKeys<Be.PastAct, Go.PastAct>
  detail: SameKeys<Be.RunDetail, Go.RunDetail>
  summary: SameKeys<Be.RunSummary, Go.RunSummary>
  choreStart: SameKeys<Be.ChoreStart, Gc.ChoreStart>
} = {
  action: true, usage: true, step: true, todo: true, plan: true, usageEvent: true, request: true,
  result: true, snapshot: true, person: true, event: true, retry: true, waiting: true, info: true,
  budget: true, settings: true, welcome: true, modelServer: true, loaded: true, device: true,
  preset: true, profile: true, test: true, scrcpy: true, region: true, pastStep: true, pastAct: true, detail: true,
  summary: true,
  choreStart: true,
}
