// While the agent drives this computer, the window becomes a small bar on
// top of every other window (app/compact.go): the person keeps Pause and
// Stop in sight, the agent keeps the screen. It is the bar only while the
// agent works on its own; whenever the person is needed (a confirmation, a
// question, Paused, Manual) or the run ends, the whole window comes back.
import type { RunState } from './gen/transitions'

const agentAtWork: readonly RunState[] = ['Planning', 'Executing', 'WaitingForStability']

/** wantsCompact says whether the window should be the bar now. */
export function wantsCompact(state: RunState | undefined, deviceKind: string | undefined, expanded: boolean): boolean {
  return !expanded && deviceKind === 'desktop' && state !== undefined && agentAtWork.includes(state)
}
