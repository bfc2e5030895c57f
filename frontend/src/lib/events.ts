// The engine's events as the UI receives them (engine/events.go), and the
// fold that turns a snapshot plus later events into what the screen shows.
// The first event of a subscription is always a snapshot; every later event
// changes one concern. Events are applied in seq order; a stale or repeated
// seq is ignored, so a reconnect that replays a snapshot is harmless.
//
// The Wails event bus does not keep order (its dev server writes each event
// from its own goroutine), so a Sequencer puts a run's events back in seq
// order before they are folded.
import type { RunState } from './controls'
import { i18n, requestTitle, sentence, type Key } from './i18n.svelte'

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
  /** clear the field before typing */
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

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  cost: number
  currency?: string // 'USD', 'CNY'…
  unpriced?: boolean // the model has no price: the cost is unknown, not zero
  estimated?: boolean
}

const currencySigns: Record<string, string> = { USD: '$', CNY: '¥', EUR: '€', GBP: '£', JPY: '¥' }

/**
 * costText words a usage's cost: with its currency's sign, '—' when no
 * price is known (never a misleading 0), and '≥' when only part of it is.
 */
export function costText(u: Usage): string {
  if (u.unpriced && !u.cost) return '—'
  if (!u.cost && !u.currency) return '0' // nothing spent yet
  const amount = u.cost.toFixed(u.cost < 1 ? 4 : 2)
  const cur = u.currency ?? ''
  const money = cur in currencySigns ? currencySigns[cur] + amount : cur ? `${amount} ${cur}` : amount
  return (u.unpriced ? '≥' : '') + money
}

export interface StepEvent {
  n: number
  action: Action
  result: string
  ms: number
  by_person?: boolean
  /** the words on the element a pointed action hit, when the screen named one */
  target?: string
  thought?: string
  /** the model call that chose it (0 or absent: the person's) */
  call?: number
  /** the recorded screen it was chosen on, inside the run's record */
  frame?: string
  /** what the call cost; only on the first action of a call */
  usage?: Usage
  /** what the dialect repaired to read the call's reply (first action only) */
  salvaged?: string
  /** the decision was reused from the action cache, not made by the model */
  cached?: boolean
  /** a unique key in the view (the event's seq) */
  key?: number
}

export interface TodoItem {
  action: Action
  status: 'done' | 'current' | 'pending'
  /** the element a pointed current action aims at (from the UI tree) */
  element?: { label: string; bounds: { x1: number; y1: number; x2: number; y2: number }; shown?: string }
}

export interface PlanEvent {
  thought?: string
  todo: TodoItem[]
}

export interface UsageEvent {
  total: Usage
  calls: number
  /** the agent's steps (what a step budget counts) */
  steps: number
  /** the person's inputs: steps too, as History and the report count them */
  person_steps?: number
  elapsed_ms: number
  /** when elapsed_ms was measured (RFC 3339) */
  at?: string
}

/**
 * elapsedNow is the run's elapsed time to show at now: the engine's figure
 * plus the time since it was measured (at; else since the window received
 * it) while the run is live, never less than shown (what the meter showed
 * before for this run), so it never goes backwards; a run that ended shows
 * its final figure.
 */
export function elapsedNow(u: UsageEvent, live: boolean, now: number, received: number, shown: number): number {
  if (!live) return u.elapsed_ms
  const at = u.at ? Date.parse(u.at) : NaN
  const from = at > 0 && at <= now ? at : received
  return Math.max(u.elapsed_ms + Math.max(0, now - from), shown)
}

/** stepCount is every step of the run: the agent's and the person's. */
export function stepCount(u: UsageEvent): number {
  return u.steps + (u.person_steps ?? 0)
}

export interface Request {
  kind: 'confirm' | 'question' | 'take_over' | 'loop' | 'budget' | 'model_error' | 'device_error'
  message: string
  action?: Action
  /** the recorded screen the request is about */
  frame?: string
  /** the rule behind a confirmation */
  why?: { by: 'model' | 'app' | 'word' | 'unread'; detail: string; what?: string }
  /** what the screen calls the element the action aims at ("Pay ¥99") */
  label?: string
  /** the case behind any other request, for wording it in the UI's language */
  cause?: Cause
}

/** Cause is a reason in parts the UI words (engine.Cause; codes in gen/causes.ts). */
export interface Cause {
  code: string
  n?: string
  detail?: string
}

/**
 * requestText words what a request is about in the UI's language when the
 * engine says which case it is; the engine's English message otherwise.
 * An error's own words (detail) are shown as they come.
 */
export function requestText(r: Request): string {
  const key = r.cause ? `cause.${r.cause.code}` : ''
  if (!r.cause || !i18n.has(key)) return r.message
  return i18n.t(key as Key, { n: r.cause.n ?? '', detail: r.cause.detail ?? '', action: r.action ? describe(r.action) : '' })
}

export interface Result {
  state: RunState
  success: boolean
  summary?: string
  pending?: string[]
  reason?: string
  why?: Cause
  steps: number
  calls: number
  usage: Usage
}

export interface Snapshot {
  id: string
  device: string
  goal: string
  state: RunState
  reason?: string
  by?: string
  why?: Cause
  plan: PlanEvent
  thought?: string
  usage: UsageEvent
  request?: Request
  steps?: StepEvent[]
  result?: Result
  retry?: RetryEvent
  waiting?: WaitingEvent
  acts?: PersonAct[]
  seq: number // of the last event the snapshot includes
}

/** PersonAct is one act of the person's (engine.PersonAct). */
export interface PersonAct {
  command: string
  text?: string
  action?: Action
  actions?: Action[]
  region?: { x1: number; y1: number; x2: number; y2: number }
  n?: number
  /** what the run had asked when the person answered, allowed, denied or let it keep going */
  asked?: Request
}

/** ActView is a person's act as the timeline keeps it. */
export type ActView = PersonAct & { key: number; time: string }

export interface EngineEvent {
  run: string
  seq: number
  time: string
  kind: 'snapshot' | 'state' | 'step' | 'plan' | 'thought' | 'retry' | 'waiting' | 'manual' | 'usage' | 'request' | 'done' | 'person'
  snapshot?: Snapshot
  retry?: RetryEvent
  waiting?: WaitingEvent
  state?: { state: RunState; from: RunState; reason?: string; by?: string; why?: Cause }
  step?: StepEvent
  plan?: PlanEvent
  thought?: { call: number; delta: string }
  manual?: { action: Action; at: string; error?: string }
  usage?: UsageEvent
  request?: Request
  done?: Result
  person?: PersonAct
}

/** RetryEvent: the model call's attempt failed and is tried again after wait_ms. */
export interface RetryEvent {
  call: number
  attempt: number
  of: number
  wait_ms: number
  status?: number
  error: string
}

/** WaitingEvent: the model call has no answer yet; sent each second with the time waited, and at once when its place in the model's queue changes. */
export interface WaitingEvent {
  call: number
  since: string
  elapsed_ms: number
  /** requests to the same model that go before this one while it waits its turn (absent: sent) */
  ahead?: number
}

/** RunView is what the UI draws for one run. */
export interface RunView {
  id: string
  device: string
  goal: string
  state: RunState
  reason: string
  /** the person's command (or device_lost) behind the reason, when known */
  by: string
  /** the reason in parts, when the engine gave it (a stop, a limit) */
  why?: Cause | null
  plan: PlanEvent
  thought: string
  thoughtCall: number
  usage: UsageEvent
  request: Request | null
  /** the current model call's last failed attempt, while it is retried */
  retry: RetryEvent | null
  /** the current model call's wait for its first answer, while it waits */
  waiting: WaitingEvent | null
  steps: StepEvent[]
  /** the person's acts, keyed like steps so the two interleave in order */
  acts: ActView[]
  result: Result | null
  seq: number
}

export function emptyUsage(): UsageEvent {
  return { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 }
}

export function fromSnapshot(s: Snapshot, seq: number): RunView {
  return {
    id: s.id,
    device: s.device,
    goal: s.goal,
    state: s.state,
    reason: s.reason ?? '',
    by: s.by ?? '',
    why: s.why ?? null,
    plan: { ...s.plan, todo: s.plan?.todo ?? [] },
    thought: s.thought ?? '',
    thoughtCall: 0,
    usage: s.usage ?? emptyUsage(),
    request: s.request ?? null,
    retry: s.retry ?? null,
    waiting: s.waiting ?? null,
    steps: (s.steps ?? []).map((st, i) => ({ ...st, key: i - (s.steps?.length ?? 0) })),
    acts: (s.acts ?? []).map((a, i) => ({ ...a, key: i - (s.acts?.length ?? 0) + 0.5, time: '' })),
    result: s.result ?? null,
    seq,
  }
}

const maxSteps = 500 // the timeline keeps this many; the record keeps all

/**
 * Sequencer releases a run's events in seq order. An event ahead of the next
 * expected seq waits until the gap fills; if it never does (an event was
 * lost), flush() releases what waits, in order, so the view never stalls.
 * A run's events are released only after its snapshot (or a flush): the
 * snapshot's seq is that of the last event it includes.
 */
export class Sequencer {
  #next = new Map<string, number>() // run id -> next expected seq
  #held = new Map<string, Map<number, EngineEvent>>()

  /** push takes one event and returns those now ready, in order. */
  push(e: EngineEvent): EngineEvent[] {
    if (e.kind === 'snapshot') {
      const next = this.#next.get(e.run)
      if (next !== undefined && e.seq < next - 1) return [] // an old snapshot
      this.#next.set(e.run, e.seq + 1)
      const held = this.#held.get(e.run)
      held?.forEach((_, s) => s <= e.seq && held.delete(s))
      return [e, ...this.#drain(e.run)]
    }
    const next = this.#next.get(e.run)
    // A run's events wait for its snapshot, which says where they start
    // (the bus may deliver a new run's later events before its first).
    if (next !== undefined && e.seq === next) {
      this.#next.set(e.run, e.seq + 1)
      return [e, ...this.#drain(e.run)]
    }
    if (next !== undefined && e.seq < next) return [] // stale or repeated
    let held = this.#held.get(e.run)
    if (!held) this.#held.set(e.run, (held = new Map()))
    held.set(e.seq, e)
    return []
  }

  /** waiting reports whether any event waits for a gap to fill. */
  get waiting(): boolean {
    for (const h of this.#held.values()) if (h.size > 0) return true
    return false
  }

  /** flush gives up on missing events and releases every waiting one in order. */
  flush(): EngineEvent[] {
    const out: EngineEvent[] = []
    for (const [run, held] of this.#held) {
      const seqs = [...held.keys()].sort((a, b) => a - b)
      for (const s of seqs) out.push(held.get(s)!)
      if (seqs.length) this.#next.set(run, seqs[seqs.length - 1] + 1)
      held.clear()
    }
    return out
  }

  #drain(run: string): EngineEvent[] {
    const held = this.#held.get(run)
    const out: EngineEvent[] = []
    let next = this.#next.get(run)!
    while (held?.has(next)) {
      out.push(held.get(next)!)
      held.delete(next)
      next++
    }
    this.#next.set(run, next)
    return out
  }
}

/** apply folds one event into the view and returns the new view (or the same one when ignored). */
export function apply(v: RunView | null, e: EngineEvent): RunView | null {
  if (e.kind === 'snapshot' && e.snapshot) {
    if (v && v.id === e.run && e.seq < v.seq) return v // an older snapshot than what is shown
    return fromSnapshot(e.snapshot, e.seq)
  }
  if (!v || e.run !== v.id || e.seq <= v.seq) return v
  const n: RunView = { ...v, seq: e.seq }
  if (e.kind !== 'retry' && e.kind !== 'usage' && e.kind !== 'waiting') n.retry = null // the call answered, or the run moved on
  if (e.kind !== 'waiting' && e.kind !== 'retry' && e.kind !== 'usage') n.waiting = null
  switch (e.kind) {
    case 'waiting':
      if (!e.waiting) return v
      n.waiting = e.waiting
      break
    case 'retry':
      if (!e.retry) return v
      n.retry = e.retry
      break
    case 'state':
      if (!e.state) return v
      n.state = e.state.state
      n.reason = e.state.reason ?? ''
      n.by = e.state.by ?? ''
      n.why = e.state.why ?? null
      if (n.state !== 'WaitingForUser') n.request = null
      if (n.state === 'Planning') n.thought = ''
      break
    case 'step':
      if (!e.step) return v
      n.steps = [...v.steps, { ...e.step, key: e.seq, thought: e.step.thought ?? (e.step.by_person ? '' : v.plan.thought) }].slice(-maxSteps)
      break
    case 'plan':
      if (e.plan) n.plan = { ...e.plan, todo: e.plan.todo ?? [] }
      break
    case 'thought':
      if (!e.thought) return v
      if (e.thought.call !== v.thoughtCall) {
        n.thought = e.thought.delta
        n.thoughtCall = e.thought.call
      } else {
        n.thought = v.thought + e.thought.delta
      }
      break
    case 'usage':
      if (e.usage) n.usage = e.usage
      break
    case 'request':
      n.request = e.request ?? null
      break
    case 'done':
      if (e.done) {
        n.result = e.done
        n.state = e.done.state
      }
      break
    case 'person':
      if (!e.person) return v
      n.acts = [...v.acts, { ...e.person, key: e.seq, time: e.time }].slice(-maxSteps)
      if (e.person.command === 'edit_goal' && e.person.text) n.goal = e.person.text
      break
    case 'manual':
      // The person's inputs arrive as steps too (by_person); the manual event
      // only matters when it failed, which the step's result already says.
      break
  }
  return n
}

/** TimelineItem is one row of the timeline: an agent's or person's step, or a person's act. */
export type TimelineItem = { key: number; step?: StepEvent; act?: ActView }

// itemOf keeps one row per step or act: every event makes a new RunView, but
// the steps and acts it did not change are the same objects, and so their
// rows stay the same objects, which the timeline then leaves as they are
// (new rows each time re-rendered every card on each event: 6–8 ms of the
// page's time an event with 80 rows, growing with the run).
const itemOf = new WeakMap<StepEvent | ActView, TimelineItem>()

function item(key: number, entry: { step: StepEvent } | { act: ActView }): TimelineItem {
  const obj = 'step' in entry ? entry.step : entry.act
  let it = itemOf.get(obj)
  if (!it || it.key !== key) {
    it = { key, ...entry }
    itemOf.set(obj, it)
  }
  return it
}

/** timelineItems interleaves a run's steps and the person's acts in the order they happened. */
export function timelineItems(v: RunView): TimelineItem[] {
  const out: TimelineItem[] = [
    ...v.steps.map((s, i) => item(s.key ?? i, { step: s })),
    ...v.acts.map((a) => item(a.key, { act: a })),
  ]
  return out.sort((a, b) => a.key - b.key)
}

/** whyText words the rule behind a confirmation in the UI's language. */
export function whyText(w: NonNullable<Request['why']>): string {
  const what = w.what ? `why.unread.${w.what}` : ''
  if (w.by === 'unread' && i18n.has(what)) return i18n.t(what)
  return i18n.t(`why.${w.by}` as Key, { detail: w.detail })
}

/**
 * askedText says what the run had asked when the person answered or let it
 * keep going: the agent's question, or what had stopped it (in words).
 */
export function askedText(r: Request): string {
  if (r.kind === 'question') return i18n.t('who.asked', { q: r.message })
  return i18n.t(requestTitle(r.kind))
}

/** actText words a person's act in the UI's language, with what it carried. */
export function actText(a: PersonAct): string {
  const key = `who.${a.command}`
  let s = i18n.has(key) ? i18n.t(key as Key, { n: String(a.n ?? 0) }) : a.command
  // An answer to a confirmation names what the dialog named (the element's
  // words), not the point it was at.
  const label = a.asked?.kind === 'confirm' ? a.asked.label : ''
  if (a.action) s += `: ${label ? i18n.t('request.confirmTarget', { label }) : describe(a.action)}`
  if (a.text) s += ` — “${a.text}”`
  if (a.region) s += ` · ${i18n.t('who.region')} (${a.region.x1}, ${a.region.y1}) – (${a.region.x2}, ${a.region.y2})`
  return s
}

/**
 * targetLabel is the words of the element an action points at, when the
 * plan names one ("Pay ¥99"), so a confirmation says what will be pressed
 * rather than where.
 */
export function targetLabel(a: Action | undefined, todo: TodoItem[]): string {
  if (!a || a.x === undefined) return ''
  // What a person reads on it, never its resource id (which label includes).
  const t = todo.find((t) => t.element?.shown && t.action.type === a.type && t.action.x === a.x && t.action.y === a.y)
  if (t?.element?.shown) return t.element.shown
  // Or the element whose box holds the point, from any item of the plan.
  const hit = todo.find((t) => t.element?.shown && a.x! >= t.element.bounds.x1 && a.x! <= t.element.bounds.x2 && a.y! >= t.element.bounds.y1 && a.y! <= t.element.bounds.y2)
  return hit?.element?.shown ?? ''
}

/**
 * actionWords says what an action does for a person who is asked to allow
 * it: its words, never its coordinates; a pointed action with no label is
 * where the screenshot marks it (marked) or somewhere on the screen.
 */
export function actionWords(a: Action, marked: boolean): string {
  if (!['tap', 'double_tap', 'right_click', 'long_press', 'swipe', 'drag', 'scroll'].includes(a.type)) return describe(a)
  return sentence(i18n.t(marked ? 'request.actMarked' : 'request.actOnScreen', { act: i18n.t(`act.${a.type}` as Key) }))
}

/**
 * describeOn renders an action as describe does, but a point the screen
 * named is said by its words (target: what a person read on the element it
 * hit, engine.StepEvent.Target): tap “+1”, not tap (759, 1200).
 */
export function describeOn(a: Action, target: string | undefined): string {
  if (!target || !['tap', 'double_tap', 'right_click', 'long_press'].includes(a.type)) return describe(a)
  return i18n.t('act.on', { act: i18n.t(`act.${a.type}` as Key), target })
}

/** describe renders an action for people, in the timeline and dialogs. */
export function describe(a: Action): string {
  const t = i18n.t
  const at = a.x !== undefined && a.y !== undefined ? ` (${a.x}, ${a.y})` : ''
  const dir = (d: string | undefined) => (d && i18n.has(`act.dir.${d}`) ? t(`act.dir.${d}` as Key) : (d ?? ''))
  switch (a.type) {
    case 'tap':
      return `${t('act.tap')}${at}`
    case 'double_tap':
      return `${t('act.double_tap')}${at}`
    case 'right_click':
      return `${t('act.right_click')}${at}`
    case 'long_press':
      return `${t('act.long_press')}${at}`
    case 'swipe':
    case 'drag':
      return `${t(a.type === 'swipe' ? 'act.swipe' : 'act.drag')} (${a.x}, ${a.y}) → (${a.x2}, ${a.y2})`
    case 'scroll':
      return `${t('act.scroll')} ${dir(a.direction)}${at}`
    case 'type':
      return `${t('act.type')} “${a.text ?? ''}”${a.submit ? ' ⏎' : ''}`
    case 'key':
      return `${t('act.key')} ${a.key}`
    case 'hotkey':
      return `${t('act.hotkey')} ${(a.keys ?? []).join('+')}`
    case 'launch':
      return `${t('act.launch')} ${a.app}`
    case 'wait':
      return t('act.wait', { ms: String(a.ms ?? 0) })
    case 'finish':
      return `${t('act.finish')}: ${a.summary ?? ''}`
    case 'fail':
      return `${t('act.fail')}: ${a.reason ?? ''}`
    case 'ask_user':
      return `${t('act.ask_user')}: ${a.question ?? ''}`
    case 'take_over':
      return `${t('act.take_over')}: ${a.reason ?? ''}`
  }
  return a.type
}
