// Which run controls are available in which engine state. The engine is the
// authority (an illegal command returns an error there too); this mapping
// keeps the buttons honest so the person never clicks something that cannot
// work. Stop is available in every live state and always takes one click.

export type RunState =
  | 'Idle'
  | 'Planning'
  | 'Executing'
  | 'WaitingForStability'
  | 'WaitingForUser'
  | 'Paused'
  | 'Manual'
  | 'Done'
  | 'Failed'
  | 'Stopped'

export type Control = 'start' | 'pause' | 'resume' | 'take_over' | 'hand_back' | 'stop' | 'stop_after'

const live: RunState[] = ['Planning', 'Executing', 'WaitingForStability', 'WaitingForUser', 'Paused', 'Manual']

export function isLive(s: RunState): boolean {
  return live.includes(s)
}

export function isEnded(s: RunState): boolean {
  return s === 'Done' || s === 'Failed' || s === 'Stopped'
}

/** controls returns the set of enabled controls in state s. */
export function controls(s: RunState): Set<Control> {
  switch (s) {
    case 'Idle':
    case 'Done':
    case 'Failed':
    case 'Stopped':
      return new Set(['start'])
    case 'Planning':
    case 'Executing':
    case 'WaitingForStability':
      return new Set(['pause', 'take_over', 'stop', 'stop_after'])
    case 'WaitingForUser':
      return new Set(['take_over', 'stop'])
    case 'Paused':
      return new Set(['resume', 'take_over', 'stop'])
    case 'Manual':
      return new Set(['hand_back', 'stop'])
  }
}

/** Clicking or dragging on the mirror takes over in these states. */
export function mirrorTakesOver(s: RunState): boolean {
  return s === 'Planning' || s === 'Executing' || s === 'WaitingForStability' || s === 'Paused' || s === 'WaitingForUser'
}
