// Code generated from the Go structs of a device another Tandem drives by
// `go test ./app -run TypeScript -update-ts`. DO NOT EDIT.
import type { Holder, Snapshot } from './types'

/** backend.ElsewhereRun */
export interface ElsewhereRun {
  device: string
  holder: Holder
  run?: Snapshot
  gone?: boolean
}
