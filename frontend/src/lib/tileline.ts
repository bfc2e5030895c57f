// tileLine is a tile's one line of what its run is doing now (the
// side-by-side view): the waiting call (its place in the model's queue,
// or how long the first word takes), the current step, the result, why it
// ended, else the goal. Never a tile that looks stuck while it waits.
import { describeOn, type RunView } from './events'
import { i18n, reasonText, sentence, waitingText } from './i18n.svelte'
import { isLive } from './controls'

export function tileLine(run: RunView | undefined): string {
  if (!run) return i18n.t('tiles.noRun')
  if (run.state === 'Planning' && run.waiting && !run.thought) return waitingText(run.waiting)
  const cur = run.plan.todo.find((t) => t.status === 'current')
  if (isLive(run.state) && cur) return describeOn(cur.action, cur.element?.shown)
  if (run.result?.summary) return run.result.summary
  if (run.state === 'Failed' || run.state === 'Stopped') return sentence(reasonText(run)) || run.goal
  const last = run.steps.at(-1)
  return last ? describeOn(last.action, last.target) : run.goal
}
