// Which run controls are available in which engine state, derived from the
// engine's transition table (gen/transitions.ts, generated from
// engine/transitions.go): a button is offered only for a command the state
// accepts, so the person never clicks something that cannot work. Stop is
// available in every live state and always takes one click.
import { accepts, states, terminal, type Command, type RunState } from './gen/transitions'

export type { RunState }
export { states }

export type Control = 'start' | 'pause' | 'resume' | 'take_over' | 'hand_back' | 'stop' | 'stop_after'

export function isEnded(s: RunState): boolean {
  return terminal.includes(s)
}

export function isLive(s: RunState): boolean {
  return s !== 'Idle' && !isEnded(s)
}

function accepted(s: RunState, c: Command): boolean {
  return accepts[s][c] !== undefined
}

/** controls returns the set of enabled controls in state s. */
export function controls(s: RunState): Set<Control> {
  // An ended run's card starts a new run; Idle starts this one.
  if (!isLive(s)) return new Set(['start'])
  const out = new Set<Control>()
  if (accepted(s, 'pause')) out.add('pause')
  // WaitingForUser's own "continue" is its dialog's button, not the bar's.
  if (accepted(s, 'resume') && s !== 'WaitingForUser') out.add('resume')
  if (accepted(s, 'take_over')) out.add('take_over')
  if (accepted(s, 'hand_back')) out.add('hand_back')
  if (accepted(s, 'stop')) out.add('stop')
  // "Stop after this step" only where the step goes on and the stop waits
  // for it; where a graceful stop stops at once it would be Stop twice.
  if (accepts[s].stop_gracefully?.includes(s)) out.add('stop_after')
  return out
}

/** Clicking or dragging on the mirror takes over in these states. */
export function mirrorTakesOver(s: RunState): boolean {
  return handsOn(s) === 'take_over'
}

/**
 * Hands is where the person's input on a device goes: its own input (no
 * task on it), the run they drive, a take-over, or nowhere (the task is
 * starting). Go decides it (app/hands.go, handsOn) for every input; the
 * page shows the same rule, tested on the vector Go writes
 * (testdata/hands.json).
 */
export type Hands = 'device' | 'run' | 'take_over' | 'nobody'

/** handsOn is where the person's input goes on a device whose run is in state s (undefined: no run). */
export function handsOn(s: RunState | undefined): Hands {
  if (s === undefined || isEnded(s)) return 'device'
  if (s === 'Manual') return 'run'
  if (accepted(s, 'take_over')) return 'take_over'
  return 'nobody'
}
