// Code generated from the Go structs the Evaluate view receives by
// `go test ./app -run TypeScript -update-ts`. DO NOT EDIT.

/** eval.EvalRequest */
export interface EvalRequest {
  profiles: string[]
  oracle: boolean
  tier: string
  tasks: string
  seed: number
  phones: number
}

/** eval.EvalSummary */
export interface EvalSummary {
  id: string
  started: string
  state: string
  models: string[]
  tasks: number
  rates: number[]
}

/** eval.Evaluation */
export interface Evaluation {
  id: string
  started: string
  ended?: string
  state: string
  error?: string
  request: EvalRequest
  tasks: Task[]
  models: ModelResult[]
  declined?: string[]
}

/** eval.ModelResult */
export interface ModelResult {
  name: string
  results: TaskRun[]
  summary: Summary
}

/** eval.Progress */
export interface Progress {
  id: string
  state: string
  model: string
  done: number
  total: number
  last?: TaskRun
}

/** eval.Summary */
export interface Summary {
  tasks: number
  success: number
  rate: number
  false_done: number
  missed_done: number
  by_tier: Record<string, TierSummary>
  tokens: number
  cost: number
  seconds: number
}

/** eval.Task */
export interface Task {
  task: string
  template: string
  tier: string
  apps: string[]
  goal: string
}

/** eval.TaskRun */
export interface TaskRun {
  task: string
  template: string
  tier: string
  goal: string
  success: boolean
  claimed_done: boolean
  steps: number
  model_calls: number
  tokens: number
  cost: number
  seconds: number
  ended: string
  confirmations?: number
  run?: string
  device?: string
  error?: string
}

/** eval.TierSummary */
export interface TierSummary {
  tasks: number
  success: number
  rate: number
}
