// Code generated from the engine's statechart (engine/chart.go)
// by `go test ./engine -run TypeScript -update`. DO NOT EDIT.

export const states = ['Idle', 'Planning', 'Executing', 'WaitingForStability', 'WaitingForUser', 'Paused', 'Manual', 'Done', 'Failed', 'Stopped'] as const

export type RunState = (typeof states)[number]

/** States a run never leaves. */
export const terminal: readonly RunState[] = ['Done', 'Failed', 'Stopped']

/** The person's commands. */
export type Command =
  | 'start'
  | 'pause'
  | 'resume'
  | 'take_over'
  | 'hand_back'
  | 'stop'
  | 'stop_gracefully'
  | 'confirm'
  | 'deny'
  | 'answer'
  | 'edit_goal'
  | 'edit_pending'
  | 'manual_input'

/** The commands each state accepts, and the states each may lead to; any other command is refused. */
export const accepts: Record<RunState, Partial<Record<Command, readonly RunState[]>>> = {
  Idle: { start: ['Planning', 'WaitingForUser'], stop: ['Stopped'], edit_goal: ['Idle'] },
  Planning: { pause: ['Paused'], take_over: ['Manual'], stop: ['Stopped'], stop_gracefully: ['Planning'], edit_goal: ['Planning', 'WaitingForUser', 'Stopped'] },
  Executing: { pause: ['Executing'], take_over: ['Executing'], stop: ['Stopped'], stop_gracefully: ['Executing'], edit_goal: ['Executing'], edit_pending: ['Executing'] },
  WaitingForStability: { pause: ['Paused'], take_over: ['Manual'], stop: ['Stopped'], stop_gracefully: ['WaitingForStability'], edit_goal: ['WaitingForStability'], edit_pending: ['WaitingForStability'] },
  WaitingForUser: { resume: ['Planning', 'WaitingForUser', 'Stopped'], take_over: ['Manual'], stop: ['Stopped'], stop_gracefully: ['Stopped'], confirm: ['Executing', 'WaitingForUser', 'Stopped'], deny: ['Planning', 'WaitingForUser', 'Stopped'], answer: ['Planning', 'WaitingForUser', 'Stopped'], edit_goal: ['WaitingForUser'], edit_pending: ['WaitingForUser'] },
  Paused: { resume: ['Planning', 'WaitingForUser', 'Stopped'], take_over: ['Manual'], stop: ['Stopped'], stop_gracefully: ['Stopped'], edit_goal: ['Paused'], edit_pending: ['Paused'] },
  Manual: { hand_back: ['Planning', 'WaitingForUser', 'Stopped'], stop: ['Stopped'], stop_gracefully: ['Stopped'], edit_goal: ['Manual'], manual_input: ['Manual'] },
  Done: {},
  Failed: {},
  Stopped: {},
}
