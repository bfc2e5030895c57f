// tileLine is a tile's one line of what its run is doing now (the
// side-by-side view): the waiting call (its place in the model's queue,
// or how long the first word takes), the current step, the result, why it
// ended, else the goal. Never a tile that looks stuck while it waits.
import { describe, type RunView } from './events'
import { i18n, reasonText, sentence, waitingText } from './i18n.svelte'
import { isLive } from './controls'

export function tileLine(run: RunView | undefined): string {
  if (!run) return i18n.t('tiles.noRun')
  if (run.state === 'Planning' && run.waiting && !run.thought) return waitingText(run.waiting)
  const cur = run.plan.todo.find((t) => t.status === 'current')
  if (isLive(run.state) && cur) return describe(cur.action)
  if (run.result?.summary) return run.result.summary
  if (run.state === 'Failed' || run.state === 'Stopped') return sentence(reasonText(run)) || run.goal
  const last = run.steps.at(-1)
  return last ? describe(last.action) : run.goal
}
