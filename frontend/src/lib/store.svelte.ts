// The UI's state: devices, the selected one, and one run view per device.
// Engine events arrive over the Wails event bus and are folded by apply();
// commands go to the backend and their errors become a visible message on
// the run they concern, never a silent failure.
import { backend, errorText, onDevices, onElsewhere, onRunEvent, type ChoreStart, type DeviceEntry } from './backend'
import type { ElsewhereRun } from './gen/elsewhere'
import { apply, fromSnapshot, Sequencer, type EngineEvent, type RunView, type Snapshot } from './events'
import { isLive } from './controls'
import { needKey, tellApart, updateNeeds, type Need } from './tiles'

/** deviceName is how a device is called in the UI (displays get a translated name). */
export function deviceName(d: DeviceEntry, t: (k: 'devices.thisComputer' | 'devices.display', v?: Record<string, string>) => string): string {
  if (d.kind !== 'desktop') return d.name
  const n = Number(d.id.split(':')[1] ?? '0') + 1
  return `${t('devices.thisComputer')} · ${t('devices.display', { n: String(n) })}`
}

// nextFrame runs f before the next repaint (a timer where there is no
// repaint, as in unit tests).
const nextFrame = (f: () => void): number =>
  typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : (setTimeout(f, 16) as unknown as number)
const cancelFrame = (id: number) =>
  typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : clearTimeout(id as unknown as ReturnType<typeof setTimeout>)

class Store {
  devices = $state<DeviceEntry[]>([])
  devicesError = $state('')
  selected = $state<string>('')
  /**
   * runs by device id: the newest run of each device. apply() replaces a
   * view rather than changing it, so the record is raw (not deeply
   * proxied) and replaced whole.
   */
  runs = $state.raw<Record<string, RunView>>({})
  /** the last command error, per device */
  errors = $state<Record<string, string>>({})
  /** where recorded screens are served (for step thumbnails) */
  frames = $state<{ url: string; token: string } | null>(null)

  /**
   * devices another Tandem drives, by id, with their runs as their records
   * say (backend/elsewhere.go): shown live, never driven from here.
   */
  away = $state.raw<Record<string, ElsewhereRun>>({})

  /** what tells each device from others of its name ('' when its name is its own) */
  marks = $derived(tellApart(this.devices))
  /** what the runs need the person for, in the order it arrived (lib/tiles.ts) */
  needs = $state.raw<Need[]>([])
  #seen = new Set<string>()

  #runDevice = new Map<string, string>() // run id -> device id
  #listed = 0 // device lists set so far (an answer is dropped if one came while it was asked)

  get device(): DeviceEntry | undefined {
    return this.devices.find((d) => d.id === this.selected)
  }

  get run(): RunView | undefined {
    return this.runs[this.selected]
  }

  /**
   * shownOn is the run to show on device dev: its run in another Tandem
   * while that one drives it (this window's last run there is over), else
   * this window's own. Only to show: commands go to store.run's.
   */
  shownOn(dev: string): RunView | undefined {
    const own = this.runs[dev]
    const away = this.away[dev]?.run
    if (away && !(own && isLive(own.state))) return fromSnapshot(away as Snapshot, away.seq) // its state is one of RunState: the same Go type
    return own
  }

  get shown(): RunView | undefined {
    return this.shownOn(this.selected)
  }

  /** seeAway takes news of a device another Tandem drives or let go of. */
  seeAway(e: ElsewhereRun) {
    const next = { ...this.away }
    if (e.gone) delete next[e.device]
    else next[e.device] = e
    this.away = next
  }

  #order = new Sequencer()
  #gapTimer: ReturnType<typeof setTimeout> | undefined

  /** handle takes an event from the bus, which may deliver out of order. */
  handle = (e: EngineEvent) => {
    for (const ev of this.#order.push(e)) this.#take(ev)
    clearTimeout(this.#gapTimer)
    if (this.#order.waiting) {
      // An event was lost on the way: show what came rather than stall.
      this.#gapTimer = setTimeout(() => this.#order.flush().forEach((ev) => this.#take(ev)), 300)
    }
  }

  // The model's thought arrives a token at a time; drawing each would redraw
  // the window hundreds of times a second. Thought deltas wait for the next
  // animation frame and are folded together; any other event folds them
  // first, so the order of events is kept.
  #thoughts: EngineEvent[] = []
  #frame = 0

  #take(e: EngineEvent) {
    if (e.kind === 'thought') {
      this.#thoughts.push(e)
      if (!this.#frame) this.#frame = nextFrame(() => this.flushThoughts())
      return
    }
    this.flushThoughts()
    this.#fold(e)
  }

  /** flushThoughts folds the waiting thought deltas now (the next frame does it anyway). */
  flushThoughts() {
    if (this.#frame) cancelFrame(this.#frame)
    this.#frame = 0
    const batch = this.#thoughts
    this.#thoughts = []
    if (batch.length === 0) return
    let runs = this.runs
    for (const e of batch) runs = this.#folded(runs, e)
    if (runs !== this.runs) this.#setRuns(runs)
  }

  #fold(e: EngineEvent) {
    const runs = this.#folded(this.runs, e)
    if (runs !== this.runs) this.#setRuns(runs)
  }

  // Every change of the runs passes here, one event at a time, so the
  // needs list learns what arrived in the order it arrived.
  #setRuns(runs: Record<string, RunView>) {
    this.runs = runs
    this.#renew()
  }

  #renew() {
    const prev = this.needs
    this.needs = updateNeeds(prev, this.runs, this.devices.map((d) => d.id), this.#seen)
    if (this.needs === prev) return
    const had = new Set(prev.map(needKey))
    for (const n of this.needs) if (!had.has(needKey(n))) for (const f of this.#arrivals) f(n)
  }

  #arrivals: ((n: Need) => void)[] = []

  /**
   * onNeed calls f with each need as it arrives (to raise a desktop
   * notification, say), in the order the needs list takes them; it returns
   * the function that stops it.
   */
  onNeed(f: (n: Need) => void): () => void {
    this.#arrivals.push(f)
    return () => (this.#arrivals = this.#arrivals.filter((g) => g !== f))
  }

  /** seeNeed marks a need as seen: a read take-over request or a failure leaves the list. */
  seeNeed(n: Need) {
    this.#seen.add(needKey(n))
    this.#renew()
  }

  /** folded returns runs with e applied (the same object when e changes nothing). */
  #folded(runs: Record<string, RunView>, e: EngineEvent): Record<string, RunView> {
    let device = this.#runDevice.get(e.run)
    if (e.kind === 'snapshot' && e.snapshot?.device) {
      device = e.snapshot.device
      this.#runDevice.set(e.run, device)
    }
    if (!device) return runs
    const cur = runs[device]
    if (cur && cur.id !== e.run && e.kind !== 'snapshot') return runs
    const next = apply(cur && cur.id === e.run ? cur : null, e)
    if (!next || next === cur) return runs
    return { ...runs, [device]: next }
  }

  /**
   * refreshDevices asks for the device list. A list set while the call was
   * out (a "devices" event, sent on every change) is newer than its answer,
   * which is then dropped: under load the event can overtake the answer.
   */
  async refreshDevices() {
    const before = this.#listed
    try {
      const list = await backend.ListDevices()
      if (this.#listed === before) this.setDevices(list)
      this.devicesError = ''
    } catch (e) {
      this.devicesError = errorText(e)
    }
  }

  setDevices(list: DeviceEntry[]) {
    this.#listed++
    this.devices = list
    // A device no one else drives any more shows no run of theirs.
    const gone = Object.keys(this.away).filter((id) => !list.some((d) => d.id === id && d.held_by))
    if (gone.length) {
      const next = { ...this.away }
      for (const id of gone) delete next[id]
      this.away = next
    }
    if (!this.selected || !list.some((d) => d.id === this.selected)) {
      // This computer is never chosen for the person: an agent moving
      // their own mouse must be their explicit choice.
      const usable = list.find((d) => d.kind !== 'desktop' && (d.state === 'device' || d.state === 'ready'))
      this.selected = usable?.id ?? ''
    }
  }

  /** command runs one backend call for the selected run and shows its error. */
  command(f: (runID: string) => Promise<unknown>): Promise<boolean> {
    return this.commandOn(this.selected, f)
  }

  /**
   * commandOn runs one backend call for device dev's run (a tile's own
   * buttons): the run's id is read here, once, so the call carries the
   * tile's run whatever is selected meanwhile.
   */
  async commandOn(dev: string, f: (runID: string) => Promise<unknown>): Promise<boolean> {
    const run = this.runs[dev]
    if (!run) return false
    try {
      await f(run.id)
      delete this.errors[dev]
      return true
    } catch (e) {
      this.errors[dev] = errorText(e)
      return false
    }
  }

  start(goal: string): Promise<boolean> {
    return this.startOn(this.selected, goal)
  }

  /** startOn starts a run of goal on device dev. */
  startOn(dev: string, goal: string): Promise<boolean> {
    return this.#launch(dev, () => backend.StartRun(dev, goal))
  }

  /** replayOn replays finished run on device dev (History's Run again). */
  replayOn(dev: string, run: string): Promise<boolean> {
    return this.#launch(dev, () => backend.RunAgain(run, dev))
  }

  /**
   * adoptStarts shows runs Go started for a chore at once, as a run started
   * here is, and returns the starts (a device that did not start says why).
   */
  adoptStarts(starts: ChoreStart[]): ChoreStart[] {
    for (const s of starts) {
      if (s.error || !s.run?.id) continue
      this.#runDevice.set(s.run.id, s.device)
      this.handle({ run: s.run.id, seq: s.run.seq, time: '', kind: 'snapshot', snapshot: s.run })
      delete this.errors[s.device]
    }
    return starts
  }

  async #launch(dev: string, start: () => Promise<Snapshot>): Promise<boolean> {
    try {
      const snap = await start()
      this.#runDevice.set(snap.id, dev)
      this.handle({ run: snap.id, seq: snap.seq, time: '', kind: 'snapshot', snapshot: snap })
      delete this.errors[dev]
      return true
    } catch (e) {
      this.errors[dev] = errorText(e)
      return false
    }
  }

  /** frameURL is where a run's recorded frame is served, or '' when unknown. */
  frameURL(run: string, frame: string | undefined): string {
    if (!frame || !this.frames) return ''
    return `${this.frames.url}${encodeURIComponent(run)}/${frame}?token=${this.frames.token}`
  }

  busy(device: string): boolean {
    const r = this.runs[device]
    return !!r && isLive(r.state)
  }

  async init() {
    onRunEvent(this.handle)
    onDevices((d) => this.setDevices(d))
    onElsewhere((e) => this.seeAway(e))
    await this.refreshDevices()
    backend.Elsewhere().then((list) => list.forEach((e) => this.seeAway(e))).catch(() => {}) // shown at its next news
    backend.FramesBase().then((f) => (this.frames = f)).catch(() => {}) // no thumbnails then
    try {
      for (const snap of await backend.ActiveRuns()) this.handle({ run: snap.id, seq: snap.seq, time: '', kind: 'snapshot', snapshot: snap })
    } catch {
      // no runs yet is fine; errors here reappear on the first command
    }
  }
}

export const store = new Store()
