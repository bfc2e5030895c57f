// The UI's hand-written types (refined: unions for known strings, optional
// fields the UI may lack) checked against the generated copies of the Go
// structs (types.ts). A field added, renamed or removed on either side is a
// compile error here, named by the key, and so is a field whose type
// differs (a string where Go sends a number), so the two cannot drift apart.
// Nothing here runs; svelte-check (make test) type-checks it.
import type * as Go from './types'
import type * as Gc from './chores'
import type * as Ev from '../events'
import type * as Be from '../backend'

/** true when A and B have the same keys; otherwise the keys each lacks. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { onlyInUI: Exclude<keyof A, keyof B>; onlyInGo: Exclude<keyof B, keyof A> }

/**
 * Whether the UI's type of a field agrees with Go's, absent values aside:
 * one is assignable to the other (the UI may refine Go's string to a union
 * of the known ones); lists agree by their items; two structs agree when
 * one's keys hold the other's (each struct has a row of its own below,
 * which checks it whole). A string where Go sends a number, or a list
 * where it sends one value, agrees neither way.
 */
type Agrees<U, G> = Agree<NonNullable<U>, NonNullable<G>>
type Agree<U, G> = [U] extends [G]
  ? true
  : [G] extends [U]
    ? true
    : [U, G] extends [readonly (infer u)[], readonly (infer g)[]]
      ? Agrees<u, g>
      : [U, G] extends [readonly unknown[], unknown] | [unknown, readonly unknown[]]
        ? false
        : [U, G] extends [object, object]
          ? [keyof U] extends [keyof G]
            ? true
            : [keyof G] extends [keyof U]
              ? true
              : false
          : false

/** The keys both have whose types do not agree. */
type TypeDiffers<A, B> = { [K in keyof A & keyof B]-?: Agrees<A[K], B[K]> extends true ? never : K }[keyof A & keyof B]

/** true when A and B have the same keys and each key's types agree; otherwise what differs. */
type SameFields<A, B> =
  SameKeys<A, B> extends true ? ([TypeDiffers<A, B>] extends [never] ? true : { typeDiffers: TypeDiffers<A, B> }) : SameKeys<A, B>

/** The page's Bound interface lists exactly the methods Wails binds. */
export const boundNames: SameKeys<Be.Bound, Record<Go.BoundMethod, unknown>> = true

export const checks: {
  action: SameFields<Ev.Action, Go.Action>
  usage: SameFields<Ev.Usage, Go.Usage>
  // key and thought are the view's: the fold adds them
  step: SameFields<Omit<Ev.StepEvent, 'key'>, Go.StepEvent>
  todo: SameFields<Ev.TodoItem, Go.TodoItem>
  plan: SameFields<Ev.PlanEvent, Go.PlanEvent>
  usageEvent: SameFields<Ev.UsageEvent, Go.UsageEvent>
  request: SameFields<Ev.Request, Go.Request>
  result: SameFields<Ev.Result, Go.Result>
  snapshot: SameFields<Ev.Snapshot, Go.Snapshot>
  person: SameFields<Ev.PersonAct, Go.PersonAct>
  event: SameFields<Ev.EngineEvent, Go.Event>
  retry: SameFields<Ev.RetryEvent, Go.RetryEvent>
  waiting: SameFields<Ev.WaitingEvent, Go.WaitingEvent>
  info: SameFields<Be.Info, Go.Info>
  budget: SameFields<Be.Budget, Go.BackendBudget>
  // profiles reach the UI through ListProfiles (keys masked), not Settings
  settings: SameFields<Be.Settings, Omit<Go.BackendSettings, 'profiles'>>
  welcome: SameFields<Be.WelcomeStatus, Go.WelcomeStatus>
  modelServer: SameFields<Be.ModelServer, Go.ModelServer>
  loaded: SameFields<Be.LoadedSettings, Go.LoadedSettings>
  device: SameFields<Be.DeviceEntry, Go.Entry>
  preset: SameFields<Be.Preset, Go.PresetInfo>
  profile: SameFields<Be.Profile, Go.Profile>
  test: SameFields<Be.TestResult, Go.TestResult>
  scrcpy: SameFields<Be.ScrcpyServer, Go.ScrcpyServer>
  region: SameFields<Be.Region, Go.Region>
  pastStep: SameFields<Be.PastStep, Go.PastStep>
  pastAct: SameFields<Be.PastAct, Go.PastAct>
  detail: SameFields<Be.RunDetail, Go.RunDetail>
  summary: SameFields<Be.RunSummary, Go.RunSummary>
  choreStart: SameFields<Be.ChoreStart, Gc.ChoreStart>
} = {
  action: true, usage: true, step: true, todo: true, plan: true, usageEvent: true, request: true,
  result: true, snapshot: true, person: true, event: true, retry: true, waiting: true, info: true,
  budget: true, settings: true, welcome: true, modelServer: true, loaded: true, device: true,
  preset: true, profile: true, test: true, scrcpy: true, region: true, pastStep: true, pastAct: true, detail: true,
  summary: true,
  choreStart: true,
}

// The check itself, checked by svelte-check: a field whose type differs
// fails it (each @ts-expect-error below fails svelte-check once the check
// no longer catches its mismatch), and the UI's refinements pass.
// @ts-expect-error a string in the UI where Go sends a number
export const catchesAType: SameFields<{ n: string }, { n: number }> = true
// @ts-expect-error a list in the UI where Go sends one value
export const catchesAList: SameFields<{ v: string[] }, { v: string }> = true
// @ts-expect-error a list of numbers in the UI where Go sends strings
export const catchesItems: SameFields<{ v: number[] }, { v: string[] }> = true
export const refines: SameFields<{ k: 'tap' | 'swipe'; n?: number; s: { a: 1 } }, { k: string; n: number; s: { a: number; b: string } }> = true
