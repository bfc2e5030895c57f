// Which run controls are available in which engine state. The engine is the
// authority (an illegal command returns an error there too); this mapping
// keeps the buttons honest so the person never clicks something that cannot
// work. Stop is available in every live state and always takes one click.

export type RunState =
  | 'idle'
  | 'planning'
  | 'executing'
  | 'waiting_for_stability'
  | 'waiting_for_user'
  | 'paused'
  | 'manual'
  | 'done'
  | 'failed'
  | 'stopped'

export type Control = 'start' | 'pause' | 'resume' | 'take_over' | 'hand_back' | 'stop' | 'stop_after'

const live: RunState[] = ['planning', 'executing', 'waiting_for_stability', 'waiting_for_user', 'paused', 'manual']

export function isLive(s: RunState): boolean {
  return live.includes(s)
}

export function isEnded(s: RunState): boolean {
  return s === 'done' || s === 'failed' || s === 'stopped'
}

/** controls returns the set of enabled controls in state s. */
export function controls(s: RunState): Set<Control> {
  switch (s) {
    case 'idle':
    case 'done':
    case 'failed':
    case 'stopped':
      return new Set(['start'])
    case 'planning':
    case 'executing':
    case 'waiting_for_stability':
      return new Set(['pause', 'take_over', 'stop', 'stop_after'])
    case 'waiting_for_user':
      return new Set(['take_over', 'stop'])
    case 'paused':
      return new Set(['resume', 'take_over', 'stop'])
    case 'manual':
      return new Set(['hand_back', 'stop'])
  }
}

/** Clicking or dragging on the mirror takes over in these states. */
export function mirrorTakesOver(s: RunState): boolean {
  return s === 'planning' || s === 'executing' || s === 'waiting_for_stability' || s === 'paused' || s === 'waiting_for_user'
}
