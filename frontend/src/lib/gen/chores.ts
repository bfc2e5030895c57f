// Code generated from the Go structs the Chores view receives by
// `go test ./app -run TypeScript -update-ts`. DO NOT EDIT.
import type { Snapshot } from './types'

/** chore.Chore */
export interface Chore {
  id: string
  name: string
  goal: string
  params?: Param[]
  from_run?: string
  devices?: string[]
  schedule?: Schedule
  created?: string
  updated?: string
}

/** backend.ChoreDraft */
export interface ChoreDraft {
  chore: Chore
  suggest: string[]
}

/** backend.ChoreStart */
export interface ChoreStart {
  device: string
  run: Snapshot
  error?: string
}

/** backend.ChoresNews */
export interface ChoresNews {
  missed: MissedSlot[]
  started: ScheduledStart[]
}

/** backend.MissedSlot */
export interface MissedSlot {
  chore: string
  name: string
  slot: string
}

/** chore.Param */
export interface Param {
  name: string
  value: string
  recorded?: string
}

/** chore.Schedule */
export interface Schedule {
  kind: string
  at: string
  every?: number
  off?: boolean
}

/** backend.ScheduledStart */
export interface ScheduledStart {
  chore: string
  name: string
  slot: string
  starts: ChoreStart[]
}
